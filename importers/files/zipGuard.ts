import yauzl from 'yauzl';
import { isAppError } from '../../src/errors.js';
import { errorMessage, formatBytes, invalidFile } from './fileErrors.js';

/** Caps applied to an archive before any other code inflates it. */
export interface ZipGuardLimits {
  /** Cap on the total uncompressed size, declared and actual. */
  maxUnzippedBytes: number;
  /** Cap on the number of entries. */
  maxEntries: number;
  /** Largest uncompressed/compressed ratio allowed for an entry bigger than `ratioFloorBytes`. */
  maxRatio: number;
  /** Entries smaller than this are not ratio-checked (tiny files compress oddly). */
  ratioFloorBytes: number;
}

/** Defaults: real Office files have hundreds of entries and XML compresses ~5–30×; deflate tops out near 1000×. */
export const DEFAULT_ZIP_LIMITS: Omit<ZipGuardLimits, 'maxUnzippedBytes'> = {
  maxEntries: 10_000,
  maxRatio: 200,
  ratioFloorBytes: 1024 * 1024,
};

/** Which entries to inflate and count, and which of those to hand back (small XML parts such as `docProps/core.xml`). */
export interface ZipGuardSelection {
  inflate: (name: string) => boolean;
  keep: (name: string) => boolean;
}

/**
 * Checks a zip archive against bomb limits: entry count, the sum of declared sizes, per-entry compression
 * ratio, then the real inflated size of the selected entries (declared sizes can lie). Returns the kept entries.
 * Throws INVALID_FILE ("expands to more than …", corrupt archive).
 */
export async function guardZip(
  fileName: string,
  bytes: Buffer,
  limits: ZipGuardLimits,
  selection: ZipGuardSelection,
): Promise<Map<string, Buffer>> {
  let zip: yauzl.ZipFile;
  try {
    // validateEntrySizes off: we count real bytes ourselves, so a lie is reported as a size problem.
    zip = await yauzl.fromBufferPromise(bytes, {
      lazyEntries: true,
      validateEntrySizes: false,
      strictFileNames: false,
    });
  } catch (error) {
    throw invalidFile(fileName, `is not a valid zip archive: ${errorMessage(error)}`, {}, error);
  }
  if (zip.entryCount > limits.maxEntries) {
    throw invalidFile(fileName, `has ${zip.entryCount} zip entries; the limit is ${limits.maxEntries}`, {
      entryCount: zip.entryCount,
    });
  }
  const tooBig = (): Error =>
    invalidFile(
      fileName,
      `expands to more than ${formatBytes(limits.maxUnzippedBytes)} when unzipped (CAIRN_IMPORT_MAX_UNZIPPED_BYTES)`,
      { limit: limits.maxUnzippedBytes },
    );
  const kept = new Map<string, Buffer>();
  let declaredTotal = 0;
  let actualTotal = 0;
  try {
    for await (const entry of zip.eachEntry()) {
      declaredTotal += entry.uncompressedSize;
      if (declaredTotal > limits.maxUnzippedBytes) throw tooBig();
      checkRatio(fileName, entry.fileName, entry.uncompressedSize, entry.compressedSize, limits);
      if (entry.fileName.endsWith('/') || !selection.inflate(entry.fileName)) continue;
      const stream = await zip.openReadStreamPromise(entry);
      const chunks: Buffer[] = [];
      let entryBytes = 0;
      try {
        for await (const chunk of stream as AsyncIterable<Buffer>) {
          entryBytes += chunk.length;
          actualTotal += chunk.length;
          if (actualTotal > limits.maxUnzippedBytes) throw tooBig();
          checkRatio(fileName, entry.fileName, entryBytes, entry.compressedSize, limits);
          if (selection.keep(entry.fileName)) chunks.push(chunk);
        }
      } finally {
        stream.destroy();
      }
      if (entryBytes !== entry.uncompressedSize) {
        throw invalidFile(
          fileName,
          `is corrupt: zip entry "${entry.fileName}" declares ${entry.uncompressedSize} bytes but holds ${entryBytes}`,
          { entry: entry.fileName },
        );
      }
      if (selection.keep(entry.fileName)) kept.set(entry.fileName, Buffer.concat(chunks));
    }
  } catch (error) {
    if (isAppError(error)) throw error;
    throw invalidFile(fileName, `is not a valid zip archive: ${errorMessage(error)}`, {}, error);
  } finally {
    zip.close();
  }
  return kept;
}

function checkRatio(
  fileName: string,
  entry: string,
  uncompressed: number,
  compressed: number,
  limits: ZipGuardLimits,
): void {
  if (uncompressed <= limits.ratioFloorBytes) return;
  const ratio = uncompressed / Math.max(1, compressed);
  if (ratio > limits.maxRatio) {
    throw invalidFile(
      fileName,
      `looks like a zip bomb: "${entry}" expands ${Math.round(ratio)}× (the limit is ${limits.maxRatio}×)`,
      { entry, ratio: Math.round(ratio), limit: limits.maxRatio },
    );
  }
}
