import type { ChunkRecord, DocumentSummary } from '../documents/types.js';
import { bestExcerpt, queryWords } from './excerpt.js';
import { alignToSentences } from './sentences.js';
import type { EnrichedChunkRecord } from './types.js';

/**
 * How the documents lane fills the budget from chunks (see docs/enrichment.md, "What the context holds"):
 * 1. each selected hit (the first `topK` of the ranking that pass the relevance floor), as whole sentences;
 * 2. while budget is left, round r = 1..`neighbors`: the chunk r before and r after each selected hit, in rank order,
 *    joined to it without the chunks' overlap;
 * 3. while budget is left, the weaker hits after the first `topK`, in rank order, as whole sentences;
 * 4. in the budget left, weaker hits of documents not shown yet, in rank order, each as the run of its whole sentences
 *    that fits and holds the most query words (see bestExcerpt).
 * Each step is taken only if the whole section still fits its limit: `limit` for the selected hits' documents,
 * `othersLimit` for a weaker hit of a document no selected hit brought. Passages of one document join into one entry.
 */
export interface LayoutOptions {
  /** Chunks each side of a selected hit that may join it (0: no expansion). */
  neighbors: number;
  /** Characters the section may reach with the selected hits' documents, heading and citation lines included. */
  limit: number;
  /** Characters the section may reach with a weaker hit of another document (default `limit`; see layOutLane). */
  othersLimit?: number;
  /** The query: with it, the budget whole passages leave takes excerpts of the next weaker hits (see step 4). */
  query?: string;
}

/** The least room worth an excerpt (about a short sentence). */
const MIN_EXCERPT = 60;

const HEADING = '## Relevant knowledge\n';
const SEPARATOR = '\n…\n';

interface Span {
  lo: number;
  hi: number;
}

/** One document's part of the context while it is laid out. */
interface DocLayout {
  document: DocumentSummary;
  /** Known chunks by ordinal: the hits and the neighbours read with them. */
  chunks: Map<number, ChunkRecord>;
  /** Ordinal ranges that were read: an ordinal inside one with no chunk is past the document's end. */
  read: Span[];
  spans: Span[];
  records: EnrichedChunkRecord[];
  text: string;
}

/**
 * A chunk's own text cut to whole sentences, for a chunk read without its neighbours; '' when no part of it starts and
 * ends at a sentence or line edge (see alignToSentences).
 */
export function alignedChunkText(chunk: ChunkRecord): string {
  const span = alignToSentences(chunk.content, 0, chunk.content.length, {
    docStart: chunk.ordinal === 0,
    docEnd: false,
  });
  return span ? chunk.content.slice(span[0], span[1]).trim() : '';
}

/**
 * Lays out the documents lane: returns the records in context order, each document's first record carrying the
 * document's whole passage text (`text`) and the ordinals it shows (`shown`), its other records `text: ''`. Selected
 * hits that did not fit are returned with `text: null` (never cited); weaker hits that did not fit are left out.
 */
export function layOutDocuments(
  selected: readonly EnrichedChunkRecord[],
  weaker: readonly EnrichedChunkRecord[],
  options: LayoutOptions,
): EnrichedChunkRecord[] {
  const docs = new Map<string, DocLayout>();
  for (const r of [...selected, ...weaker]) learn(docs, r, options.neighbors);
  const order: DocLayout[] = [];
  const cost = () =>
    order.length === 0
      ? 0
      : HEADING.length +
        order.reduce((sum, d, i) => sum + `[${i + 1}] ${d.document.title}\n`.length + d.text.length + 2, 0);
  const leading = new Set(selected.map((r) => r.hit.document.id));
  /** Adds chunk `ordinal` of `doc` to the layout if the section still fits `limit`. */
  const tryAdd = (doc: DocLayout, ordinal: number, limit = options.limit): boolean => {
    if (covered(doc.spans, ordinal)) return true;
    if (!doc.chunks.has(ordinal)) return false;
    const saved = { spans: doc.spans, text: doc.text };
    const isNew = doc.spans.length === 0;
    const spans = addSpan(doc, ordinal);
    const text = render(doc, spans);
    // A passage with no edge to align to (see alignToSentences) is left out rather than shown as a fragment.
    if (text === null) return false;
    Object.assign(doc, { spans, text });
    if (isNew) order.push(doc);
    if (cost() <= limit) return true;
    Object.assign(doc, saved);
    if (isNew) order.pop();
    return false;
  };
  const placed = new Set<EnrichedChunkRecord>();
  const place = (r: EnrichedChunkRecord): void => {
    const doc = docs.get(r.hit.document.id) as DocLayout;
    const limit = leading.has(doc.document.id) ? options.limit : (options.othersLimit ?? options.limit);
    if (tryAdd(doc, r.hit.chunk.ordinal, limit)) {
      doc.records.push(r);
      placed.add(r);
    }
  };
  selected.forEach(place);
  for (let round = 1; round <= options.neighbors; round++) {
    for (const r of selected) {
      if (!placed.has(r)) continue;
      const doc = docs.get(r.hit.document.id) as DocLayout;
      const o = r.hit.chunk.ordinal;
      for (const target of [o + round, o - round]) {
        // Only a chunk that continues the passage around this hit (a gap would be a separate passage).
        if (covered(doc.spans, target + (target > o ? -1 : 1))) tryAdd(doc, target);
      }
    }
  }
  weaker.forEach(place);
  const words = queryWords(options.query ?? '');
  /** Step 4: an excerpt of `r`'s passage in the room left, for a document not shown yet. */
  const placeExcerpt = (r: EnrichedChunkRecord): void => {
    const doc = docs.get(r.hit.document.id) as DocLayout;
    if (doc.spans.length > 0 || doc.records.length > 0) return;
    const passage = renderSpan(doc, { lo: r.hit.chunk.ordinal, hi: r.hit.chunk.ordinal });
    order.push(doc);
    const room = (leading.has(doc.document.id) ? options.limit : (options.othersLimit ?? options.limit)) - cost();
    const text = passage && room >= MIN_EXCERPT ? bestExcerpt(passage, words, room) : null;
    if (text === null) return void order.pop();
    doc.text = text;
    doc.records.push(r);
    placed.add(r);
  };
  for (const r of weaker) if (!placed.has(r) && words.size > 0) placeExcerpt(r);
  return finish(order, selected, placed);
}

