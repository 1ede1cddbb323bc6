import type { EntityCandidate } from '../types.js';
import {
  CONTEXT_TYPES,
  classifyCode,
  classifyCommand,
  packageOfSpecifier,
  type CodeIdentifier,
} from './classifyCode.js';
import { configKeys } from './configKeys.js';
import { quoteAt, type CodeBlock, type CodeSpan, type ScannedChunk } from './markdown.js';

const CONTEXT_WORDS = Object.keys(CONTEXT_TYPES).join('|');
const CONTEXT_AFTER = new RegExp(`^\\s*(?:\\(\\))?\\s*(${CONTEXT_WORDS})(?:s|es)?\\b`, 'i');
const CONTEXT_BEFORE = new RegExp(`\\b(${CONTEXT_WORDS})\\s*$`, 'i');
const LIST_GAP = /^\s*(?:,\s*(?:and|or)?|and|or|\/)\s*$/;
const SHELL_LANGS = new Set(['sh', 'bash', 'shell', 'zsh', 'console', 'powershell', 'ps1', 'cmd', 'bat', 'fish']);
const ENV_LANGS = new Set(['env', 'dotenv', 'ini', 'properties']);

/** Collects candidates by name, keeping the most confident type. */
export class CandidateSet {
  private readonly byName = new Map<string, EntityCandidate>();

  add(candidate: EntityCandidate): void {
    const existing = this.byName.get(candidate.name);
    if (!existing || candidate.confidence > existing.confidence) this.byName.set(candidate.name, candidate);
  }

  has(name: string): boolean {
    return this.byName.has(name);
  }

  values(): EntityCandidate[] {
    return [...this.byName.values()];
  }
}

function identifierCandidate(id: CodeIdentifier, quote: string): EntityCandidate {
  return { name: id.name, type: id.type, kind: 'identifier', quote, confidence: id.confidence };
}

/** Code identifiers of a chunk: inline code, identifier headings and, from code blocks, only precise ones. */
export function extractIdentifiers(chunk: ScannedChunk, out: CandidateSet): void {
  const { text } = chunk;
  headingIdentifiers(chunk, out);
  for (const group of spanGroups(chunk)) {
    const contextType = groupContext(chunk.withoutBlocks, group);
    for (const span of group) {
      const quote = quoteAt(text, span.index, span.end - span.index);
      for (const id of classifyCode(span.code, contextType)) out.add(identifierCandidate(id, quote));
    }
  }
  const inline = new Set(chunk.spans.map((s) => s.code.replace(/\(.*\)$/, '')));
  for (const block of chunk.blocks) blockIdentifiers(text, block, inline, out);
}

/** Inline code spans that form one list ("the `a`, `b` and `c` hooks") share the word after the list. */
function spanGroups(chunk: ScannedChunk): CodeSpan[][] {
  const groups: CodeSpan[][] = [];
  let current: CodeSpan[] = [];
  for (const span of chunk.spans) {
    const previous = current[current.length - 1];
    if (previous && LIST_GAP.test(chunk.withoutBlocks.slice(previous.end, span.index))) current.push(span);
    else {
      if (current.length > 0) groups.push(current);
      current = [span];
    }
  }
  if (current.length > 0) groups.push(current);
  return groups;
}

function groupContext(text: string, group: CodeSpan[]): string | undefined {
  const first = group[0];
  const last = group[group.length - 1];
  if (!first || !last) return undefined;
  const after = CONTEXT_AFTER.exec(text.slice(last.end, last.end + 24));
  const before =
    group.length === 1 ? CONTEXT_BEFORE.exec(text.slice(Math.max(0, first.index - 12), first.index)) : null;
  const word = (after?.[1] ?? before?.[1])?.toLowerCase();
  return word ? CONTEXT_TYPES[word] : undefined;
}

