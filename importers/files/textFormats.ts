import { parse as parseYaml } from 'yaml';
import type { ExtractedFile } from './types.js';

const FRONT_MATTER = /^---[ \t]*\r?\n([\s\S]*?)\r?\n(?:---|\.\.\.)[ \t]*(?:\r?\n|$)/;
/** Front matter is small; a low alias cap stops "billion laughs" YAML. */
const YAML_OPTIONS = { maxAliasCount: 50 } as const;

/** Markdown is stored as is; the title comes from front matter `title:` or the first `# ` heading. */
export function extractMarkdown(text: string): ExtractedFile {
  const warnings: string[] = [];
  const frontMatter = FRONT_MATTER.exec(text);
  let title: string | undefined;
  let body = text;
  if (frontMatter) {
    body = text.slice(frontMatter[0].length);
    try {
      const data: unknown = parseYaml(frontMatter[1] ?? '', YAML_OPTIONS);
      if (isRecord(data) && typeof data.title === 'string' && data.title.trim()) title = data.title.trim();
    } catch (error) {
      warnings.push(`front matter is not valid YAML and was ignored: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  return { format: 'markdown', title: title ?? firstHeading(body, 1), content: text, metadata: {}, warnings };
}

/** Plain text is stored as is and has no title of its own. */
export function extractPlainText(text: string): ExtractedFile {
  return { format: 'text', title: undefined, content: text, metadata: {}, warnings: [] };
}

/** reStructuredText is stored as is; the title is the first underlined heading. */
export function extractRst(text: string): ExtractedFile {
  return { format: 'text', title: firstRstHeading(text), content: text, metadata: { sourceFormat: 'rst' }, warnings: [] };
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
