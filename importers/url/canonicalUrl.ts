import { createHash } from 'node:crypto';
import { DOCUMENT_ID_PATTERN } from '../../src/importerPort.js';
import { badInput } from '../../src/errors.js';

const TRACKING_PARAMS = new Set(['gclid', 'fbclid']);

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return text;
  }
}

/** True for `utm_*`, `gclid` and `fbclid`, which only say where a click came from. */
function isTrackingParam(pair: string): boolean {
  const name = safeDecode(pair.split('=', 1)[0] ?? '').toLowerCase();
  return name.startsWith('utm_') || TRACKING_PARAMS.has(name);
}

// Other parameters keep their order and encoding, and the path keeps its case: servers may treat them as significant.
/** Canonical URL: lower-case scheme/host, no default port, fragment, tracking params or empty `?`; BAD_USER_INPUT if not absolute. */
export function canonicalUrl(url: string): string {
  let parsed: URL;
  try {
    // The WHATWG parser already lower-cases scheme and host and drops default ports.
    parsed = new URL(url.trim());
  } catch {
    throw badInput('url', `"${url.slice(0, 80)}" is not an absolute URL`);
  }
  parsed.hash = '';
  // Filter the raw query rather than URLSearchParams, which would re-encode the kept parameters.
  const kept = parsed.search
    .slice(1)
    .split('&')
    .filter((pair) => pair !== '' && !isTrackingParam(pair));
  parsed.search = kept.length > 0 ? `?${kept.join('&')}` : '';
  return parsed.href;
}

/** A stable document id for a URL: its canonical form when that is a valid id, else `url:` + 32 hex chars of its sha256. */
export function documentIdForUrl(url: string): string {
  const canonical = canonicalUrl(url);
  if (DOCUMENT_ID_PATTERN.test(canonical)) return canonical;
  return `url:${createHash('sha256').update(canonical).digest('hex').slice(0, 32)}`;
}
