import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import util from 'node:util';
import type { z } from 'zod';
import { AppError, ErrorCode } from './errors.js';
import { envSchema, parseExtractorList, withSettingAliases, type Env } from './configSchema.js';

// The single place that reads process.env. Everything else receives a typed Config, whose type follows from the
// settings in configSchema.ts and the shape below.

/** The data-folder value that keeps the embedded database in memory. */
export const MEMORY_DATA_DIR = 'memory://';

/** Embedding settings; the model cache sits in the data folder unless set. */
function embeddingConfig(e: Env, dataDir: string) {
  return {
    provider: e.CAIRN_EMBEDDING_PROVIDER,
    model: e.CAIRN_EMBEDDING_MODEL,
    dimensions: e.CAIRN_EMBEDDING_DIMENSIONS,
    baseUrl: e.CAIRN_EMBEDDING_BASE_URL,
    apiKey: e.CAIRN_EMBEDDING_API_KEY ?? e.OPENAI_API_KEY,
    batchSize: e.CAIRN_EMBEDDING_BATCH_SIZE,
    concurrency: e.CAIRN_EMBEDDING_CONCURRENCY,
    timeoutMs: e.CAIRN_EMBEDDING_TIMEOUT_MS,
    maxRetries: e.CAIRN_EMBEDDING_MAX_RETRIES,
    offline: e.CAIRN_OFFLINE,
    cacheDir: e.CAIRN_MODEL_CACHE_DIR
      ? path.resolve(e.CAIRN_MODEL_CACHE_DIR)
      : path.resolve(dataDir === MEMORY_DATA_DIR ? './data' : dataDir, 'models'),
  };
}

/** Importer and upload settings. */
function importConfig(e: Env) {
  return {
    allowPrivateHosts: e.CAIRN_IMPORT_ALLOW_PRIVATE_HOSTS.split(',')
      .map((h) => h.trim().toLowerCase())
      .filter((h) => h !== ''),
    maxBytes: e.CAIRN_IMPORT_MAX_BYTES,
    specMaxBytes: e.CAIRN_IMPORT_SPEC_MAX_BYTES,
    connectTimeoutMs: e.CAIRN_IMPORT_CONNECT_TIMEOUT_MS,
    timeoutMs: e.CAIRN_IMPORT_TIMEOUT_MS,
    maxRedirects: e.CAIRN_IMPORT_MAX_REDIRECTS,
    userAgent: e.CAIRN_IMPORT_USER_AGENT,
    pdfMaxPages: e.CAIRN_IMPORT_PDF_MAX_PAGES,
    maxUnzippedBytes: e.CAIRN_IMPORT_MAX_UNZIPPED_BYTES,
    deferVectorIndex: e.CAIRN_IMPORT_DEFER_VECTOR_INDEX,
    jobs: {
      concurrency: e.CAIRN_IMPORT_JOB_CONCURRENCY,
      leaseMs: e.CAIRN_IMPORT_JOB_LEASE_MS,
      pollMs: e.CAIRN_IMPORT_JOB_POLL_MS,
    },
    uploadMaxBytes: e.CAIRN_UPLOAD_MAX_BYTES,
    uploadTtlMs: e.CAIRN_UPLOAD_TTL_MS,
  };
}

function searchConfig(e: Env) {
  return {
    mode: e.CAIRN_SEARCH_MODE,
    fusion: e.CAIRN_SEARCH_FUSION,
    vectorWeight: e.CAIRN_SEARCH_VECTOR_WEIGHT,
    rrfK: e.CAIRN_SEARCH_RRF_K,
    candidates: e.CAIRN_SEARCH_CANDIDATES,
    bm25K1: e.CAIRN_SEARCH_BM25_K1,
    bm25B: e.CAIRN_SEARCH_BM25_B,
    keywordCandidateDf: e.CAIRN_SEARCH_KEYWORD_CANDIDATE_DF,
  };
}

