import { MAX_METADATA_BYTES, MAX_TITLE } from '../../src/importerPort.js';
import { ErrorCode } from '../../src/errors.js';
import type { JsonObject } from '../../src/shared/json.js';
import { FileError } from '../files/fileErrors.js';
import type { DocumentDefaults } from '../jobs/types.js';
import type { ImportPlan } from '../types.js';

/** Longest text a source puts in one metadata value (a page description, a PDF subject): enough to read, never the cap. */
const MAX_SOURCE_VALUE = 1000;
/** Metadata that records where a document came from; cutting them would make them wrong. */
const URL_KEYS = new Set(['url', 'finalUrl']);

/** Cuts text to `max` characters ending in "…", never between the halves of a surrogate pair. */
function shorten(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = max - 1;
  if (/[\uDC00-\uDFFF]/.test(text.charAt(end))) end -= 1;
  return `${text.slice(0, end).trimEnd()}…`;
}

/**
 * Fits what a page or file says about itself into the document limits, so text the user never typed cannot fail the
 * import as if it were input: a too-long title and metadata values are shortened (the user's own metadata is kept),
 * and a source with no text fails as INVALID_FILE naming it, like a file with no text.
 */
export function fitPlanToDocumentLimits<P extends ImportPlan>(
  plan: P,
  defaults: DocumentDefaults,
  label: string,
  details: Record<string, string>,
): P {
  const given = defaults.metadata;
  const fromUser = (key: string, value: unknown) => Object.hasOwn(given, key) && given[key] === value;
  for (const doc of plan.documents) {
    if (doc.content.replaceAll('\u0000', '').trim() === '')
      throw new FileError(ErrorCode.INVALID_FILE, label, 'contains no text', details);
    doc.title = shorten(doc.title.trim(), MAX_TITLE);
    const metadata: JsonObject = {};
    for (const [key, value] of Object.entries(doc.metadata)) {
      const cut = typeof value === 'string' && !URL_KEYS.has(key) && !fromUser(key, value);
      metadata[key] = cut ? shorten(value, MAX_SOURCE_VALUE) : value;
    }
    // Still too large only beside the user's own metadata: the source's values give way, largest first.
    const size = (key: string) => Buffer.byteLength(JSON.stringify(metadata[key]) ?? '', 'utf8');
    const sourceKeys = Object.keys(metadata)
      .filter((k) => !fromUser(k, metadata[k]))
      .sort((a, b) => size(b) - size(a));
    for (const key of sourceKeys) {
      if (Buffer.byteLength(JSON.stringify(metadata), 'utf8') <= MAX_METADATA_BYTES) break;
      delete metadata[key];
    }
    doc.metadata = metadata;
  }
  return plan;
}
