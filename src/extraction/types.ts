import type { JsonObject } from '../shared/json.js';

/** The extractors that build the graph from documents. */
export type ExtractorName = 'structural' | 'offline' | 'llm';

/**
 * How specific a candidate name is, which decides whether it becomes an entity and whether text naming it links to it:
 * - `page`: the thing a document is about (its title); the document is its home, whatever else names it;
 * - `name`: a proper name or a defined term (an acronym's expansion, a glossary entry);
 * - `identifier`: a code identifier (function, option, config key, CLI flag, hook, env variable, package);
 * - `term`: a key term from prose; an entity only once several documents name it (CAIRN_EXTRACTION_TERM_MIN_DOCUMENTS);
 * - `tag`: a front-matter tag or category.
 */
export type CandidateKind = 'page' | 'name' | 'identifier' | 'term' | 'tag';

/** A thing an extractor found in one chunk. */
export interface EntityCandidate {
  /** As written in the text (trimmed), e.g. "Hot Module Replacement", "server.port", "--force". */
  name: string;
  /** An entity type (ENTITY_TYPE_PATTERN: PascalCase), e.g. Concept, Person, ConfigOption, CliFlag. */
  type: string;
  /** Other names the text declares for it, e.g. the acronym of "Hot Module Replacement (HMR)". */
  aliases?: string[];
  /** A short description, when the extractor has one (the LLM, a glossary entry). */
  description?: string;
  kind: CandidateKind;
  /** A short quote (at most 200 characters) from the chunk that supports it. */
  quote: string;
  /** 0 to 1. */
  confidence: number;
}

/** A relationship an extractor found in one chunk, between two candidates of the same chunk (by name). */
export interface RelationshipCandidate {
  /** The `name` of an entity candidate of the same chunk extraction. */
  from: string;
  to: string;
  /** RELATIONSHIP_TYPE_PATTERN: UPPER_SNAKE, e.g. USES, DEFINES. */
  type: string;
  description?: string;
  quote: string;
  confidence: number;
  /**
   * A RELATED_TO of an extractor that does not read meaning (two names in one sentence) whose sentence links the two
   * by a verb or a preposition rather than lists them: one passage is enough support.
   */
  stated?: boolean;
}

/** A link found in a chunk (markdown or HTML), as written; the pipeline resolves it to a stored document. */
export interface LinkCandidate {
  /** The link target as written: relative ("./config.md#server-port", "../guide/"), root-relative or absolute. */
  href: string;
  /** The link text. */
  text: string;
}

/** What one extractor found in one chunk: the unit that is cached. */
export interface ChunkExtraction {
  entities: EntityCandidate[];
  relationships: RelationshipCandidate[];
  links: LinkCandidate[];
  /** Things a user should know (the model returned nothing, an answer was cut at max_tokens …). */
  warnings: string[];
  /** Tokens the model spent on this chunk (LLM only). */
  usage?: { promptTokens: number; completionTokens: number };
}

/** The document whose chunks are extracted (everything but the chunks). */
export interface DocumentForExtraction {
  id: string;
  title: string;
  documentType: string;
  /** Where it came from: a URL, a relative path (folder imports), a repository's web URL, or null. */
  source: string | null;
  tags: string[];
  metadata: JsonObject;
}

/** A chunk to extract. */
export interface ChunkForExtraction {
  id: string;
  ordinal: number;
  content: string;
}

/** Thrown by an extractor for a chunk it cannot extract (the model's answer stayed invalid): the chunk is failed. */
export class ChunkExtractionError extends Error {
  constructor(
    message: string,
    readonly chunkId: string,
  ) {
    super(message);
    this.name = 'ChunkExtractionError';
  }
}

/**
 * An extractor: turns chunks of one document into candidates. It must be deterministic for a given input and
 * `fingerprint` (the cache relies on it), and must not touch the database.
 */
export interface Extractor {
  readonly name: ExtractorName;
  /**
   * Everything besides the chunk text that changes the output: the extractor's version, its settings, the model and
   * the prompt version. Part of the cache key.
   */
  readonly fingerprint: string;
  /**
   * The part of the document (besides the chunk's text) that changes one chunk's output, e.g. the title for the
   * first chunk of the structural extractor; '' when the chunk text alone decides. Part of the cache key.
   */
  contextKey(document: DocumentForExtraction, chunk: ChunkForExtraction): string;
  /** One result per chunk, in the order given. */
  extract(
    document: DocumentForExtraction,
    chunks: readonly ChunkForExtraction[],
    signal?: AbortSignal,
  ): Promise<ChunkExtraction[]>;
}

/** Tokens an extraction job may still spend on the model (CAIRN_EXTRACTION_MAX_TOKENS_PER_JOB). */
export interface TokenBudget {
  /** Tokens left; undefined: no cap. */
  remaining(): number | undefined;
  /** Records tokens spent. */
  spend(tokens: number): void;
  /** True once the cap is reached: the job stops cleanly, keeping what it extracted. */
  exhausted(): boolean;
}

/** How one document is extracted now (the queue worker, or an extractGraph job). */
export interface ExtractOptions {
  /** The extractors to run; default: the configured ones. */
  extractors?: readonly ExtractorName[];
  budget?: TokenBudget;
  signal?: AbortSignal;
}

/** The outcome of extracting one document. */
export interface DocumentExtractionOutcome {
  documentId: string;
  status: 'DONE' | 'FAILED' | 'SKIPPED';
  /** Entities and relationships the document supports after this run. */
  entities: number;
  relationships: number;
  warnings: string[];
  error?: string;
  /** Model tokens spent (0 without the LLM or when every chunk came from the cache). */
  tokens: number;
  /** The budget ran out before every chunk was extracted; what was extracted is kept. */
  budgetExhausted: boolean;
}

/** Documents by extraction state, for knowledgeStats and `cairn stats`. */
export interface ExtractionStatusCounts {
  pending: number;
  running: number;
  done: number;
  failed: number;
}

/** What an LLM extraction would cost, before anything is sent (extractGraph's dryRun). */
export interface ExtractionEstimate {
  documents: number;
  chunks: number;
  /** Chunks whose answer is cached (they cost nothing). */
  cachedChunks: number;
  estimatedInputTokens: number;
  estimatedOutputTokens: number;
  /** USD, when prices per token are configured; otherwise null. */
  estimatedCostUsd: number | null;
}