function sourcesConfig(e: Env, dataDir: string) {
  return {
    folderRoot: e.CAIRN_SOURCES_FOLDER_ROOT ? path.resolve(e.CAIRN_SOURCES_FOLDER_ROOT) : undefined,
    cacheDir: path.resolve(
      e.CAIRN_SOURCES_CACHE_DIR ??
        (dataDir === MEMORY_DATA_DIR ? path.join(os.tmpdir(), 'cairn-sources') : path.join(dataDir, 'sources')),
    ),
    tickMs: e.CAIRN_SOURCES_TICK_MS,
  };
}

/** The extractors that build the graph from documents, and the LLM extractor's endpoint and limits. */
function extractionConfig(e: Env) {
  const list = (v: string) =>
    v
      .split(',')
      .map((t) => t.trim())
      .filter((t) => t !== '');
  return {
    extractors: parseExtractorList(e.CAIRN_EXTRACTION_EXTRACTORS) as ('structural' | 'offline' | 'llm')[],
    concurrency: e.CAIRN_EXTRACTION_CONCURRENCY,
    batchDocuments: e.CAIRN_EXTRACTION_BATCH_DOCUMENTS,
    pollMs: e.CAIRN_EXTRACTION_POLL_MS,
    leaseMs: e.CAIRN_EXTRACTION_LEASE_MS,
    maxAttempts: e.CAIRN_EXTRACTION_MAX_ATTEMPTS,
    termMinDocuments: e.CAIRN_EXTRACTION_TERM_MIN_DOCUMENTS,
    cooccurrenceMinChunks: e.CAIRN_EXTRACTION_COOCCURRENCE_MIN_CHUNKS,
    fuzzyThreshold: e.CAIRN_EXTRACTION_FUZZY_THRESHOLD,
    maxTokensPerJob: e.CAIRN_EXTRACTION_MAX_TOKENS_PER_JOB,
    llm: {
      baseUrl: e.CAIRN_EXTRACTION_LLM_BASE_URL,
      model: e.CAIRN_EXTRACTION_LLM_MODEL,
      apiKey: e.CAIRN_EXTRACTION_LLM_API_KEY ?? e.OPENAI_API_KEY,
      concurrency: e.CAIRN_EXTRACTION_LLM_CONCURRENCY,
      requestsPerMinute: e.CAIRN_EXTRACTION_LLM_REQUESTS_PER_MINUTE,
      timeoutMs: e.CAIRN_EXTRACTION_LLM_TIMEOUT_MS,
      maxRetries: e.CAIRN_EXTRACTION_LLM_MAX_RETRIES,
      maxOutputTokens: e.CAIRN_EXTRACTION_LLM_MAX_OUTPUT_TOKENS,
      priceInputPerMillion: e.CAIRN_EXTRACTION_LLM_PRICE_INPUT,
      priceOutputPerMillion: e.CAIRN_EXTRACTION_LLM_PRICE_OUTPUT,
      entityTypes: list(e.CAIRN_EXTRACTION_ENTITY_TYPES),
      relationshipTypes: list(e.CAIRN_EXTRACTION_RELATIONSHIP_TYPES),
    },
  };
}

function replicasConfig(e: Env) {
  return {
    urls: e.CAIRN_DATABASE_REPLICA_URLS,
    maxLagMs: e.CAIRN_DATABASE_REPLICA_MAX_LAG_MS,
    checkMs: e.CAIRN_DATABASE_REPLICA_CHECK_MS,
  };
}

function secretsConfig(e: Env) {
  return {
    key: e.CAIRN_SECRET_KEY,
    previousKeys: e.CAIRN_SECRET_KEY_PREVIOUS.split(',')
      .map((k) => k.trim())
      .filter((k) => k !== ''),
  };
}

