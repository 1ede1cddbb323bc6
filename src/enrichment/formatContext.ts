import type { EntityRecord, RelationshipRecord } from '../graph/types.js';
import type { CitationRecord, EnrichedChunkRecord, EnrichedEntityRecord } from './types.js';

/** What fitted in the budget. */
export interface FormattedContext {
  context: string;
  citations: CitationRecord[];
  omittedChunks: number;
  omittedEntities: number;
}

/** A document URL: the `url` metadata field, else a source that is itself a URL. */
export function documentUrl(metadata: Record<string, unknown>, source: string | null): string | null {
  const candidates = [metadata.url, metadata.finalUrl, source];
  for (const c of candidates) if (typeof c === 'string' && /^https?:\/\//i.test(c)) return c;
  return null;
}

/**
 * Formats a system-prompt section within `maxChars`: "Relevant knowledge" with numbered citations, then
 * "Related entities" with `A -[TYPE]-> B` lines. Whole items are dropped rather than cut mid-sentence; one
 * citation number per document.
 */
export function formatContext(
  chunks: EnrichedChunkRecord[],
  entities: readonly EnrichedEntityRecord[],
  relationships: readonly RelationshipRecord[],
  maxChars: number,
): FormattedContext {
  const citations: CitationRecord[] = [];
  const numberOf = new Map<string, number>();
  const parts: string[] = [];
  let used = 0;
  const fits = (text: string) => used + text.length <= maxChars;
  const push = (text: string) => {
    parts.push(text);
    used += text.length;
  };

  let omittedChunks = 0;
  const header = '## Relevant knowledge\n';
  if (chunks.length > 0 && fits(header)) push(header);
  for (const c of chunks) {
    const doc = c.hit.document;
    const n = numberOf.get(doc.id) ?? citations.length + 1;
    const block = `[${n}] ${doc.title}\n${c.hit.chunk.content.trim()}\n\n`;
    if (!parts.includes(header) || !fits(block)) {
      omittedChunks++;
      continue;
    }
    push(block);
    c.citation = n;
    if (!numberOf.has(doc.id)) {
      numberOf.set(doc.id, n);
      citations.push({ number: n, documentId: doc.id, title: doc.title, source: doc.source, url: documentUrl(doc.metadata, doc.source) });
    }
  }

  let omittedEntities = 0;
  const byId = new Map<string, EntityRecord>(entities.map((e) => [e.entity.id, e.entity]));
  const lines = [
    ...entities.map((e) => `- ${e.entity.name} (${e.entity.type})${e.entity.description ? `: ${oneLine(e.entity.description)}` : ''}\n`),
    ...relationships
      .filter((r) => byId.has(r.fromId) && byId.has(r.toId))
      .map((r) => `- ${byId.get(r.fromId)?.name} -[${r.type}]-> ${byId.get(r.toId)?.name}\n`),
  ];
  const entityHeader = '## Related entities\n';
  if (lines.length > 0 && fits(entityHeader)) push(entityHeader);
  for (const line of lines) {
    if (!parts.includes(entityHeader) || !fits(line)) {
      omittedEntities++;
      continue;
    }
    push(line);
  }
  return { context: parts.join('').trimEnd(), citations, omittedChunks, omittedEntities };
}

function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 200 ? `${flat.slice(0, 197)}...` : flat;
}