const HEADING = /^(#{1,6})[ \t]+(.+?)[ \t]*#*[ \t]*$/gm;

/**
 * Headings that are an identifier (`## server.port`, "### `configureServer`"): their type comes from the parent
 * heading ("Vite Specific Hooks") or the fields under them (`**Kind:**` for hooks, `**Type:**` for options).
 */
function headingIdentifiers(chunk: ScannedChunk, out: CandidateSet): void {
  const parents: string[] = [];
  if (!chunk.withoutBlocks.includes('#')) return;
  for (const m of chunk.withoutBlocks.matchAll(HEADING)) {
    const level = (m[1] ?? '#').length;
    const heading = (m[2] ?? '')
      .replace(/\{#[^}]*\}\s*$/, '')
      .replace(/<[^>]+>/g, '')
      .trim();
    parents.length = Math.min(parents.length, level - 1);
    parents[level - 1] = heading;
    const code = /^`([^`]+)`$/.exec(heading)?.[1] ?? (/^[a-z_$@-][\w$.@/-]*$/.test(heading) ? heading : undefined);
    if (!code) continue;
    const end = m.index + m[0].length;
    const below = chunk.withoutBlocks.slice(end, end + 400);
    const contextType =
      headingContext(parents.slice(0, level - 1), below, code) ?? signatureType(chunk.text.slice(end, end + 400), code);
    const quote = quoteAt(chunk.text, m.index, m[0].length);
    for (const id of classifyCode(code, contextType)) {
      out.add(identifierCandidate({ ...id, confidence: Math.max(id.confidence, contextType ? 0.9 : 0) }, quote));
    }
  }
}

function headingContext(parents: string[], below: string, code: string): string | undefined {
  for (let i = parents.length - 1; i >= 0; i--) {
    const last = /(\w+?)(?:s|es)?\s*$/.exec(parents[i] ?? '')?.[1]?.toLowerCase();
    if (last && CONTEXT_TYPES[last]) return CONTEXT_TYPES[last];
  }
  if (/\*\*Kind:?\*\*/.test(below)) return 'Hook';
  if (/\*\*Type:?\*\*/.test(below) && /^[a-z][\w$.]*$/.test(code)) return 'ConfigOption';
  return undefined;
}

/** A heading followed by the identifier's signature ("**Type Signature:**", `function createServer(`) names a function. */
function signatureType(below: string, code: string): string | undefined {
  const name = code.replace(/\(.*\)$/, '');
  if (!/^[A-Za-z_$][\w$]*$/.test(name)) return undefined;
  const signature = new RegExp(`\\bfunction\\s+${name.replace(/\$/g, '\\$')}\\s*[(<]`);
  return signature.test(below) ? 'Function' : undefined;
}

const IMPORT = /(?:\bfrom\s*|\bimport\s*\(?\s*|\brequire\s*\(\s*)(['"])([^'"\n]+)\1|^\s*import\s+(['"])([^'"\n]+)\3/gm;
const ENV_REFERENCE = /\b(?:import\.meta\.env|process\.env)\.([A-Z_][A-Z0-9_]*)\b/g;

/** From a code block: imported packages, config keys, env variables and, in shell blocks, commands and flags. */
function blockIdentifiers(text: string, block: CodeBlock, inline: Set<string>, out: CandidateSet): void {
  const at = (offset: number, length: number) => quoteAt(text, block.start + offset, length);
  const lines = block.body.split('\n');
  const shell = SHELL_LANGS.has(block.lang) || (block.lang === '' && lines.some((l) => /^\s*\$\s/.test(l)));
  if (shell) {
    let offset = 0;
    for (const line of lines) {
      const command = line.trim().replace(/^\$\s+/, '');
      if (!command.startsWith('#'))
        for (const id of classifyCommand(command)) out.add(identifierCandidate(id, at(offset, line.length)));
      offset += line.length + 1;
    }
    return;
  }
  if (ENV_LANGS.has(block.lang) || (block.lang === '' && /^[A-Z][A-Z0-9_]*=/m.test(block.body))) {
    for (const m of block.body.matchAll(/^([A-Z][A-Z0-9]*_[A-Z0-9_]+)=/gm)) {
      out.add(
        identifierCandidate({ name: m[1] ?? '', type: 'EnvVariable', confidence: 0.9 }, at(m.index, m[0].length)),
      );
    }
    return;
  }
  const imports = /\b(?:import|from|require)\b/.test(block.body);
  for (const m of imports ? block.body.matchAll(IMPORT) : []) {
    const name = packageOfSpecifier(m[2] ?? m[4] ?? '');
    if (name) out.add(identifierCandidate({ name, type: 'Package', confidence: 0.9 }, at(m.index, m[0].length)));
  }
  for (const m of block.body.includes('.env.') ? block.body.matchAll(ENV_REFERENCE) : []) {
    const name = m[1] ?? '';
    if (name.length >= 3)
      out.add(identifierCandidate({ name, type: 'EnvVariable', confidence: 0.9 }, at(m.index, m[0].length)));
  }
  for (const key of configKeys(block.body)) {
    if (key.path.includes('.') || inline.has(key.path)) {
      out.add(
        identifierCandidate({ name: key.path, type: 'ConfigOption', confidence: 0.85 }, at(key.offset, key.length)),
      );
    }
  }
}