/** Shapes the parsed environment into the Config the services receive. */
function toConfig(e: Env) {
  // `memory://` keeps PGlite in memory (tests, throwaway runs).
  const dataDir = e.CAIRN_DATA_DIR === MEMORY_DATA_DIR ? MEMORY_DATA_DIR : path.resolve(e.CAIRN_DATA_DIR);
  return {
    env: e.NODE_ENV,
    host: e.CAIRN_HOST,
    port: e.CAIRN_PORT,
    dataDir,
    databaseUrl: e.CAIRN_DATABASE_URL,
    databasePoolSize: e.CAIRN_DATABASE_POOL_SIZE,
    databaseSessionUrl: e.CAIRN_DATABASE_SESSION_URL,
    databaseReplicas: replicasConfig(e),
    leaderRetryMs: e.CAIRN_LEADER_RETRY_MS,
    databasePreparedStatements: e.CAIRN_DATABASE_PREPARED_STATEMENTS,
    logLevel: e.CAIRN_LOG_LEVEL,
    embedding: embeddingConfig(e, dataDir),
    chunking: { size: e.CAIRN_CHUNK_SIZE, overlap: e.CAIRN_CHUNK_OVERLAP },
    rag: {
      topK: e.CAIRN_RAG_TOP_K,
      maxTopK: e.CAIRN_RAG_MAX_TOP_K,
      minScoreFloor: e.CAIRN_RAG_MIN_SCORE_FLOOR,
    },
    neo4j: e.CAIRN_NEO4J_URI
      ? {
          uri: e.CAIRN_NEO4J_URI,
          user: e.CAIRN_NEO4J_USER,
          password: e.CAIRN_NEO4J_PASSWORD ?? '',
          database: e.CAIRN_NEO4J_DATABASE,
        }
      : undefined,
    search: searchConfig(e),
    vectorMemoryIndexMaxChunks: e.CAIRN_VECTOR_MEMORY_INDEX_MAX_CHUNKS,
    hnswEfSearch: e.CAIRN_HNSW_EF_SEARCH,
    enrich: {
      maxEntities: e.CAIRN_ENRICH_MAX_ENTITIES,
      maxChars: e.CAIRN_ENRICH_MAX_CHARS,
      laneTimeoutMs: e.CAIRN_ENRICH_LANE_TIMEOUT_MS,
      gapScoreThreshold: e.CAIRN_ENRICH_GAP_SCORE_THRESHOLD,
      graphShare: e.CAIRN_ENRICH_GRAPH_SHARE,
      gapMinCoverage: e.CAIRN_ENRICH_GAP_MIN_COVERAGE,
      expandNeighbors: e.CAIRN_ENRICH_EXPAND_NEIGHBORS,
      relevanceFloor: e.CAIRN_ENRICH_RELEVANCE_FLOOR,
    },
    expirySweepIntervalMs: e.CAIRN_EXPIRY_SWEEP_INTERVAL_MS,
    recheckMs: { names: e.CAIRN_QUERY_NAMES_MAX_AGE_MS, keys: e.CAIRN_API_KEYS_RECHECK_MS },
    auditRetentionDays: e.CAIRN_AUDIT_RETENTION_DAYS,
    maxDocumentChars: e.CAIRN_MAX_DOCUMENT_CHARS,
    spaceQuota: { documents: e.CAIRN_SPACE_MAX_DOCUMENTS, chunks: e.CAIRN_SPACE_MAX_CHUNKS },
    maxResponseTextChars: e.CAIRN_MAX_RESPONSE_TEXT_CHARS,
    maxBodyBytes: e.CAIRN_MAX_BODY_BYTES,
    sources: sourcesConfig(e, dataDir),
    secrets: secretsConfig(e),
    extraction: extractionConfig(e),
    import: importConfig(e),
    auth: { mode: e.CAIRN_AUTH },
    apiKey: e.CAIRN_API_KEY,
    graphqlLimits: {
      maxDepth: e.CAIRN_GRAPHQL_MAX_DEPTH,
      maxCost: e.CAIRN_GRAPHQL_MAX_COST,
      maxAliases: e.CAIRN_GRAPHQL_MAX_ALIASES,
      maxDirectives: e.CAIRN_GRAPHQL_MAX_DIRECTIVES,
      maxTokens: e.CAIRN_GRAPHQL_MAX_TOKENS,
    },
    subscriptions: {
      perConnection: e.CAIRN_SUBSCRIPTIONS_PER_CONNECTION,
      perKey: e.CAIRN_SUBSCRIPTIONS_PER_KEY,
      initTimeoutMs: e.CAIRN_SUBSCRIPTION_INIT_TIMEOUT_MS,
    },
    reads: {
      // Half the pool by default: the other half stays free for writes and import jobs during a read storm.
      concurrency: e.CAIRN_READ_CONCURRENCY ?? Math.max(2, Math.floor(e.CAIRN_DATABASE_POOL_SIZE / 2)),
      queue: e.CAIRN_READ_QUEUE,
    },
    rateLimit: {
      perSecond: e.CAIRN_RATE_LIMIT_PER_SECOND,
      burst: e.CAIRN_RATE_LIMIT_BURST,
      failedKeysPerMinute: e.CAIRN_RATE_LIMIT_FAILED_KEYS_PER_MINUTE,
      spacePerSecond: e.CAIRN_SPACE_RATE_LIMIT_PER_SECOND,
      spaceBurst: e.CAIRN_SPACE_RATE_LIMIT_BURST,
    },
  };
}

