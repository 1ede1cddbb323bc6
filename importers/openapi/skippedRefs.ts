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
/** Maps whose every value is a schema. */
const SCHEMA_CONTAINERS: ReadonlySet<string> = new Set(['properties', 'patternProperties', 'definitions', '$defs']);
/** Keys whose value is one schema. */
const SCHEMA_SLOTS: ReadonlySet<string> = new Set([
  'schema',
  'items',
  'additionalProperties',
  'additionalItems',
  'not',
  'contains',
  'propertyNames',
  'if',
  'then',
  'else',
]);
/** Lists of schemas, whose entries stay in place (a local `$ref` may point at one by index). */
const SCHEMA_LISTS: ReadonlySet<string> = new Set(['allOf', 'anyOf', 'oneOf', 'prefixItems']);

const notImported = (ref: string): string => `Not imported: $ref "${ref}" could not be resolved`;

/** What stands in for a schema that is only an unreadable `$ref`: any value fits it, and it says why. */
const placeholderSchema = (ref: string): Json => ({ description: notImported(ref), 'x-cairn-unresolved': ref });

/** Where an unreadable `$ref` sits: the pointer and key of the object holding it, and its own key. */
interface Slot {
  pointer: string;
  container: string | undefined;
  name: string;
}

/**
 * What stands in for an unreadable `$ref` at `slot`, valid where it is (so the spec still validates and the local
 * `$ref`s to it resolve), or undefined where it can simply go. Each placeholder says it was not resolved.
 */
function placeholderFor(slot: Slot, ref: string, swagger2: boolean): Json | undefined {
  const { pointer, container, name } = slot;
  const note = notImported(ref);
  if (SCHEMA_MAPS.has(pointer) || (container !== undefined && SCHEMA_CONTAINERS.has(container)))
    return placeholderSchema(ref);
  if (SCHEMA_SLOTS.has(name)) return placeholderSchema(ref);
  if (container === 'responses') return { description: note, 'x-cairn-unresolved': ref };
  if (container === 'parameters')
    return swagger2
      ? { name, in: 'query', type: 'string', description: note, 'x-cairn-unresolved': ref }
      : { name, in: 'query', schema: {}, description: note, 'x-cairn-unresolved': ref };
  if (container === 'requestBodies' || name === 'requestBody')
    return { description: note, content: {}, 'x-cairn-unresolved': ref };
  if (container === 'headers')
    return swagger2
      ? { type: 'string', description: note, 'x-cairn-unresolved': ref }
      : { schema: {}, description: note, 'x-cairn-unresolved': ref };
  return undefined;
}

/**
 * Removes every `$ref` of `doc` (read from `documentUrl`) whose document could not be read, calling `skipped` with its
 * JSON pointer. Where a local `$ref` could point at it (a schema, named or nested in properties or items, a response,
 * a parameter, a request body, a header) it is replaced by a placeholder that says it was not resolved; anything else
 * goes, array entries that are not schemas included. `swagger2` picks the Swagger 2 shape of parameters and headers.
 */
export function pruneUnresolvedRefs(
  doc: unknown,
  documentUrl: string,
  unresolved: ReadonlyMap<string, string>,
  skipped: (ref: string, pointer: string, reason: string) => void,
  swagger2 = false,
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
        if (!hit) walk(node[i], `${pointer}/${i}`, undefined);
        else {
          skipped(hit.ref, `${pointer}/${i}`, hit.reason);
          if (key !== undefined && SCHEMA_LISTS.has(key)) node[i] = placeholderSchema(hit.ref);
          else node.splice(i, 1);
        }
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
      const placeholder = placeholderFor({ pointer, container: key, name }, hit.ref, swagger2);
      if (placeholder) object[name] = placeholder;
      else delete object[name];
    }
  };
  walk(doc, '#', undefined);
}
