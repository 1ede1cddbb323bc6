import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { AppError, ErrorCode } from './errors.js';

// The single place that reads process.env. Everything else receives a typed Config.

const bool = z
  .string()
  .trim()
  .toLowerCase()
  .transform((v, ctx) => {
    if (['1', 'true', 'yes', 'on'].includes(v)) return true;
    if (['0', 'false', 'no', 'off', ''].includes(v)) return false;
    ctx.addIssue({ code: 'custom', message: `expected a boolean (1/0, true/false), got "${v}"` });
    return z.NEVER;
  });

const int = (min: number, max = Number.MAX_SAFE_INTEGER) => z.coerce.number().int().min(min).max(max);
const optionalString = z
  .string()
  .trim()
  .optional()
  .transform((v) => (v === '' ? undefined : v));

const envSchema = z
  .object({
    NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
    CAIRN_HOST: z.string().trim().min(1).default('127.0.0.1'),
    CAIRN_PORT: int(0, 65535).default(4000),
    CAIRN_DATA_DIR: z.string().trim().min(1).default('./data'),
    CAIRN_DATABASE_URL: optionalString,
    CAIRN_DATABASE_POOL_SIZE: int(1, 200).default(10),
    CAIRN_DATABASE_PREPARED_STATEMENTS: bool.default(true),
    CAIRN_LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),

    CAIRN_EMBEDDING_PROVIDER: z.enum(['auto', 'openai', 'local', 'hashing']).default('auto'),
    CAIRN_EMBEDDING_MODEL: optionalString,
    CAIRN_EMBEDDING_DIMENSIONS: int(1, 16000).optional(),
    CAIRN_EMBEDDING_BASE_URL: optionalString,
    CAIRN_EMBEDDING_API_KEY: optionalString,
    CAIRN_EMBEDDING_BATCH_SIZE: int(1, 2048).default(64),
    CAIRN_EMBEDDING_CONCURRENCY: int(1, 64).default(2),
    CAIRN_EMBEDDING_TIMEOUT_MS: int(100).default(30000),
    CAIRN_EMBEDDING_MAX_RETRIES: int(0, 20).default(4),
    CAIRN_OFFLINE: bool.default(false),
    CAIRN_MODEL_CACHE_DIR: optionalString,

    CAIRN_CHUNK_SIZE: int(50, 100000).default(500),
    CAIRN_CHUNK_OVERLAP: int(0, 50000).default(50),

    CAIRN_RAG_TOP_K: int(1, 1000).default(3),
    CAIRN_RAG_MAX_TOP_K: int(1, 1000).default(50),
    CAIRN_RAG_MIN_SCORE_FLOOR: z.coerce.number().min(0).max(1).default(0),

    CAIRN_NEO4J_URI: optionalString,
    CAIRN_NEO4J_USER: z.string().trim().default('neo4j'),
    CAIRN_NEO4J_PASSWORD: optionalString,
    CAIRN_NEO4J_DATABASE: optionalString,

    CAIRN_SEARCH_MODE: z.enum(['VECTOR', 'KEYWORD', 'HYBRID']).optional(),
    CAIRN_SEARCH_FUSION: z.enum(['RRF', 'LINEAR']).optional(),
    CAIRN_SEARCH_VECTOR_WEIGHT: z.coerce.number().min(0).max(1).optional(),
    CAIRN_SEARCH_RRF_K: int(1, 10000).optional(),
    CAIRN_SEARCH_CANDIDATES: int(1, 1000).optional(),
    CAIRN_SEARCH_BM25_K1: z.coerce.number().min(0).max(10).optional(),
    CAIRN_SEARCH_BM25_B: z.coerce.number().min(0).max(1).optional(),
    CAIRN_SEARCH_KEYWORD_CANDIDATE_DF: z.coerce.number().min(0).max(1).optional(),
    CAIRN_VECTOR_MEMORY_INDEX_MAX_CHUNKS: int(0).default(300000),
    CAIRN_HNSW_EF_SEARCH: int(1, 1000).default(100),
    CAIRN_KG_MAX_ENTITIES_IN_CONTEXT: int(0, 100).default(5),
    CAIRN_ENRICH_MAX_CHARS: int(200, 1_000_000).default(6000),
    CAIRN_ENRICH_LANE_TIMEOUT_MS: int(10).default(2000),
    CAIRN_GAP_SCORE_THRESHOLD: z.coerce.number().min(0).max(1).default(0.2),

    CAIRN_EXPIRY_SWEEP_INTERVAL_MS: int(0).default(60000),
    CAIRN_MAX_DOCUMENT_CHARS: int(1).default(5_000_000),
    CAIRN_MAX_RESPONSE_TEXT_CHARS: int(1).default(20_000_000),
    CAIRN_MAX_BODY_BYTES: int(1024).default(20 * 1024 * 1024),

    CAIRN_IMPORT_ALLOW_PRIVATE_HOSTS: z.string().default(''),
    CAIRN_IMPORT_MAX_BYTES: int(1024).default(10 * 1024 * 1024),
    CAIRN_IMPORT_CONNECT_TIMEOUT_MS: int(10).default(5000),
    CAIRN_IMPORT_TIMEOUT_MS: int(10).default(30000),
    CAIRN_IMPORT_MAX_REDIRECTS: int(0, 5).default(5),
    CAIRN_IMPORT_USER_AGENT: z.string().trim().min(1).default('Cairn-Importer/0.1 (Cairn knowledge platform)'),
    CAIRN_IMPORT_PDF_MAX_PAGES: int(1, 100000).default(500),
    CAIRN_IMPORT_MAX_UNZIPPED_BYTES: int(1024).default(100 * 1024 * 1024),
    CAIRN_IMPORT_DEFER_VECTOR_INDEX: bool.default(true),
    CAIRN_UPLOAD_MAX_BYTES: int(1024).default(25 * 1024 * 1024),
    CAIRN_UPLOAD_TTL_MS: int(1000).default(24 * 60 * 60 * 1000),
    CAIRN_SOURCES_FOLDER_ROOT: z.string().trim().optional(),
    CAIRN_SOURCES_CACHE_DIR: z.string().trim().min(1).optional(),
    CAIRN_SOURCES_TICK_MS: int(0).default(30_000),

    CAIRN_AUTH: z.enum(['auto', 'required']).default('auto'),
    CAIRN_GRAPHQL_MAX_DEPTH: int(1, 1000).default(12),
    CAIRN_GRAPHQL_MAX_COST: int(1).default(20000),
    CAIRN_GRAPHQL_MAX_ALIASES: int(0, 100000).default(30),
    CAIRN_GRAPHQL_MAX_DIRECTIVES: int(0, 100000).default(30),
    CAIRN_GRAPHQL_MAX_TOKENS: int(1).default(5000),
    CAIRN_RATE_LIMIT_PER_SECOND: z.coerce.number().min(0).max(1_000_000).default(50),
    CAIRN_RATE_LIMIT_BURST: int(0, 1_000_000).default(100),
    CAIRN_RATE_LIMIT_FAILED_KEYS_PER_MINUTE: int(0, 1_000_000).default(60),
  })
  .superRefine((env, ctx) => {
    if (env.CAIRN_CHUNK_OVERLAP >= env.CAIRN_CHUNK_SIZE) {
      ctx.addIssue({
        code: 'custom',
        path: ['CAIRN_CHUNK_OVERLAP'],
        message: `must be smaller than CAIRN_CHUNK_SIZE (${env.CAIRN_CHUNK_SIZE})`,
      });
    }
    if (env.CAIRN_MAX_RESPONSE_TEXT_CHARS < env.CAIRN_MAX_DOCUMENT_CHARS) {
      ctx.addIssue({
        code: 'custom',
        path: ['CAIRN_MAX_RESPONSE_TEXT_CHARS'],
        message: `must be at least CAIRN_MAX_DOCUMENT_CHARS (${env.CAIRN_MAX_DOCUMENT_CHARS}), or the largest document could never be read`,
      });
    }
    if (env.CAIRN_RAG_TOP_K > env.CAIRN_RAG_MAX_TOP_K) {
      ctx.addIssue({
        code: 'custom',
        path: ['CAIRN_RAG_TOP_K'],
        message: `must not exceed CAIRN_RAG_MAX_TOP_K (${env.CAIRN_RAG_MAX_TOP_K})`,
      });
    }
  });

