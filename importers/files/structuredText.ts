import { parse as parseYaml } from 'yaml';
import { errorMessage } from './fileErrors.js';
import { MAX_NESTING, deepYamlPoint, isStackOverflow, shortPath, yamlTopLevel, type DeepPoint } from './nesting.js';
import type { ExtractedFile } from './types.js';

/** Real specs use a few anchors; a low cap stops alias-expansion bombs. */
const YAML_OPTIONS = { maxAliasCount: 100 } as const;

/**
 * JSON and YAML: an OpenAPI/Swagger document is passed through as 'openapi' (the caller routes it to the
 * OpenAPI importer); anything else is stored as text in a fenced code block.
 */
export function extractStructured(text: string, language: 'json' | 'yaml'): ExtractedFile {
  // JSON.parse does not recurse per level, but yaml's composer does: deeper YAML is only looked at from the top.
  const deep = language === 'yaml' ? deepYamlPoint(text, MAX_NESTING) : undefined;
  if (deep) return deepYaml(text, deep);
  let value: unknown;
  let parseError: string | undefined;
  try {
    value = language === 'json' ? JSON.parse(text) : parseYaml(text, YAML_OPTIONS);
  } catch (error) {
    // Aliases can build a value deeper than the text nests; their count is capped, but never show a stack overflow.
    parseError = isStackOverflow(error) ? 'it nests too deeply to read' : errorMessage(error);
  }
  if (parseError === undefined && isOpenApiLike(value)) {
    const info = isRecord(value.info) ? value.info : {};
    const title = typeof info.title === 'string' && info.title.trim() ? info.title.trim() : undefined;
    const specVersion = typeof value.openapi === 'string' ? value.openapi : String(value.swagger);
    return { format: 'openapi', title, content: text, metadata: { specVersion, sourceFormat: language }, warnings: [] };
  }
  const warnings =
    parseError === undefined ? [] : [`is not valid ${language.toUpperCase()} (${parseError}); stored as text`];
  return {
    format: 'text',
    title: undefined,
    content: fenced(text, language),
    metadata: { sourceFormat: language },
    warnings,
  };
}

/**
 * YAML nested deeper than MAX_NESTING: its text is imported whole, as any non-spec YAML is, with a warning saying
 * where it is too deep. A document whose top level is a spec's still goes to the OpenAPI importer, which reads specs
 * up to its own depth limit and says where a deeper one fails.
 */
function deepYaml(text: string, deep: DeepPoint): ExtractedFile {
  const top = yamlTopLevel(text);
  const version = top.get('openapi') ?? top.get('swagger');
  const hasPaths = top.get('paths')?.kind === 'map' || top.get('webhooks')?.kind === 'map';
  if (version?.kind === 'scalar' && hasPaths) {
    return {
      format: 'openapi',
      title: undefined,
      content: text,
      metadata: { specVersion: version.value, sourceFormat: 'yaml' },
      warnings: [],
    };
  }
  const warning =
    `nests deeper than ${MAX_NESTING} levels (at ${shortPath(deep.path)}, line ${deep.line}), deeper than Cairn reads YAML structure; ` +
    'its text was imported whole, as YAML that is not an OpenAPI spec always is';
  return {
    format: 'text',
    title: undefined,
    content: fenced(text, 'yaml'),
    metadata: { sourceFormat: 'yaml' },
    warnings: [warning],
  };
}

/** A light check, independent of the OpenAPI importer: an `openapi`/`swagger` version key plus `paths` or `webhooks`. */
export function isOpenApiLike(value: unknown): value is Record<string, unknown> {
  if (!isRecord(value)) return false;
  const versioned =
    typeof value.openapi === 'string' || typeof value.swagger === 'string' || typeof value.swagger === 'number';
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
