import type { Json } from './types.js';

/** The document a `$ref` names, without its `#…` fragment; undefined when it cannot be read as a URL. */
export function refDocument(ref: string, documentUrl: string): string | undefined {
  try {
    return new URL(ref, documentUrl).href.replace(/#.*$/, '');
  } catch {
    return undefined;
  }
}

const escapeToken = (token: string): string => token.replace(/~/g, '~0').replace(/\//g, '~1');

/** Where a spec keeps its named schemas (Swagger 2 and OpenAPI 3), which local `$ref`s point to by name. */
const SCHEMA_MAPS: ReadonlySet<string> = new Set(['#/definitions', '#/components/schemas']);

const notImported = (ref: string): string => `Not imported: $ref "${ref}" could not be resolved`;

/** What stands in for a named schema that is only an unreadable `$ref`: any value fits it, and it says why. */
const placeholderSchema = (ref: string): Json => ({ description: notImported(ref), 'x-cairn-unresolved': ref });

/**
 * Removes every `$ref` of `doc` (read from `documentUrl`) whose document could not be read, calling `skipped` with its
 * JSON pointer. A removed response stays as one with only a description (a response map may not be empty), and a
 * named schema (`definitions`, `components/schemas`) as a placeholder schema saying it was not resolved, so the local
 * `$ref`s to it still resolve; anything else goes, array entries included.
 */
export function pruneUnresolvedRefs(
  doc: unknown,
  documentUrl: string,
  unresolved: ReadonlyMap<string, string>,
  skipped: (ref: string, pointer: string, reason: string) => void,
): void {
  const reasonFor = (value: unknown): { ref: string; reason: string } | undefined => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
    const ref = (value as Json).$ref;
    if (typeof ref !== 'string' || ref.startsWith('#')) return undefined;
    const target = refDocument(ref, documentUrl);
    const reason = target === undefined ? undefined : unresolved.get(target);
    return reason === undefined ? undefined : { ref, reason };
  };
  const walk = (node: unknown, pointer: string, key: string | undefined): void => {
    if (Array.isArray(node)) {
      for (let i = node.length - 1; i >= 0; i--) {
        const hit = reasonFor(node[i]);
        if (hit) {
          skipped(hit.ref, `${pointer}/${i}`, hit.reason);
          node.splice(i, 1);
        } else walk(node[i], `${pointer}/${i}`, undefined);
      }
      return;
    }
    if (typeof node !== 'object' || node === null) return;
    const object = node as Json;
    for (const name of Object.keys(object)) {
      const child = `${pointer}/${escapeToken(name)}`;
      const hit = reasonFor(object[name]);
      if (!hit) {
        walk(object[name], child, name);
        continue;
      }
      skipped(hit.ref, child, hit.reason);
      if (SCHEMA_MAPS.has(pointer)) object[name] = placeholderSchema(hit.ref);
      else if (key === 'responses') object[name] = { description: notImported(hit.ref) };
      else delete object[name];
    }
  };
  walk(doc, '#', undefined);
}