/** The data-folder value that keeps the embedded database in memory. */
export const MEMORY_DATA_DIR = 'memory://';

/** Embedding settings, resolved from `CAIRN_EMBEDDING_*`. */
export interface EmbeddingConfig {
  provider: 'auto' | 'openai' | 'local' | 'hashing';
  /** Model name or local folder; undefined means the provider's default. */
  model: string | undefined;
  dimensions: number | undefined;
  baseUrl: string | undefined;
  apiKey: string | undefined;
  batchSize: number;
  concurrency: number;
  timeoutMs: number;
  maxRetries: number;
  offline: boolean;
  cacheDir: string;
}

/** The validated, typed configuration of one Cairn process. */
export interface Config {
  env: 'development' | 'production' | 'test';
  host: string;
  port: number;
  dataDir: string;
  databaseUrl: string | undefined;
  databasePoolSize: number;
  /** Server only: prepare hot read statements by name on each connection (off behind poolers that cannot keep them). */
  databasePreparedStatements: boolean;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  embedding: EmbeddingConfig;
  chunking: { size: number; overlap: number };
  rag: { topK: number; maxTopK: number; minScoreFloor: number };
  /** Neo4j connection; undefined keeps the graph in Postgres. */
  neo4j: { uri: string; user: string; password: string; database: string | undefined } | undefined;
  /** Search defaults; unset fields keep the benchmark-chosen defaults (see SearchService). */
  search: {
    mode: 'VECTOR' | 'KEYWORD' | 'HYBRID' | undefined;
    fusion: 'RRF' | 'LINEAR' | undefined;
    vectorWeight: number | undefined;
    rrfK: number | undefined;
    candidates: number | undefined;
    bm25K1: number | undefined;
    bm25B: number | undefined;
    keywordCandidateDf: number | undefined;
  };
  /** PGlite only: most chunk embeddings the vector lane holds in memory to scan in JavaScript; 0 scans in SQL. */
  vectorMemoryIndexMaxChunks: number;
  /** pgvector's hnsw.ef_search on every server connection: candidates an HNSW search visits (recall against speed). */
  hnswEfSearch: number;
  enrich: { maxEntities: number; maxChars: number; laneTimeoutMs: number; gapScoreThreshold: number };
  expirySweepIntervalMs: number;
  maxDocumentChars: number;
  /** Characters of document and chunk text one GraphQL response may carry. */
  maxResponseTextChars: number;
  maxBodyBytes: number;
  /** Importer limits and the safe HTTP client's settings. */
  import: ImportConfig;
  /** Registered sources: where FOLDER sources may read, where git clones are kept, how often schedules are checked. */
  sources: SourcesConfig;
  /** `auto`: keys are required once one exists; `required`: always. */
  auth: { mode: 'auto' | 'required' };
  /** Static limits on each GraphQL operation (graphql-armor and the parser). */
  graphqlLimits: GraphqlLimits;
  /**
   * Token bucket per API key (per client IP without one); off when perSecond or burst is 0, which also turns off
   * `failedKeysPerMinute`: unknown, malformed or revoked keys one client address may send (refilled over a minute).
   */
  rateLimit: { perSecond: number; burst: number; failedKeysPerMinute: number };
}

