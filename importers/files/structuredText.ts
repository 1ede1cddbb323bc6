import { parse as parseYaml } from 'yaml';
import { errorMessage } from './fileErrors.js';
import type { ExtractedFile } from './types.js';

/** Real specs use a few anchors; a low cap stops alias-expansion bombs. */
const YAML_OPTIONS = { maxAliasCount: 100 } as const;

/**
 * JSON and YAML: an OpenAPI/Swagger document is passed through as 'openapi' (the caller routes it to the
 * OpenAPI importer); anything else is stored as text in a fenced code block.
 */
export function extractStructured(text: string, language: 'json' | 'yaml'): ExtractedFile {
  let value: unknown;
  let parseError: string | undefined;
  try {
    value = language === 'json' ? JSON.parse(text) : parseYaml(text, YAML_OPTIONS);
  } catch (error) {
    parseError = errorMessage(error);
  }
  if (parseError === undefined && isOpenApiLike(value)) {
    const info = isRecord(value.info) ? value.info : {};
    const title = typeof info.title === 'string' && info.title.trim() ? info.title.trim() : undefined;
    const specVersion = typeof value.openapi === 'string' ? value.openapi : String(value.swagger);
    return { format: 'openapi', title, content: text, metadata: { specVersion, sourceFormat: language }, warnings: [] };
  }
  const warnings = parseError === undefined ? [] : [`is not valid ${language.toUpperCase()} (${parseError}); stored as text`];
  return { format: 'text', title: undefined, content: fenced(text, language), metadata: { sourceFormat: language }, warnings };
}

/** A light check, independent of the OpenAPI importer: an `openapi`/`swagger` version key plus `paths` or `webhooks`. */
export function isOpenApiLike(value: unknown): value is Record<string, unknown> {
  if (!isRecord(value)) return false;
  const versioned = typeof value.openapi === 'string' || typeof value.swagger === 'string' || typeof value.swagger === 'number';
  return versioned && (isRecord(value.paths) || isRecord(value.webhooks));
}

/** Wraps text in a code fence longer than any backtick run inside it, so the block cannot be closed early. */
export function fenced(text: string, language: string): string {
  let longestRun = 0;
  for (const match of text.matchAll(/`+/g)) longestRun = Math.max(longestRun, match[0].length);
  const fence = '`'.repeat(Math.max(3, longestRun + 1));
  return `${fence}${language}\n${text.replace(/\s+$/, '')}\n${fence}\n`;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
