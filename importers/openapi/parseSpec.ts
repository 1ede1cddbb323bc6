import { parse as parseYaml } from 'yaml';
import { AppError, ErrorCode, redactAndTruncate } from '../../src/errors.js';
import { isJson, type Json, type SpecVersion } from './types.js';

/** Deepest nesting (and longest `$ref` chain) a spec may have: json-schema-ref-parser's own dereference limit. */
export const MAX_SPEC_DEPTH = 500;

/** Default cap on YAML alias expansions: small, so a billion-laughs document fails at once. */
export const DEFAULT_MAX_ALIASES = 100;

/** Options of `parseSpecText`. */
export interface ParseSpecOptions {
  /** Maximum alias expansions in YAML (default 100). */
  maxAliases?: number;
  /** Names the document in error messages (a URL or file name). */
  label?: string;
}

/**
 * Parses JSON or YAML text into a value. Throws AppError INVALID_OPENAPI on syntax errors, on
 * excessive YAML aliasing, on recursive aliases (which would make the value a cyclic graph) and on
 * nesting deeper than MAX_SPEC_DEPTH.
 */
export function parseSpecText(text: string, options: ParseSpecOptions = {}): unknown {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const label = options.label ? ` ${options.label}` : '';
  const trimmed = body.trimStart();
  // JSON.parse is an order of magnitude faster than the YAML parser on multi-megabyte specs.
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
    let json: unknown;
    try {
      json = JSON.parse(body) as unknown;
    } catch {
      // Not strict JSON (comments, trailing commas, flow YAML): let the YAML parser try and report.
    }
    if (json !== undefined) {
      assertTree(json, label);
      return json;
    }
  }
  let value: unknown;
  try {
    value = parseYaml(body, {
      maxAliasCount: options.maxAliases ?? DEFAULT_MAX_ALIASES,
      uniqueKeys: false,
      prettyErrors: true,
    });
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    if (/Maximum call stack size exceeded/.test(message)) {
      // The YAML parser recurses per level; its own message would be a stack overflow with a position.
      throw new AppError(
        ErrorCode.INVALID_OPENAPI,
        `The document${label} nests too deeply to read (far more than ${MAX_SPEC_DEPTH} levels); no real API needs that: check the generator that wrote it`,
        { reason: 'too_deep' },
      );
    }
    if (/alias/i.test(message) && /excessive|resource exhaustion/i.test(message)) {
      throw new AppError(
        ErrorCode.INVALID_OPENAPI,
        `The document${label} expands YAML aliases too often (limit ${options.maxAliases ?? DEFAULT_MAX_ALIASES}); refusing it as a possible "billion laughs" attack`,
        { reason: 'yaml_aliases' },
      );
    }
    throw new AppError(
      ErrorCode.INVALID_OPENAPI,
      `The document${label} is neither valid JSON nor valid YAML: ${message.split('\n')[0] ?? message}`,
      { reason: 'syntax', detail: message.slice(0, 2000) },
    );
  }
  assertTree(value, label);
  return value;
}

/**
 * Rejects values that contain themselves (YAML `&a [*a]`), since everything downstream assumes a tree or DAG, and
 * values nested deeper than MAX_SPEC_DEPTH, which would exhaust the stack of the recursive $ref resolver.
 */
function assertTree(root: unknown, label: string): void {
  const onPath = new Set<object>();
  const done = new Set<object>();
  const stack: { node: object; key: string; children: [string, unknown][]; next: number }[] = [];
  const enter = (node: unknown, key: string): void => {
    if (typeof node !== 'object' || node === null || done.has(node)) return;
    if (onPath.has(node))
      throw new AppError(ErrorCode.INVALID_OPENAPI, `The document${label} contains a recursive YAML alias`, {
        reason: 'yaml_recursive_alias',
      });
    if (stack.length > MAX_SPEC_DEPTH) {
      const location = `#${[...stack.slice(1).map((f) => f.key), key].map((k) => `/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`).join('')}`;
      throw new AppError(
        ErrorCode.INVALID_OPENAPI,
        `The document${label} nests deeper than ${MAX_SPEC_DEPTH} levels (at ${redactAndTruncate(location)}); no real API needs that: check the generator that wrote it, or flatten the nesting`,
        { reason: 'too_deep', location: location.slice(0, 1000), maxDepth: MAX_SPEC_DEPTH },
      );
    }
    onPath.add(node);
    stack.push({ node, key, children: Object.entries(node), next: 0 });
  };
  // Iterative walk: a deeply nested document must not overflow the call stack.
  enter(root, '');
  while (stack.length > 0) {
    const top = stack[stack.length - 1]!;
    if (top.next < top.children.length) {
      const [key, child] = top.children[top.next++]!;
      enter(child, key);
    } else {
      stack.pop();
      onPath.delete(top.node);
      done.add(top.node);
    }
  }
}

/** True when the value looks like a Swagger 2.0 or OpenAPI 3.x document (a version key plus paths or webhooks). */
export function looksLikeOpenApi(value: unknown): boolean {
  if (!isJson(value)) return false;
  const hasVersion =
    typeof value.openapi === 'string' || typeof value.swagger === 'string' || typeof value.swagger === 'number';
  if (!hasVersion) return false;
  if (isJson(value.paths)) return true;
  return typeof value.openapi === 'string' && value.openapi.startsWith('3.1') && isJson(value.webhooks);
}

/** The specification family of a document that `looksLikeOpenApi`; INVALID_OPENAPI for unsupported versions. */
export function detectSpecVersion(doc: Json): { specVersion: SpecVersion; declaredVersion: string } {
  const swagger = doc.swagger;
  if (swagger !== undefined) {
    if (String(swagger) === '2.0' || swagger === 2) return { specVersion: '2.0', declaredVersion: '2.0' };
    throw new AppError(
      ErrorCode.INVALID_OPENAPI,
      `Unsupported Swagger version "${String(swagger)}": only 2.0 is supported`,
      { location: '#/swagger' },
    );
  }
  const openapi = typeof doc.openapi === 'string' ? doc.openapi : String(doc.openapi);
  if (/^3\.0(\.\d+)?$/.test(openapi)) return { specVersion: '3.0', declaredVersion: openapi };
  if (/^3\.1(\.\d+)?$/.test(openapi)) return { specVersion: '3.1', declaredVersion: openapi };
  throw new AppError(
    ErrorCode.INVALID_OPENAPI,
    `Unsupported OpenAPI version "${openapi}": supported are Swagger 2.0, OpenAPI 3.0 and 3.1`,
    { location: '#/openapi' },
  );
}

/** Throws INVALID_OPENAPI unless the value is an OpenAPI/Swagger document. */
export function requireOpenApi(value: unknown, label?: string): Json {
  if (looksLikeOpenApi(value)) return value as Json;
  const what = label ? ` ${label}` : '';
  throw new AppError(
    ErrorCode.INVALID_OPENAPI,
    `The document${what} is not an OpenAPI or Swagger description: expected an object with "openapi" (3.x) or "swagger" (2.0) and "paths" (or "webhooks" in 3.1)`,
    { reason: 'not_openapi', location: '#/' },
  );
}
