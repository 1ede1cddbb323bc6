import type { EntityRecord, RelationshipRecord } from '../graph/types.js';
import { writeSpace } from '../db/spaceScope.js';
import { alignedChunkText } from './expandContext.js';
import type { CitationRecord, EnrichedChunkRecord, EnrichedEntityRecord } from './types.js';

/** What fitted in the budget. */
export interface FormattedContext {
  context: string;
  citations: CitationRecord[];
  omittedChunks: number;
  omittedEntities: number;
  /** Relationship lines the budget left out (they explain entities, so they are not counted as entities). */
  omittedRelationships: number;
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
 * citation number per document. A section's heading appears only with at least one of its items, so an agent never
 * reads an empty "Relevant knowledge".
 *
 * The chunks come laid out (see layOutLane, which holds the lanes' budget rule) and are cited in the given order while
 * they fit: the selected hits' documents, graph evidence, then weaker hits of other documents. Those were laid out
 * before graph evidence was given any room, so graph evidence leaves them the room they need.
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
  /** Characters kept for laid-out passages that come later (only while graph evidence is cited). */
  let held = 0;
  const fits = (text: string) => used + text.length + held <= maxChars;
  const push = (text: string) => {
    parts.push(text);
    used += text.length;
  };

  /** Pushes `text` under `heading` if both fit (the heading only before the section's first item). */
  const section = (heading: string) => {
    let started = false;
    return (text: string): boolean => {
      if (!fits(started ? text : heading + text)) return false;
      if (!started) push(heading);
      started = true;
      push(text);
      return true;
    };
  };

  let omittedChunks = 0;
  const knowledge = section('## Relevant knowledge\n');
  // One entry per document: a later chunk of a cited document joins its entry (seamlessly when it continues the last
  // chunk shown, else after an ellipsis line), so one manual does not appear as several sections with one heading.
  const entries = new Map<string, { part: number; last: EnrichedChunkRecord }>();
  /** Cites `c` with its passage (after `lead`); '' (no sentence or line edge to align to) is left out, never a fragment. */
  const cite = (c: EnrichedChunkRecord, passage: string, lead = ''): void => {
    if (passage === '') return void omittedChunks++;
    const text = lead + passage;
    const doc = c.hit.document;
    const entry = entries.get(doc.id);
    if (entry) {
      const joined = continuation(entry.last, c, text);
      if (!fits(joined)) return void omittedChunks++;
      parts[entry.part] = `${(parts[entry.part] as string).slice(0, -2)}${joined}\n\n`;
      used += joined.length;
      entry.last = c;
      c.citation = numberOf.get(doc.id) ?? null;
      return;
    }
    const n = citations.length + 1;
    if (!knowledge(`[${n}] ${doc.title}${otherSpaceMark(doc)}\n${text}\n\n`)) {
      omittedChunks++;
      return;
    }
    entries.set(doc.id, { part: parts.length - 1, last: c });
    c.citation = n;
    numberOf.set(doc.id, n);
    citations.push(citationOf(n, doc));
  };
  const shownByDoc = new Map(chunks.flatMap((c) => (c.shown ? [[c.hit.document.id, c.shown] as const] : [])));
  const inLaterPassage = laterPassage(chunks);
  const shownLater: EnrichedChunkRecord[] = [];
  const later = passagesAfter(chunks);
  const firstDocument = chunks.findIndex((c) => c.lane === 'DOCUMENTS');
  // In the given order (the enricher puts the documents lane first, save the documents of entities the query names).
  chunks.forEach((c, i) => {
    if (c.lane === 'DOCUMENTS') {
      // A chunk that scored 0 matched nothing of the query: it stays in `chunks` but is never cited.
      if (c.hit.score <= 0) return;
      // Laid out (see layOutDocuments): '' marks a chunk shown in its document's passage, null one left out.
      if (c.text === null) omittedChunks++;
      else if (c.text === '') omittedChunks += shownIn(c, numberOf, shownByDoc.get(c.hit.document.id)) ? 0 : 1;
      else cite(c, c.text ?? alignedChunkText(c.hit.chunk));
    } else {
      const via = c.via?.chunk.citation;
      c.why = c.why.replace('{cite}', via ? `[${via}]` : `chunk ${c.via?.rank ?? 1}`);
      // Evidence a passage shows (before or after it) is cited there, not repeated. Evidence a promoted named home
      // brought before the documents lane leads; other evidence leaves the passages after it their room.
      if (shownIn(c, numberOf, shownByDoc.get(c.hit.document.id))) return;
      if (inLaterPassage(c, i)) return void shownLater.push(c);
      held = firstDocument >= 0 && firstDocument < i ? (later[i] ?? 0) : 0;
      cite(c, alignedChunkText(c.hit.chunk), `(${c.why})\n`);
      held = 0;
    }
  });
  for (const c of shownLater) if (!shownIn(c, numberOf, shownByDoc.get(c.hit.document.id))) omittedChunks++;
  const related = section('## Related entities\n');
  const { omittedEntities, omittedRelationships } = listRelated(related, entities, relationships);
  return { context: parts.join('').trimEnd(), citations, omittedChunks, omittedEntities, omittedRelationships };
}

/** For each position, the characters the laid-out documents-lane passages after it need (a citation line each). */
function passagesAfter(chunks: readonly EnrichedChunkRecord[]): number[] {
  const after: number[] = new Array<number>(chunks.length).fill(0);
  for (let i = chunks.length - 2; i >= 0; i--) {
    const next = chunks[i + 1] as EnrichedChunkRecord;
    const own = next.lane === 'DOCUMENTS' && next.hit.score > 0 && next.text ? next.text.length : 0;
    // "[nn] title\n" and the blank line after the passage.
    after[i] = (after[i + 1] ?? 0) + (own > 0 ? own + next.hit.document.title.length + 8 : 0);
  }
  return after;
}

/** Lists the entities, then the relationships among them, through `related` (false once the budget is spent). */
function listRelated(
  related: (text: string) => boolean,
  entities: readonly EnrichedEntityRecord[],
  relationships: readonly RelationshipRecord[],
): { omittedEntities: number; omittedRelationships: number } {
  const byId = new Map<string, EntityRecord>(entities.map((e) => [e.entity.id, e.entity]));
  const omittedEntities = entities.filter((e) => !related(entityLine(e.entity, e.space))).length;
  const shown = relationships.filter((r) => byId.has(r.fromId) && byId.has(r.toId));
  const omittedRelationships = shown.filter((r) => !related(relationshipLine(r, byId))).length;
  return { omittedEntities, omittedRelationships };
}

function citationOf(n: number, doc: EnrichedChunkRecord['hit']['document']): CitationRecord {
  return {
    number: n,
    documentId: doc.id,
    title: doc.title,
    source: doc.source,
    url: documentUrl(doc.metadata, doc.source),
    space: doc.space ?? writeSpace(),
  };
}

/** ` (space: <id>)` for a document of a space the request only reads (see widenReads), else ''. */
function otherSpaceMark(doc: EnrichedChunkRecord['hit']['document']): string {
  return doc.space !== undefined && doc.space !== writeSpace() ? ` (space: ${doc.space})` : '';
}

/** An entity's line; one of a space the request only reads is marked with it. */
function entityLine(entity: EntityRecord, space?: string): string {
  const description = entity.description ? `: ${oneLine(entity.description)}` : '';
  const where = space !== undefined && space !== writeSpace() ? `, space: ${space}` : '';
  return `- ${entity.name} (${entity.type}${where})${description}\n`;
}

function relationshipLine(r: RelationshipRecord, byId: ReadonlyMap<string, EntityRecord>): string {
  return `- ${byId.get(r.fromId)?.name} -[${r.type}]-> ${byId.get(r.toId)?.name}\n`;
}

/**
 * Gives `c` its document's citation when its chunk is already in the context (its ordinal among those the cited
 * document's passages show); false when it is not there.
 */
function shownIn(
  c: EnrichedChunkRecord,
  numberOf: ReadonlyMap<string, number>,
  shown: readonly (readonly [number, number])[] | undefined,
): boolean {
  const n = numberOf.get(c.hit.document.id);
  if (n === undefined || !covers(shown, c.hit.chunk.ordinal)) return false;
  c.citation = n;
  return true;
}

/** Whether graph evidence at position `i` is inside a documents-lane passage laid out after it. */
function laterPassage(chunks: readonly EnrichedChunkRecord[]): (c: EnrichedChunkRecord, i: number) => boolean {
  const at = new Map(chunks.flatMap((d, j) => (d.shown ? [[d.hit.document.id, j] as const] : [])));
  return (c, i) => {
    const j = at.get(c.hit.document.id);
    return j !== undefined && j > i && covers(chunks[j]?.shown, c.hit.chunk.ordinal);
  };
}

/** Whether the passages shown (ordinal ranges) hold chunk `ordinal`. */
function covers(shown: readonly (readonly [number, number])[] | undefined, ordinal: number): boolean {
  return shown?.some(([lo, hi]) => lo <= ordinal && ordinal <= hi) ?? false;
}

/** The text that appends chunk `next` to an entry ending with chunk `last` of the same document. */
function continuation(last: EnrichedChunkRecord, next: EnrichedChunkRecord, text: string): string {
  const a = last.hit.chunk;
  const b = next.hit.chunk;
  if (b.ordinal === a.ordinal + 1 && b.charStart < a.charEnd && b.charStart >= a.charStart) {
    // Adjacent chunks overlap: show only what the next one adds.
    const fresh = b.content.slice(a.charEnd - b.charStart).trim();
    return fresh ? ` ${fresh}` : '';
  }
  return `\n…\n${text}`;
}

function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 200 ? `${flat.slice(0, 197)}...` : flat;
}
