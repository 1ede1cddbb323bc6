import type { DocumentFilterSpec, DocumentSummary } from '../documents/types.js';
import type { EntityRecord, RelationshipRecord } from '../graph/types.js';
import type { SearchHitRecord } from '../retrieval/types.js';

/** A validated enrichContext request. */
export interface EnrichRequest {
  query: string;
  topK: number;
  maxEntities: number;
  graphDepth: number;
  maxChars: number;
  filter: DocumentFilterSpec;
  /** Passed through to search (VECTOR, KEYWORD or HYBRID); undefined means search's default. */
  mode: string | undefined;
  /** Passed through to search, which validates it and applies the configured floor; undefined means 0. */
  minScore?: number | undefined;
  /**
   * Share of `maxChars` held for graph evidence when the graph lane has any (0..1; 0 turns graph evidence off). What one
   * lane leaves unused goes to the other. See `layOutLane`.
   */
  graphShare: number;
  /**
   * Chunks on each side of a selected hit that may join it in the context while budget is left (0 turns the expansion
   * off: each chunk is then cut to its whole sentences); undefined means CAIRN_ENRICH_EXPAND_NEIGHBORS. See
   * `layOutDocuments`.
   */
  expandNeighbors?: number | undefined;
}

/** Which lane brought a chunk. */
export type EnrichLane = 'DOCUMENTS' | 'GRAPH';

/** A chunk in the context, with the reason it is there. */
export interface EnrichedChunkRecord {
  hit: SearchHitRecord;
  lane: EnrichLane;
  why: string;
  /**
   * For graph evidence that came through a chunk of the documents lane: that chunk and its rank, so `why` can cite it
   * once citation numbers are known ("{cite}" in `why` stands for it).
   */
  via?: { chunk: EnrichedChunkRecord; rank: number };
  /** Citation number in `context`, or null when the budget cut it. */
  citation: number | null;
  /**
   * Documents lane, once laid out (see `layOutDocuments`): the document's passage text on its first record (whole
   * sentences, with neighbouring chunks), '' on its other records, null on selected hits the budget left out.
   */
  text?: string | null;
  /** On a document's first record: the chunk ordinals (first, last) its passages show. */
  shown?: readonly (readonly [number, number])[];
}

/** An entity in the context, with the reason it is there. */
export interface EnrichedEntityRecord {
  entity: EntityRecord;
  why: string;
  /** 0 for entities named by the query or the chunks, else hops from a seed. */
  depth: number;
  /** The graph lane's rank score (personalised PageRank) relative to the best entity: 1 for the first, 0 to 1. */
  score: number;
  /** Its space, when the request reads spaces besides its own (see withEntitySpaces). */
  space?: string;
}

/** A numbered source of the context. */
export interface CitationRecord {
  number: number;
  documentId: string;
  title: string;
  source: string | null;
  url: string | null;
  /** The space of the cited document: the request's own, or one it reads (see widenReads). */
  space: string;
}

/** The enricher's answer. */
export interface EnrichedContextRecord {
  chunks: EnrichedChunkRecord[];
  entities: EnrichedEntityRecord[];
  relationships: RelationshipRecord[];
  documents: DocumentSummary[];
  context: string;
  citations: CitationRecord[];
  truncated: boolean;
  omittedChunks: number;
  omittedEntities: number;
  timings: { retrievalMs: number; graphMs: number; totalMs: number };
  warnings: string[];
}
