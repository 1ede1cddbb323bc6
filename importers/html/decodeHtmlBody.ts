import { TextDecoder } from 'node:util';

const BOMS: ReadonlyArray<readonly [number[], string]> = [
  [[0xef, 0xbb, 0xbf], 'utf-8'],
  [[0xfe, 0xff], 'utf-16be'],
  [[0xff, 0xfe], 'utf-16le'],
];
// Both `<meta charset="x">` and `<meta http-equiv="Content-Type" content="text/html; charset=x">`.
const META_CHARSET = /<meta\b[^>]*?charset\s*=\s*["']?\s*([a-z0-9_:.+-]+)/i;
const PRESCAN_BYTES = 1024;
// WHATWG index-windows-1252 for bytes 0x80-0x9F (the rest equals latin-1). Node 20.18.3+ decodes
// windows-1252 (and so latin1/ascii labels) as plain latin-1 (nodejs/node#60888), so we map these ourselves.
const WINDOWS_1252_C1 = Array.from(
  '\u20ac\u0081\u201a\u0192\u201e\u2026\u2020\u2021\u02c6\u2030\u0160\u2039\u0152\u008d\u017d\u008f' +
    '\u0090\u2018\u2019\u201c\u201d\u2022\u2013\u2014\u02dc\u2122\u0161\u203a\u0153\u009d\u017e\u0178',
);

/** A TextDecoder for a charset label, or undefined when the label is unknown. */
function decoderFor(label: string | undefined): TextDecoder | undefined {
  if (!label) return undefined;
  try {
    return new TextDecoder(label.trim());
  } catch {
    return undefined;
  }
}

function bomEncoding(body: Buffer): string | undefined {
  for (const [bytes, encoding] of BOMS) {
    if (bytes.every((byte, i) => body[i] === byte)) return encoding;
  }
  return undefined;
}

/** The charset a `<meta>` tag declares in the first 1024 bytes. */
function metaEncoding(body: Buffer): string | undefined {
  const label = META_CHARSET.exec(body.subarray(0, PRESCAN_BYTES).toString('latin1'))?.[1];
  // An ASCII-compatible byte scan cannot have found a UTF-16 page, so the spec reads this as UTF-8.
  return label && /^utf-?16/i.test(label) ? 'utf-8' : label;
}

/** Decodes an HTML response body: BOM first, then the HTTP charset, then `<meta>` in the first 1024 bytes, else UTF-8. */
export function decodeHtmlBody(body: Buffer, charset: string | undefined): string {
  const decoder =
    decoderFor(bomEncoding(body)) ?? decoderFor(charset) ?? decoderFor(metaEncoding(body)) ?? new TextDecoder('utf-8');
  if (decoder.encoding === 'windows-1252') {
    return body.toString('latin1').replace(/[\u0080-\u009f]/g, (c) => WINDOWS_1252_C1[c.charCodeAt(0) - 0x80] ?? c);
  }
  // TextDecoder removes a BOM of its own encoding, so none leaks into the text.
  return decoder.decode(body);
}
