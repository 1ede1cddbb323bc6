import { parse as parseYaml } from 'yaml';
import type { JsonObject } from '../../src/shared/json.js';
import { MAX_JSON_DEPTH } from '../../src/importerPort.js';
import { sanitizeTag } from '../openapi/ids.js';
import { MAX_NESTING, cutDeepValue, deepYamlPoint, isStackOverflow, shortPath, yamlTopLevel } from './nesting.js';
import type { ExtractedFile } from './types.js';

const FRONT_MATTER = /^---[ \t]*\r?\n([\s\S]*?)\r?\n(?:---|\.\.\.)[ \t]*(?:\r?\n|$)/;
/** Front matter is small; a low alias cap stops "billion laughs" YAML. */
const YAML_OPTIONS = { maxAliasCount: 50 } as const;
/** Levels of objects and lists kept in `metadata.frontMatter`, whose top is already two levels below the document. */
const FRONT_MATTER_LEVELS = MAX_JSON_DEPTH - 2;

/**
 * Markdown is stored without its front matter, whose keys (layout, permalink …) would otherwise be searched as text:
 * its `title` names the document, its `tags` (or `keywords`) become tags, its `description` joins the metadata and the
 * rest is kept as `metadata.frontMatter`. Without front matter the title is the first `# ` heading.
 */
export function extractMarkdown(text: string): ExtractedFile {
  const warnings: string[] = [];
  const frontMatter = FRONT_MATTER.exec(text);
  let title: string | undefined;
  let body = text;
  const metadata: JsonObject = {};
  let tags: string[] | undefined;
  if (frontMatter) {
    const yaml = frontMatter[1] ?? '';
    const deep = deepYamlPoint(yaml, MAX_NESTING);
    try {
      // Too deep for yaml's recursive composer: only the top-level title, description and tags are read.
      const data: unknown = deep ? shallowFrontMatter(yaml) : parseYaml(yaml, YAML_OPTIONS);
      body = text.slice(frontMatter[0].length);
      if (isRecord(data)) {
        if (typeof data.title === 'string' && data.title.trim()) title = data.title.trim();
        if (typeof data.description === 'string' && data.description.trim())
          metadata.description = data.description.trim();
        tags = frontMatterTags(data.tags ?? data.keywords);
        // Stored JSON nests at most MAX_JSON_DEPTH levels counted from the document (metadata is level 1, frontMatter 2).
        const { value, cutAt } = cutDeepValue(data, FRONT_MATTER_LEVELS);
        const rest = JSON.parse(JSON.stringify(value)) as JsonObject; // JSON-safe: dates as ISO strings
        if (Object.keys(rest).length > 0) metadata.frontMatter = rest;
        if (deep)
          warnings.push(
            `front matter nests deeper than ${MAX_NESTING} levels (at ${shortPath(deep.path)}); only its top-level values (title, description, tags …) were read into the document and metadata.frontMatter`,
          );
        else if (cutAt)
          warnings.push(
            `front matter nesting deeper than ${FRONT_MATTER_LEVELS} levels was cut at ${shortPath(cutAt)} in metadata.frontMatter`,
          );
      }
    } catch (error) {
      const reason = isStackOverflow(error)
        ? 'it nests too deeply to read'
        : error instanceof Error
          ? error.message
          : String(error);
      warnings.push(`front matter is not valid YAML and was kept as text: ${reason}`);
    }
  }
  return {
    format: 'markdown',
    title: title ?? firstHeading(body, 1),
    content: body,
    metadata,
    ...(tags?.length ? { tags } : {}),
    warnings,
  };
}

/** The top-level scalars (and lists of scalars) of front matter too deep to compose, as the parsed value would have them. */
function shallowFrontMatter(yaml: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, entry] of yamlTopLevel(yaml)) {
    if (entry.kind === 'scalar') out[key] = entry.value;
    else if (entry.kind === 'seq' && entry.scalars) out[key] = entry.scalars;
  }
  return out;
}

/** Front matter tags as valid tags (`Getting Started` → `getting-started`): a list or a comma-separated string. */
function frontMatterTags(value: unknown): string[] | undefined {
  const raw = Array.isArray(value) ? value : typeof value === 'string' ? value.split(',') : [];
  const tags = raw
    .flatMap((t) => (typeof t === 'string' || typeof t === 'number' ? [sanitizeTag(String(t))] : []))
    .filter((t): t is string => t !== undefined);
  return tags.length > 0 ? [...new Set(tags)].slice(0, 50) : undefined;
}

/** Plain text is stored as is and has no title of its own. */
export function extractPlainText(text: string): ExtractedFile {
  return { format: 'text', title: undefined, content: text, metadata: {}, warnings: [] };
}

/** reStructuredText is stored as is; the title is the first underlined heading. */
export function extractRst(text: string): ExtractedFile {
  return {
    format: 'text',
    title: firstRstHeading(text),
    content: text,
    metadata: { sourceFormat: 'rst' },
    warnings: [],
  };
}

/** The first ATX heading (`# …`) up to `maxLevel` outside fenced code blocks. */
export function firstHeading(markdown: string, maxLevel: number): string | undefined {
  let fence: string | undefined;
  for (const line of markdown.split(/\r?\n/)) {
    const fenceMatch = /^ {0,3}(`{3,}|~{3,})/.exec(line);
    if (fenceMatch?.[1]) {
      const marker = fenceMatch[1];
      if (fence === undefined) fence = marker;
      else if (marker[0] === fence[0] && marker.length >= fence.length) fence = undefined;
      continue;
    }
    if (fence !== undefined) continue;
    const heading = /^ {0,3}(#{1,6})[ \t]+(.+?)(?:[ \t]+#+)?[ \t]*$/.exec(line);
    if (heading?.[1] && heading[2] && heading[1].length <= maxLevel) return heading[2].trim();
  }
  return undefined;
}

const RST_ADORNMENT = /^([=\-~^*#+])\1+[ \t]*$/;

/** The first section title of a reStructuredText document: a text line underlined (optionally overlined) at least as long. */
export function firstRstHeading(text: string): string | undefined {
  const lines = text.split(/\r?\n/);
  for (let i = 0; i + 1 < lines.length; i++) {
    const line = lines[i] ?? '';
    const under = lines[i + 1] ?? '';
    const candidate = line.trim();
    if (!candidate || RST_ADORNMENT.test(line) || line.startsWith('..')) continue;
    if (/^\s/.test(line) && !RST_ADORNMENT.test(lines[i - 1] ?? '')) continue; // indented text is a block, unless overlined
    if (RST_ADORNMENT.test(under) && under.trim().length >= candidate.length) return candidate;
  }
  return undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