/** Per-operation GraphQL limits, resolved from `CAIRN_GRAPHQL_MAX_*`. */
export interface GraphqlLimits {
  maxDepth: number;
  maxCost: number;
  maxAliases: number;
  maxDirectives: number;
  maxTokens: number;
}

/** Source settings, resolved from `CAIRN_SOURCES_*`. */
export interface SourcesConfig {
  /** FOLDER sources may only read under this folder; undefined turns them off. */
  folderRoot: string | undefined;
  /** Where git clones are kept between syncs. */
  cacheDir: string;
  /** How often due schedules are looked for; 0 turns the scheduler off. */
  tickMs: number;
}

/** Importer settings, resolved from `CAIRN_IMPORT_*` and `CAIRN_UPLOAD_*`. */
export interface ImportConfig {
  /** Host names or IP literals that may be fetched although they resolve to blocked addresses. */
  allowPrivateHosts: string[];
  maxBytes: number;
  connectTimeoutMs: number;
  timeoutMs: number;
  maxRedirects: number;
  userAgent: string;
  pdfMaxPages: number;
  /** Cap on the total uncompressed size of a docx (zip) archive. */
  maxUnzippedBytes: number;
  /** Whether a large import job may drop the HNSW index and rebuild it at the end (searches scan exactly meanwhile). */
  deferVectorIndex: boolean;
  uploadMaxBytes: number;
  /** How long an upload that was never imported is kept. */
  uploadTtlMs: number;
}