const configSchema = envSchema.transform(toConfig);

/** The validated, typed configuration of one Cairn process. */
export type Config = z.output<typeof configSchema>;
/** Embedding settings, resolved from `CAIRN_EMBEDDING_*`. */
export type EmbeddingConfig = Config['embedding'];
/** Per-operation GraphQL limits, resolved from `CAIRN_GRAPHQL_MAX_*`. */
export type GraphqlLimits = Config['graphqlLimits'];
/** WebSocket subscription limits, resolved from `CAIRN_SUBSCRIPTION*`. */
export type SubscriptionLimits = Config['subscriptions'];
/** Importer settings, resolved from `CAIRN_IMPORT_*` and `CAIRN_UPLOAD_*`. */
export type ImportConfig = Config['import'];
/** Graph extraction settings, resolved from `CAIRN_EXTRACTION_*`. */
export type ExtractionConfig = Config['extraction'];
/** The LLM extractor's endpoint and limits, resolved from `CAIRN_EXTRACTION_LLM_*`. */
export type LlmExtractionConfig = ExtractionConfig['llm'];
/** Source settings, resolved from `CAIRN_SOURCES_*`. */
export type SourcesConfig = Config['sources'];

/** The file `readEnvironment` loads beneath the environment: `.env` in the working folder. */
export const DOT_ENV_FILE = '.env';

/**
 * The process environment over the variables of a `.env` file (default: `.env` in the working folder): a variable
 * set in the environment wins over the file's, and a missing file is no error. The file is parsed with Node's own
 * dotenv parser (util.parseEnv, as `node --env-file` and process.loadEnvFile use), without changing process.env.
 */
export function readEnvironment(
  file: string = path.resolve(DOT_ENV_FILE),
  env: NodeJS.ProcessEnv = process.env,
): NodeJS.ProcessEnv {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return env;
    throw new AppError(
      ErrorCode.CONFIG_INVALID,
      `Cannot read ${file} (${code ?? String(err)}): fix its permissions, or remove it and set the variables in the environment`,
      { file },
    );
  }
  // util.parseEnv arrived in Node 20.12; older 20.x releases cannot read the file.
  const parseEnv = (util as { parseEnv?: (content: string) => NodeJS.Dict<string> }).parseEnv;
  if (!parseEnv) {
    throw new AppError(
      ErrorCode.CONFIG_INVALID,
      `${file} exists, but Node ${process.version} cannot parse it (needs 20.12 or later): upgrade Node, or set the variables in the environment`,
      { file },
    );
  }
  return { ...parseEnv(text), ...env };
}

/** The command search path child processes (git, ssh-keygen) run with: the only variable of ours they inherit. */
export function commandSearchPath(): string {
  return process.env.PATH ?? '/usr/bin:/bin';
}

/** Parses and validates an environment (default: `process.env`); throws `CONFIG_INVALID` naming every bad variable. */
export function loadConfig(source: NodeJS.ProcessEnv = process.env): Config {
  const parsed = configSchema.safeParse(withSettingAliases(source));
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.') || '(env)'}: ${i.message}`);
    throw new AppError(ErrorCode.CONFIG_INVALID, `Invalid configuration:\n  ${problems.join('\n  ')}`, { problems });
  }
  return parsed.data;
}
