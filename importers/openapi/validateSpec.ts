import { createRequire } from 'node:module';
import { AppError, ErrorCode, redactAndTruncate } from '../../src/errors.js';
import { MAX_SPEC_DEPTH } from './parseSpec.js';
import type { Json } from './types.js';

const require = createRequire(import.meta.url);

// swagger-parser's entry point require()s the ESM-only json-schema-ref-parser, which Jest's CommonJS
// runtime cannot load; its two validators are plain CommonJS (Ajv + the official schemas), so they
// are used directly and the $ref work is done with json-schema-ref-parser itself.
const validateSchema = require('@apidevtools/swagger-parser/lib/validators/schema.js') as (api: Json) => void;
const validateSpec = require('@apidevtools/swagger-parser/lib/validators/spec.js') as (api: Json) => void;

/**
 * Validates a dereferenced spec against the official Swagger 2.0 / OpenAPI 3.0 / 3.1 JSON schemas,
 * then (2.0) the rules the schema cannot express. Throws swagger-parser's SyntaxError, whose
 * `details` lists Ajv's findings with their JSON pointers.
 */
export function validateOpenApiDocument(api: Json): void {
  validateSchema(api);
  validateSpec(api);
}

/** One object or array met by the walk; the parent links rebuild its JSON pointer only when it is reported. */
interface Visit {
  node: object;
  depth: number;
  parent: Visit | undefined;
  key: string;
}

function pointerOf(visit: Visit): string {
  const keys: string[] = [];
  for (let v: Visit | undefined = visit; v?.parent; v = v.parent)
    keys.push(v.key.replace(/~/g, '~0').replace(/\//g, '~1'));
  return `#/${keys.reverse().join('/')}`;
}

function tooDeep(location: string, what: string): AppError {
  return new AppError(
    ErrorCode.INVALID_OPENAPI,
    `The spec ${what} deeper than ${MAX_SPEC_DEPTH} levels (at ${redactAndTruncate(location)}); no real API needs that: check the generator that wrote it, or flatten the nesting`,
    { location: location.slice(0, 1000), reason: 'too_deep', maxDepth: MAX_SPEC_DEPTH },
  );
}

/** Throws INVALID_OPENAPI when objects and arrays nest deeper than MAX_SPEC_DEPTH; returns every `$ref` object. */
function walk(root: Json): { refs: Json[] } {
  const refs: Json[] = [];
  const seen = new Set<object>();
  // Iterative, so that the check itself cannot exhaust the stack the way recursive parsers and validators did.
  const stack: Visit[] = [{ node: root, depth: 0, parent: undefined, key: '' }];
  while (stack.length > 0) {
    const visit = stack.pop()!;
    if (visit.depth > MAX_SPEC_DEPTH) throw tooDeep(pointerOf(visit), 'nests objects');
    if (seen.has(visit.node)) continue;
    seen.add(visit.node);
    if (!Array.isArray(visit.node) && typeof (visit.node as Json).$ref === 'string') refs.push(visit.node as Json);
    for (const [key, child] of Object.entries(visit.node)) {
      if (typeof child === 'object' && child !== null)
        stack.push({ node: child, depth: visit.depth + 1, parent: visit, key });
    }
  }
  return { refs };
}

/** The value a local `$ref` ("#/a/b") points to, or undefined for external or dangling ones. */
function resolveLocal(root: Json, ref: string): unknown {
  if (!ref.startsWith('#')) return undefined;
  let value: unknown = root;
  for (const raw of ref.slice(1).split('/').slice(1)) {
    let key: string;
    try {
      key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    } catch {
      return undefined;
    }
    if (typeof value !== 'object' || value === null || !Object.hasOwn(value, key)) return undefined;
    value = (value as Json)[key];
  }
  return value;
}

function isRef(value: unknown): value is Json & { $ref: string } {
  return (
    typeof value === 'object' && value !== null && !Array.isArray(value) && typeof (value as Json).$ref === 'string'
  );
}

/** Follows every chain of `$ref`s that point at `$ref`s: a loop of them has no schema to resolve to. */
function checkRefChains(root: Json, refs: Json[]): void {
  const chainLength = new Map<object, number>();
  for (const start of refs) {
    const chain: (Json & { $ref: string })[] = [];
    const onChain = new Set<object>();
    let node: unknown = start;
    let tail = 0;
    while (isRef(node)) {
      const known = chainLength.get(node);
      if (known !== undefined) {
        tail = known;
        break;
      }
      if (onChain.has(node)) {
        const loop = chain.slice(chain.indexOf(node));
        const names = [...loop, node].map((n) => n.$ref).join(' → ');
        throw new AppError(
          ErrorCode.INVALID_OPENAPI,
          `The spec's $refs form a cycle with no schema in it (${redactAndTruncate(names)}): make one of them a schema (e.g. {type: object}) instead of a $ref`,
          { location: loop[0]!.$ref, reason: 'ref_cycle', cycle: loop.map((n) => n.$ref).slice(0, 50) },
        );
      }
      onChain.add(node);
      chain.push(node);
      node = resolveLocal(root, node.$ref);
    }
    for (let i = chain.length - 1; i >= 0; i--) {
      tail += 1;
      if (tail > MAX_SPEC_DEPTH) throw tooDeep(chain[i]!.$ref, 'chains $refs to $refs');
      chainLength.set(chain[i]!, tail);
    }
  }
}

/**
 * Throws INVALID_OPENAPI, naming the place, for shapes that would exhaust the stack of the recursive bundler,
 * dereferencer and validator: nesting deeper than MAX_SPEC_DEPTH, `$ref`s that only point at each other in a loop,
 * and longer `$ref`-to-`$ref` chains. Run it on the parsed spec and again on the bundled one.
 */
export function assertSpecShape(doc: Json): void {
  const { refs } = walk(doc);
  checkRefChains(doc, refs);
}