/** Parses and validates an environment (default: `process.env`); throws `CONFIG_INVALID` naming every bad variable. */
export function loadConfig(source: NodeJS.ProcessEnv = process.env): Config {
  const parsed = envSchema.safeParse(source);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.') || '(env)'}: ${i.message}`);
    throw new AppError(ErrorCode.CONFIG_INVALID, `Invalid configuration:\n  ${problems.join('\n  ')}`, { problems });
  }
  const e = parsed.data;
  // `memory://` keeps PGlite in memory (tests, throwaway runs).
  const dataDir = e.CAIRN_DATA_DIR === MEMORY_DATA_DIR ? MEMORY_DATA_DIR : path.resolve(e.CAIRN_DATA_DIR);
  return {
    env: e.NODE_ENV,
    host: e.CAIRN_HOST,
    port: e.CAIRN_PORT,
    dataDir,
    databaseUrl: e.CAIRN_DATABASE_URL,
    databasePoolSize: e.CAIRN_DATABASE_POOL_SIZE,
    databasePreparedStatements: e.CAIRN_DATABASE_PREPARED_STATEMENTS,
    logLevel: e.CAIRN_LOG_LEVEL,
    embedding: {
      provider: e.CAIRN_EMBEDDING_PROVIDER,
      model: e.CAIRN_EMBEDDING_MODEL,
      dimensions: e.CAIRN_EMBEDDING_DIMENSIONS,
      baseUrl: e.CAIRN_EMBEDDING_BASE_URL,
      apiKey: e.CAIRN_EMBEDDING_API_KEY ?? source.OPENAI_API_KEY,
      batchSize: e.CAIRN_EMBEDDING_BATCH_SIZE,
      concurrency: e.CAIRN_EMBEDDING_CONCURRENCY,
      timeoutMs: e.CAIRN_EMBEDDING_TIMEOUT_MS,
      maxRetries: e.CAIRN_EMBEDDING_MAX_RETRIES,
      offline: e.CAIRN_OFFLINE,
      cacheDir: e.CAIRN_MODEL_CACHE_DIR
        ? path.resolve(e.CAIRN_MODEL_CACHE_DIR)
        : path.resolve(dataDir === MEMORY_DATA_DIR ? './data' : dataDir, 'models'),
    },
    chunking: { size: e.CAIRN_CHUNK_SIZE, overlap: e.CAIRN_CHUNK_OVERLAP },
    rag: {
      topK: e.CAIRN_RAG_TOP_K,
      maxTopK: e.CAIRN_RAG_MAX_TOP_K,
      minScoreFloor: e.CAIRN_RAG_MIN_SCORE_FLOOR,
    },
    neo4j: e.CAIRN_NEO4J_URI
      ? { uri: e.CAIRN_NEO4J_URI, user: e.CAIRN_NEO4J_USER, password: e.CAIRN_NEO4J_PASSWORD ?? '', database: e.CAIRN_NEO4J_DATABASE }
      : undefined,
    search: {
      mode: e.CAIRN_SEARCH_MODE,
      fusion: e.CAIRN_SEARCH_FUSION,
      vectorWeight: e.CAIRN_SEARCH_VECTOR_WEIGHT,
      rrfK: e.CAIRN_SEARCH_RRF_K,
      candidates: e.CAIRN_SEARCH_CANDIDATES,
      bm25K1: e.CAIRN_SEARCH_BM25_K1,
      bm25B: e.CAIRN_SEARCH_BM25_B,
      keywordCandidateDf: e.CAIRN_SEARCH_KEYWORD_CANDIDATE_DF,
    },
    vectorMemoryIndexMaxChunks: e.CAIRN_VECTOR_MEMORY_INDEX_MAX_CHUNKS,
    hnswEfSearch: e.CAIRN_HNSW_EF_SEARCH,
    enrich: {
      maxEntities: e.CAIRN_KG_MAX_ENTITIES_IN_CONTEXT,
      maxChars: e.CAIRN_ENRICH_MAX_CHARS,
      laneTimeoutMs: e.CAIRN_ENRICH_LANE_TIMEOUT_MS,
      gapScoreThreshold: e.CAIRN_GAP_SCORE_THRESHOLD,
    },
    expirySweepIntervalMs: e.CAIRN_EXPIRY_SWEEP_INTERVAL_MS,
    maxDocumentChars: e.CAIRN_MAX_DOCUMENT_CHARS,
    maxResponseTextChars: e.CAIRN_MAX_RESPONSE_TEXT_CHARS,
    maxBodyBytes: e.CAIRN_MAX_BODY_BYTES,
    import: {
      allowPrivateHosts: e.CAIRN_IMPORT_ALLOW_PRIVATE_HOSTS.split(',')
        .map((h) => h.trim().toLowerCase())
        .filter((h) => h !== ''),
      maxBytes: e.CAIRN_IMPORT_MAX_BYTES,
      connectTimeoutMs: e.CAIRN_IMPORT_CONNECT_TIMEOUT_MS,
      timeoutMs: e.CAIRN_IMPORT_TIMEOUT_MS,
      maxRedirects: e.CAIRN_IMPORT_MAX_REDIRECTS,
      userAgent: e.CAIRN_IMPORT_USER_AGENT,
      pdfMaxPages: e.CAIRN_IMPORT_PDF_MAX_PAGES,
      maxUnzippedBytes: e.CAIRN_IMPORT_MAX_UNZIPPED_BYTES,
      deferVectorIndex: e.CAIRN_IMPORT_DEFER_VECTOR_INDEX,
      uploadMaxBytes: e.CAIRN_UPLOAD_MAX_BYTES,
      uploadTtlMs: e.CAIRN_UPLOAD_TTL_MS,
    },
    sources: {
      folderRoot: e.CAIRN_SOURCES_FOLDER_ROOT ? path.resolve(e.CAIRN_SOURCES_FOLDER_ROOT) : undefined,
      cacheDir: path.resolve(e.CAIRN_SOURCES_CACHE_DIR ?? (dataDir === MEMORY_DATA_DIR ? path.join(os.tmpdir(), 'cairn-sources') : path.join(dataDir, 'sources'))),
      tickMs: e.CAIRN_SOURCES_TICK_MS,
    },
    auth: { mode: e.CAIRN_AUTH },
    graphqlLimits: {
      maxDepth: e.CAIRN_GRAPHQL_MAX_DEPTH,
      maxCost: e.CAIRN_GRAPHQL_MAX_COST,
      maxAliases: e.CAIRN_GRAPHQL_MAX_ALIASES,
      maxDirectives: e.CAIRN_GRAPHQL_MAX_DIRECTIVES,
      maxTokens: e.CAIRN_GRAPHQL_MAX_TOKENS,
    },
    rateLimit: { perSecond: e.CAIRN_RATE_LIMIT_PER_SECOND, burst: e.CAIRN_RATE_LIMIT_BURST, failedKeysPerMinute: e.CAIRN_RATE_LIMIT_FAILED_KEYS_PER_MINUTE },
  };
}
