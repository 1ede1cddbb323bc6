/** Which family of the OpenAPI specification a document follows. */
export type SpecVersion = '2.0' | '3.0' | '3.1';

/** A JSON object from a parsed spec; every field is untrusted and checked where it is read. */
export type Json = Record<string, unknown>;

/** A validated OpenAPI/Swagger document, ready to be turned into a plan. */
export interface LoadedSpec {
  specVersion: SpecVersion;
  /** The version string as written in the document, e.g. `2.0`, `3.0.3`, `3.1.0`. */
  declaredVersion: string;
  /**
   * The validated document with external `$ref`s inlined and internal `$ref`s kept, so the plan can
   * tell which named schemas an operation uses. A tree: JSON-serialisable, no cycles.
   */
  document: Json;
  /** `info.title`. */
  title: string;
  /** `info.version`. */
  apiVersion: string;
  /** Where the spec was loaded from (final URL after redirects), or null for uploaded content. */
  sourceUrl: string | null;
  /** External documents fetched to resolve `$ref`s, in the order they were read. */
  fetchedRefs: string[];
  /** Bytes read in total: the spec plus every external document. */
  bytes: number;
  /** Problems that did not stop loading (copied into the plan's warnings). */
  warnings: string[];
}

/** True for a plain (non-array) object. */
export function isJson(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The value as an object, or undefined. */
export function asJson(value: unknown): Json | undefined {
  return isJson(value) ? value : undefined;
}

/** The value as a non-empty trimmed string, or undefined. */
export function asString(value: unknown): string | undefined {
  if (typeof value === 'string') return value.trim() === '' ? undefined : value.trim();
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return undefined;
}

/** The value as an array (empty when it is not one). */
export function asArray(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}