/** Records the hit's chunk and its neighbours in its document's layout. */
function learn(docs: Map<string, DocLayout>, r: EnrichedChunkRecord, neighbors: number): void {
  const id = r.hit.document.id;
  let doc = docs.get(id);
  if (!doc) {
    doc = { document: r.hit.document, chunks: new Map(), read: [], spans: [], records: [], text: '' };
    docs.set(id, doc);
  }
  const o = r.hit.chunk.ordinal;
  doc.chunks.set(o, r.hit.chunk);
  for (const n of r.hit.neighbors ?? []) doc.chunks.set(n.ordinal, n);
  if (r.hit.neighbors !== undefined && neighbors > 0) doc.read.push({ lo: o - neighbors, hi: o + neighbors });
}

function covered(spans: readonly Span[], ordinal: number): boolean {
  return spans.some((s) => s.lo <= ordinal && ordinal <= s.hi);
}

/** The spans with `ordinal` added, sorted, merging spans that touch (or are one known chunk apart). */
function addSpan(doc: DocLayout, ordinal: number): Span[] {
  const spans = [...doc.spans, { lo: ordinal, hi: ordinal }].sort((a, b) => a.lo - b.lo);
  const merged: Span[] = [];
  for (const s of spans) {
    const last = merged[merged.length - 1];
    const bridgeable = last && s.lo === last.hi + 2 && doc.chunks.has(last.hi + 1);
    if (last && (s.lo <= last.hi + 1 || bridgeable)) last.hi = Math.max(last.hi, s.hi);
    else merged.push({ ...s });
  }
  return merged;
}

/** Whether `ordinal` is known to be past the document's last chunk. */
function pastEnd(doc: DocLayout, ordinal: number): boolean {
  return !doc.chunks.has(ordinal) && doc.read.some((r) => r.lo <= ordinal && ordinal <= r.hi);
}

/** The document's passages, each cut to whole sentences, joined by an ellipsis line; null if one has no edges. */
function render(doc: DocLayout, spans: readonly Span[]): string | null {
  const texts = spans.map((s) => renderSpan(doc, s));
  if (texts.some((t) => t === null)) return null;
  return texts.filter((t) => t !== '').join(SEPARATOR);
}

/**
 * The text of chunks lo..hi without their overlaps, widened (or, where the text around is unknown, narrowed) to whole
 * sentences using the chunks just before and after when they were read; null when it has no edge to align to.
 */
function renderSpan(doc: DocLayout, span: Span): string | null {
  const prev = doc.chunks.get(span.lo - 1);
  const next = doc.chunks.get(span.hi + 1);
  const seq: ChunkRecord[] = [];
  for (let o = span.lo - (prev ? 1 : 0); o <= span.hi + (next ? 1 : 0); o++) {
    const c = doc.chunks.get(o);
    if (c) seq.push(c);
  }
  let text = '';
  let end = -1;
  let s = 0;
  let e = 0;
  for (const c of seq) {
    if (end < 0) text = c.content;
    else if (c.charStart <= end) text += c.content.slice(end - c.charStart);
    else text += `\n\n${c.content}`; // only white space lies between (the chunker's guarantee)
    end = c.charEnd;
    if (c.ordinal === span.lo) s = text.length - c.content.length;
    if (c.ordinal === span.hi) e = text.length;
  }
  const first = seq[0]?.ordinal ?? span.lo;
  const last = seq[seq.length - 1]?.ordinal ?? span.hi;
  const aligned = alignToSentences(text, s, e, { docStart: first === 0, docEnd: pastEnd(doc, last + 1) });
  return aligned ? text.slice(aligned[0], aligned[1]).trim() : null;
}

/** The records in context order: each laid-out document's records, then the selected hits that did not fit. */
function finish(
  order: readonly DocLayout[],
  selected: readonly EnrichedChunkRecord[],
  placed: ReadonlySet<EnrichedChunkRecord>,
): EnrichedChunkRecord[] {
  const out: EnrichedChunkRecord[] = [];
  for (const doc of order) {
    doc.records.forEach((r, i) => {
      r.text = i === 0 ? doc.text : '';
      // Set afresh: a record may have been laid out before (see layOutLane's second pass).
      if (i === 0) r.shown = doc.spans.map((s) => [s.lo, s.hi] as const);
      else delete r.shown;
      out.push(r);
    });
  }
  for (const r of selected) {
    if (placed.has(r)) continue;
    r.text = null;
    delete r.shown;
    out.push(r);
  }
  return out;
}
