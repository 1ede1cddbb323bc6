import type { ImportPlan } from '../types.js';
import { canonicalSpecUrl, slugify } from './ids.js';
import { asArray, asJson, asString, type LoadedSpec } from './types.js';

/** How a spec reached Cairn: the thing its derived id was taken from. */
export type SpecOrigin =
  /** Fetched from a URL (importOpenApi url, importUrl, cairn import openapi <url>); `url` as canonicalSpecUrl gives it. */
  | { kind: 'url'; url: string }
  /** Given inline (importOpenApi content, cairn import openapi <file>): the id comes from info.title. */
  | { kind: 'content' }
  /** An uploaded file or a file of an imported folder: the id comes from the document id `file`. */
  | { kind: 'file'; file: string };

/** What an import knows about the spec it is about to write, to tell whether it may replace the spec under its id. */
export interface SpecIdentity {
  specId: string;
  /** The caller chose the id (specId, or an upload's id): the spec is theirs to replace, so nothing is checked. */
  explicit: boolean;
  origin: SpecOrigin;
  /** `info.title` (not a title override, which is only a display name). */
  title: string;
  /** Lower-case hosts of the spec's absolute server URLs (3.x servers, 2.0 host). */
  serverHosts: string[];
  /** Where the spec was read from after redirects, or null when given inline. */
  sourceUrl: string | null;
  /** Ids of the operation and webhook documents the plan writes. */
  operationDocumentIds: string[];
}

/** A plan that may come from a spec; `spec` is set whenever it does. */
export type SpecImportPlan = ImportPlan & { spec?: SpecIdentity };

/** What is stored about the spec that holds an id (overview document and Api entity); old imports stored less. */
export interface StoredSpec {
  /** Display title (the overview document's). */
  title: string;
  /** Every title the spec was known by: info.title when recorded, else the Api entity's name and aliases. */
  titles: string[];
  /** The overview document's source. */
  source: string | null;
  /** Recorded since specs have origins; undefined for specs imported before. */
  origin?: SpecOrigin;
  /** The Api entity's `source` property: the URL the spec was fetched from, or null. */
  sourceUrl: string | null;
  /** Recorded with the origin; undefined (unknown) for older specs. */
  serverHosts?: string[];
  operationDocumentIds: string[];
}

/** The hosts of a spec's absolute server URLs; relative and templated servers (`{region}.example.com`) say nothing. */
export function serverHosts(spec: LoadedSpec): string[] {
  const doc = spec.document;
  const urls =
    spec.specVersion === '2.0'
      ? [asString(doc.host) ? `https://${asString(doc.host)}` : undefined]
      : asArray(doc.servers).map((s) => asString(asJson(s)?.url));
  const hosts = new Set<string>();
  for (const url of urls) {
    if (!url || url.includes('{')) continue;
    try {
      const host = new URL(url).hostname.toLowerCase();
      if (host) hosts.add(host);
    } catch {
      // A relative server URL has no host of its own.
    }
  }
  return [...hosts].sort();
}

/** How an origin reads in a message. */
export function describeOrigin(origin: SpecOrigin | undefined, source: string | null): string {
  const from = source ? `, source "${source}"` : '';
  if (!origin) return source ? `source "${source}"` : 'no recorded source';
  if (origin.kind === 'url')
    return source && canonicalSpecUrl(source) === origin.url
      ? `fetched from ${source}`
      : `fetched from ${origin.url}${from}`;
  if (origin.kind === 'file') {
    const name = origin.file.replace(/^file:/, '');
    return `from the file ${name}${source && source !== name && !name.endsWith(`/${source}`) ? from : ''}`;
  }
  return `given inline${from}`;
}

const overlaps = (a: readonly string[], b: readonly string[]) => a.some((x) => b.includes(x));

/**
 * Why `incoming` is a different spec from `stored` (which holds the same derived id), or undefined when it is the same
 * spec and may replace it. A URL identifies its spec; a spec given inline or as a file is the same spec while its
 * title matches, its servers (when both have any) share a host and its operations (when both have any) share one.
 * Doubt refuses: a wrongly refused re-import costs one retry with specId, a wrong replacement loses a spec.
 */
export function originConflict(stored: StoredSpec, incoming: SpecIdentity): string | undefined {
  const storedKind = stored.origin?.kind ?? (stored.sourceUrl ? 'url' : undefined);
  const mine = incoming.origin;
  if (storedKind && storedKind !== mine.kind)
    return `it was ${describeOrigin(stored.origin, stored.source)}, this one is ${describeOrigin(mine, null)}`;
  if (mine.kind === 'url') {
    const known =
      stored.origin?.kind === 'url'
        ? [stored.origin.url]
        : [stored.sourceUrl, stored.source].flatMap((u) => (u ? (canonicalSpecUrl(u) ?? []) : []));
    const fetched = incoming.sourceUrl ? canonicalSpecUrl(incoming.sourceUrl) : undefined;
    if (known.includes(mine.url) || (fetched !== undefined && known.includes(fetched))) return undefined;
    return known.length > 0
      ? `it was fetched from ${known[0]}, this one from ${mine.url}`
      : 'it was not fetched from a URL';
  }
  if (mine.kind === 'file' && stored.origin?.kind === 'file' && stored.origin.file !== mine.file)
    return `it came from the file ${stored.origin.file.replace(/^file:/, '')}`;
  const title = slugify(incoming.title);
  // A recorded title may have been cut to fit the metadata limits ("…"): its start must match.
  const sameTitle = (t: string) =>
    slugify(t) === title || (t.endsWith('…') && title.startsWith(slugify(t.slice(0, -1))));
  if (!stored.titles.some(sameTitle))
    return `its title is "${stored.titles[0] ?? stored.title}", this one's "${incoming.title}"`;
  if (
    stored.serverHosts?.length &&
    incoming.serverHosts.length &&
    !overlaps(stored.serverHosts, incoming.serverHosts)
  ) {
    return `its servers (${stored.serverHosts.join(', ')}) share no host with this one's (${incoming.serverHosts.join(', ')})`;
  }
  if (
    stored.operationDocumentIds.length &&
    incoming.operationDocumentIds.length &&
    !overlaps(stored.operationDocumentIds, incoming.operationDocumentIds)
  ) {
    return 'it has no operation (method and path) in common with this one';
  }
  return undefined;
}
