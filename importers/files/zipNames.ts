const EOCD_SIGNATURE = 0x06054b50;
const CENTRAL_SIGNATURE = 0x02014b50;
const EOCD_SIZE = 22;
const MAX_COMMENT = 0xffff;

/** True when the bytes start like a zip archive (local header, or the end record of an empty archive). */
export function isZip(bytes: Buffer): boolean {
  return (
    bytes.length >= 4 &&
    bytes[0] === 0x50 &&
    bytes[1] === 0x4b &&
    [0x0304, 0x0506, 0x0708].includes(bytes.readUInt16BE(2))
  );
}

/**
 * Entry names from the central directory, read synchronously for format detection only (the docx
 * guard reads the archive properly with yauzl). Undefined when the directory cannot be read.
 */
export function zipEntryNames(bytes: Buffer, limit = 10_000): string[] | undefined {
  const eocd = findEndOfCentralDirectory(bytes);
  if (eocd === undefined) return undefined;
  const count = bytes.readUInt16LE(eocd + 10);
  const offset = bytes.readUInt32LE(eocd + 16);
  const names: string[] = [];
  let at = offset;
  for (let i = 0; i < Math.min(count, limit); i++) {
    if (at + 46 > bytes.length || bytes.readUInt32LE(at) !== CENTRAL_SIGNATURE) return undefined;
    const nameLength = bytes.readUInt16LE(at + 28);
    const extraLength = bytes.readUInt16LE(at + 30);
    const commentLength = bytes.readUInt16LE(at + 32);
    if (at + 46 + nameLength > bytes.length) return undefined;
    names.push(bytes.toString('utf8', at + 46, at + 46 + nameLength));
    at += 46 + nameLength + extraLength + commentLength;
  }
  return names;
}

/**
 * True when the archive holds an entry with this exact name; falls back to a byte search when the
 * directory is unreadable (zip64, truncated).
 */
export function zipHasEntry(bytes: Buffer, name: string): boolean {
  const names = zipEntryNames(bytes);
  return names ? names.includes(name) : bytes.includes(Buffer.from(name, 'utf8'));
}

function findEndOfCentralDirectory(bytes: Buffer): number | undefined {
  const lowest = Math.max(0, bytes.length - EOCD_SIZE - MAX_COMMENT);
  for (let at = bytes.length - EOCD_SIZE; at >= lowest; at--) {
    if (bytes.readUInt32LE(at) === EOCD_SIGNATURE) return at;
  }
  return undefined;
}
