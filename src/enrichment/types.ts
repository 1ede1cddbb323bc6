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
}

/** A chunk in the context, with the reason it is there. */
export interface EnrichedChunkRecord {
  hit: SearchHitRecord;
  why: string;
  /** Citation number in `context`, or null when the budget cut it. */
  citation: number | null;
}

/** An entity in the context, with the reason it is there. */
export interface EnrichedEntityRecord {
  entity: EntityRecord;
  why: string;
  /** 0 for entities named by the query or the chunks, else hops from a seed. */
  depth: number;
}

/** A numbered source of the context. */
export interface CitationRecord {
  number: number;
  documentId: string;
  title: string;
  source: string | null;
  url: string | null;
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
