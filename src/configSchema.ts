import { z } from 'zod';

// Every setting Cairn reads, with its type, default and description. src/config.ts parses the environment with it;
// scripts/docs.ts renders docs/configuration.md from it, so a description here is the setting's documentation.

/** A boolean variable: 1/0, true/false, yes/no, on/off (empty is false). */
export const bool = z
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

const server = {
  NODE_ENV: z
    .enum(['development', 'production', 'test'])
    .default('development')
    .describe('`production` in deployments'),
  CAIRN_HOST: z
    .string()
    .trim()
    .min(1)
    .default('127.0.0.1')
    .describe(
      'address the HTTP server binds; anything but a loopback address needs an API key or `CAIRN_AUTH=required` (see [security](security.md#the-embedded-default-no-key-until-the-first-one))',
    ),
  CAIRN_PORT: int(0, 65535).default(4000).describe('HTTP port'),
  CAIRN_LOG_LEVEL: z
    .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
    .default('info')
    .describe('least severe log level written'),
};

const database = {
  CAIRN_DATA_DIR: z
    .string()
    .trim()
    .min(1)
    .default('./data')
    .describe('embedded database (`<dir>/pglite`) and model cache; `memory://` keeps PGlite in memory'),
  CAIRN_DATABASE_URL: optionalString.describe('Postgres server URL (with pgvector); when set, PGlite is not used'),
  CAIRN_DATABASE_POOL_SIZE: int(1, 200)
    .default(10)
    .describe(
      'connections in the `pg` pool; each process also keeps two of its own, for the leader lock and for change notifications (see [several instances](scaling.md#pool-sizing))',
    ),
  CAIRN_DATABASE_SESSION_URL: optionalString.describe(
    'Postgres server only: where the two connections of its own (leader lock, change notifications) go, when `CAIRN_DATABASE_URL` points at a pooler in transaction mode, which cannot keep a session; unset: `CAIRN_DATABASE_URL`',
  ),
  CAIRN_DATABASE_REPLICA_URLS: z
    .string()
    .trim()
    .default('')
    .transform((v) =>
      v
        .split(',')
        .map((u) => u.trim())
        .filter((u) => u !== ''),
    )
    .describe(
      'Postgres server only: comma-separated URLs of streaming read replicas of `CAIRN_DATABASE_URL`; search, enrichContext and the other reading queries go to them, writes, jobs and locks stay on the primary (see [read replicas](scaling.md#read-replicas))',
    ),
  CAIRN_DATABASE_REPLICA_MAX_LAG_MS: int(0)
    .default(5000)
    .describe(
      'a replica further behind the primary than this is skipped until it catches up (its reads go to the other replicas or the primary), with a warning in `/readyz`',
    ),
  CAIRN_DATABASE_REPLICA_CHECK_MS: int(50)
    .default(1000)
    .describe(
      "how often each replica's replay position is compared with the primary's, and a replica that is down is tried again",
    ),
  CAIRN_LEADER_RETRY_MS: int(50)
    .default(5000)
    .describe(
      "Postgres server only: how often a process that is not the leader tries to become it, and the leader checks that it still is; the longest a dead leader's background work (expiry sweep, graph outbox) waits for another process (see [several instances](scaling.md))",
    ),
  CAIRN_DATABASE_PREPARED_STATEMENTS: bool
    .default(true)
    .describe(
      'Postgres server only: each connection prepares the read statements it runs (up to 256 distinct texts) instead of parsing and planning them on every call. Set `false` behind a pooler in transaction mode that cannot keep prepared statements (PgBouncer before 1.21, or without `max_prepared_statements`)',
    ),
  CAIRN_HNSW_EF_SEARCH: int(1, 1000)
    .default(150)
    .describe(
      "Postgres server only: pgvector's `hnsw.ef_search`, set on every connection; candidates an HNSW search visits (higher: better recall, slower). A search wanting more hits than this widens it for that query",
    ),
  CAIRN_VECTOR_MEMORY_INDEX_MAX_CHUNKS: int(0)
    .default(300000)
    .describe(
      'PGlite only: most chunk embeddings the vector lane keeps in memory (4 bytes per dimension each); above it, or at `0`, it scans in SQL',
    ),
};

const embeddings = {
  CAIRN_EMBEDDING_PROVIDER: z
    .enum(['auto', 'openai', 'local', 'hashing'])
    .default('auto')
    .describe(
      '`auto` uses the local model if it loads, else the hashing embedder; once a store exists, the embedder it recorded must match (see [embeddings](operations.md#embeddings))',
    ),
  CAIRN_EMBEDDING_MODEL: optionalString.describe(
    "unset: the provider's default, `text-embedding-3-small` (openai), `Xenova/all-MiniLM-L6-v2` (local; a hub name or a local folder), `hashing-v1`",
  ),
  CAIRN_EMBEDDING_DIMENSIONS: int(1, 16000)
    .optional()
    .describe(
      'vector size; unset: 1536 for `text-embedding-3-small`, 384 for all-MiniLM-L6-v2, 1024 for hashing, probed for other OpenAI-compatible models',
    ),
  CAIRN_EMBEDDING_BASE_URL: optionalString.describe(
    "OpenAI-compatible endpoint, e.g. `http://localhost:11434/v1` (Ollama), vLLM, LM Studio; unset: OpenAI's",
  ),
  CAIRN_EMBEDDING_API_KEY: optionalString.describe(
    'API key for the OpenAI-compatible endpoint (not needed with a base URL that takes none); unset: `OPENAI_API_KEY`',
  ),
  OPENAI_API_KEY: z.string().optional().describe('used as `CAIRN_EMBEDDING_API_KEY` when that is unset'),
  CAIRN_EMBEDDING_BATCH_SIZE: int(1, 2048).default(64).describe('texts per embedding request'),
  CAIRN_EMBEDDING_CONCURRENCY: int(1, 64).default(2).describe('embedding requests in flight'),
  CAIRN_EMBEDDING_TIMEOUT_MS: int(100).default(30000).describe('timeout of one embedding request'),
  CAIRN_EMBEDDING_MAX_RETRIES: int(0, 20)
    .default(4)
    .describe(
      "retries on 408, 409, 429, 5xx, timeouts and connection errors (the `openai` SDK's): after `Retry-After`, else a jittered backoff from 0.5 s doubling to 8 s",
    ),
  CAIRN_OFFLINE: bool.default(false).describe('`1` forbids model downloads: the local provider only loads from disk'),
  CAIRN_MODEL_CACHE_DIR: optionalString.describe(
    'where local models are downloaded and cached; unset: `<CAIRN_DATA_DIR>/models`',
  ),
};

const chunking = {
  CAIRN_CHUNK_SIZE: int(50, 100000).default(500).describe('chunk size in characters'),
  CAIRN_CHUNK_OVERLAP: int(0, 50000)
    .default(50)
    .describe('characters shared by consecutive chunks; must be smaller than `CAIRN_CHUNK_SIZE`'),
};

const search = {
  CAIRN_RAG_TOP_K: int(1, 1000).default(3).describe('default `topK` of `search`; at most `CAIRN_RAG_MAX_TOP_K`'),
  CAIRN_RAG_MAX_TOP_K: int(1, 1000).default(50).describe('cap on any requested `topK`'),
  CAIRN_RAG_MIN_SCORE_FLOOR: z.coerce
    .number()
    .min(0)
    .max(1)
    .default(0)
    .describe('lowest `minScore` a search may use: a lower one is raised to it'),
  CAIRN_SEARCH_MODE: z
    .enum(['VECTOR', 'KEYWORD', 'HYBRID'])
    .optional()
    .describe('default `mode` of `search` and `enrichContext`; unset: `HYBRID`'),
  CAIRN_SEARCH_FUSION: z.enum(['RRF', 'LINEAR']).optional().describe('default HYBRID fusion; unset: `LINEAR`'),
  CAIRN_SEARCH_VECTOR_WEIGHT: z.coerce
    .number()
    .min(0)
    .max(1)
    .optional()
    .describe(
      'vector lane weight in LINEAR fusion (the keyword lane gets the rest); unset: 0.2 with the hashing embedder, 0.5 with a model (see [search](api.md#search))',
    ),
  CAIRN_SEARCH_RRF_K: int(1, 10000).optional().describe('RRF rank offset; unset: 60'),
  CAIRN_SEARCH_CANDIDATES: int(1, 1000)
    .optional()
    .describe('chunks each HYBRID lane ranks before fusion (at least `topK`); unset: 50'),
  CAIRN_SEARCH_BM25_K1: z.coerce
    .number()
    .min(0)
    .max(10)
    .optional()
    .describe('BM25 term-frequency saturation; unset: 1.2'),
  CAIRN_SEARCH_BM25_B: z.coerce.number().min(0).max(1).optional().describe('BM25 length normalisation; unset: 0.75'),
  CAIRN_SEARCH_KEYWORD_CANDIDATE_DF: z.coerce
    .number()
    .min(0)
    .max(1)
    .optional()
    .describe(
      'query words in more than this share of chunks still score but do not select keyword candidates; lower trades a little quality for a cheaper keyword lane. Unset: 0.02',
    ),
};

const graph = {
  CAIRN_NEO4J_URI: optionalString.describe(
    'Bolt URI of Neo4j, e.g. `bolt://localhost:7687`; unset: the graph lives in Postgres tables',
  ),
  CAIRN_NEO4J_USER: z.string().trim().default('neo4j').describe('Neo4j user'),
  CAIRN_NEO4J_PASSWORD: optionalString.describe('Neo4j password'),
  CAIRN_NEO4J_DATABASE: optionalString.describe("Neo4j database name; unset: the server's default"),
};

/** The entity types the LLM extractor is asked for unless `CAIRN_EXTRACTION_ENTITY_TYPES` says otherwise. */
export const DEFAULT_EXTRACTION_ENTITY_TYPES =
  'Person,Organization,Product,Technology,Concept,Component,Process,Location,Event,API,ConfigOption';
/** The relationship types the LLM extractor is asked for unless `CAIRN_EXTRACTION_RELATIONSHIP_TYPES` says otherwise. */
export const DEFAULT_EXTRACTION_RELATIONSHIP_TYPES =
  'RELATED_TO,PART_OF,USES,DEPENDS_ON,CONFIGURES,PROVIDES,CREATED_BY,LOCATED_IN,INSTANCE_OF,HELD_POSITION';

const extraction = {
  CAIRN_EXTRACTION_EXTRACTORS: z
    .string()
    .trim()
    .default('structural,offline')
    .describe(
      'which extractors build the graph from every written document: a comma list of `structural`, `offline`, `llm`; `none` turns extraction off ([graph](graph.md#where-the-graph-comes-from))',
    ),
  CAIRN_EXTRACTION_CONCURRENCY: int(1, 32)
    .default(2)
    .describe('batches one instance extracts at once, and documents each batch runs its extractors on at once'),
  CAIRN_EXTRACTION_BATCH_DOCUMENTS: int(1, 1000)
    .default(64)
    .describe(
      'documents the worker claims together and reconciles in one round (one lock, one write of names, facts and mentions)',
    ),
  CAIRN_EXTRACTION_POLL_MS: int(0)
    .default(1000)
    .describe('how often an idle instance looks for queued extraction work; `0`: only when this instance writes'),
  CAIRN_EXTRACTION_LEASE_MS: int(1000)
    .default(120_000)
    .describe(
      'a document being extracted belongs to its instance this long, renewed while it works; then any instance takes it over',
    ),
  CAIRN_EXTRACTION_MAX_ATTEMPTS: int(1, 100)
    .default(5)
    .describe('claims of one document before its extraction is marked failed'),
  CAIRN_EXTRACTION_TERM_MIN_DOCUMENTS: int(1, 1000)
    .default(3)
    .describe(
      'documents that must name a key term (or a one-word name only the offline extractor found) before it becomes an entity',
    ),
  CAIRN_EXTRACTION_COOCCURRENCE_MIN_CHUNKS: int(1, 1000)
    .default(2)
    .describe(
      'distinct sentences that must name two entities together before a co-occurrence `RELATED_TO` joins them, when no sentence states the relation (names listed together, or in a list, a table, a heading); one sentence that states the relation (a verb or a preposition between the two) is enough',
    ),
  CAIRN_EXTRACTION_FUZZY_THRESHOLD: z.coerce
    .number()
    .min(0.5)
    .max(1)
    .default(0.9)
    .describe(
      'trigram similarity at which an extracted name joins an existing entity of a compatible type; `1` turns fuzzy matching off',
    ),
  CAIRN_EXTRACTION_LLM_BASE_URL: optionalString.describe(
    'OpenAI-compatible chat endpoint for the `llm` extractor, e.g. `http://127.0.0.1:11434/v1` (Ollama); unset: OpenAI',
  ),
  CAIRN_EXTRACTION_LLM_MODEL: optionalString.describe('chat model of the `llm` extractor (required when it is on)'),
  CAIRN_EXTRACTION_LLM_API_KEY: optionalString.describe('API key of the `llm` extractor; unset: `OPENAI_API_KEY`'),
  CAIRN_EXTRACTION_LLM_CONCURRENCY: int(1, 64)
    .default(2)
    .describe('requests the `llm` extractor has in flight at once'),
  CAIRN_EXTRACTION_LLM_REQUESTS_PER_MINUTE: int(1, 100_000)
    .default(60)
    .describe('requests the `llm` extractor sends per minute at most'),
  CAIRN_EXTRACTION_LLM_TIMEOUT_MS: int(1000).default(120_000).describe('one chat request longer than this fails'),
  CAIRN_EXTRACTION_LLM_MAX_RETRIES: int(0, 10)
    .default(4)
    .describe('HTTP retries of one request on 429 (honouring `Retry-After`), 5xx, time-outs and connection errors'),
  CAIRN_EXTRACTION_LLM_MAX_OUTPUT_TOKENS: int(64, 100_000).default(2000).describe('`max_tokens` of one request'),
  CAIRN_EXTRACTION_LLM_PRICE_INPUT: z.coerce
    .number()
    .min(0)
    .optional()
    .describe('price in USD per million input tokens, for the cost `dryRun` reports; unset: no cost shown'),
  CAIRN_EXTRACTION_LLM_PRICE_OUTPUT: z.coerce
    .number()
    .min(0)
    .optional()
    .describe('price in USD per million output tokens, for the cost `dryRun` reports'),
  CAIRN_EXTRACTION_MAX_TOKENS_PER_JOB: int(0)
    .default(0)
    .describe(
      'tokens one `extractGraph` job may spend on the model before it stops cleanly, keeping what it extracted; `0`: no cap',
    ),
  CAIRN_EXTRACTION_ENTITY_TYPES: z
    .string()
    .trim()
    .default(DEFAULT_EXTRACTION_ENTITY_TYPES)
    .describe('entity types the `llm` extractor may use (comma list of PascalCase names)'),
  CAIRN_EXTRACTION_RELATIONSHIP_TYPES: z
    .string()
    .trim()
    .default(DEFAULT_EXTRACTION_RELATIONSHIP_TYPES)
    .describe('relationship types the `llm` extractor may use (comma list of UPPER_SNAKE names)'),
};

const enrichment = {
  CAIRN_ENRICH_MAX_ENTITIES: int(0, 100)
    .default(5)
    .describe('default `maxEntities` of `enrichContext`; `0` leaves the graph out'),
  CAIRN_ENRICH_MAX_CHARS: int(200, 1_000_000).default(6000).describe('default `maxChars` of `enrichContext`'),
  CAIRN_QUERY_NAMES_MAX_AGE_MS: int(0)
    .default(1000)
    .describe(
      "how often a background check reads the entity names' version, so names changed by another instance reach this one's queries even if its change notification was missed (notifications apply them at once; queries never wait for this check); `0`: notifications only",
    ),
  CAIRN_ENRICH_LANE_TIMEOUT_MS: int(10)
    .default(2000)
    .describe('an `enrichContext` lane slower than this is dropped with a warning'),
  CAIRN_ENRICH_GRAPH_SHARE: z.coerce
    .number()
    .min(0)
    .max(1)
    .default(0.3)
    .describe(
      'default `graphShare` of `enrichContext`: the share of `maxChars` held for graph evidence; `0` turns it off ([enrichment](enrichment.md#graph-evidence))',
    ),
  CAIRN_ENRICH_EXPAND_NEIGHBORS: int(0, 10)
    .default(1)
    .describe(
      'default `expandNeighbors` of `enrichContext`: chunks on each side of a selected hit that may join it while budget is left; `0` turns the expansion off ([enrichment](enrichment.md#what-the-context-holds))',
    ),
  CAIRN_ENRICH_RELEVANCE_FLOOR: z.coerce
    .number()
    .min(0)
    .max(1)
    .default(0.3)
    .describe(
      'documents-lane hits scoring under this share of the best hit, and holding under half the query words the best-covering hit holds, stay out of the context; `0` turns the floor off ([enrichment](enrichment.md#what-the-context-holds))',
    ),
  CAIRN_ENRICH_GAP_SCORE_THRESHOLD: z.coerce
    .number()
    .min(0)
    .max(1)
    .default(0.2)
    .describe(
      'when a query has no words to match, a best score below this records a [knowledge gap](enrichment.md#knowledge-gaps)',
    ),
  CAIRN_ENRICH_GAP_MIN_COVERAGE: z.coerce
    .number()
    .min(0)
    .max(1)
    .default(0.6)
    .describe(
      'a query none of whose passages in the context holds this share of its words is recorded as a [knowledge gap](enrichment.md#knowledge-gaps); `0` decides by the best score instead',
    ),
};

const documents = {
  CAIRN_EXPIRY_SWEEP_INTERVAL_MS: int(0)
    .default(60000)
    .describe('how often expired documents are deleted; `0` disables the sweep'),
  CAIRN_AUDIT_RETENTION_DAYS: int(0)
    .default(90)
    .describe('days the audit log keeps an entry (swept with expired documents); `0` keeps every entry'),
  CAIRN_MAX_DOCUMENT_CHARS: int(1).default(5_000_000).describe('largest accepted document content'),
  CAIRN_SPACE_MAX_DOCUMENTS: int(0)
    .default(0)
    .describe('most documents one space holds; a write past it is refused with `QUOTA_EXCEEDED`; `0`: no quota'),
  CAIRN_SPACE_MAX_CHUNKS: int(0)
    .default(0)
    .describe('most chunks one space holds; a write past it is refused with `QUOTA_EXCEEDED`; `0`: no quota'),
  CAIRN_MAX_RESPONSE_TEXT_CHARS: int(1)
    .default(20_000_000)
    .describe(
      'most characters of document and chunk text one GraphQL response carries; at least `CAIRN_MAX_DOCUMENT_CHARS` (see [limits](security.md#limits))',
    ),
  CAIRN_MAX_BODY_BYTES: int(1024)
    .default(20 * 1024 * 1024)
    .describe('largest accepted GraphQL request body'),
};

/** `host`, `host:port`, an IPv6 literal or `[v6]:port`, comma-separated; a port is 1-65535. */
function checkAllowEntries(value: string, ctx: z.RefinementCtx): void {
  for (const entry of value
    .split(',')
    .map((e) => e.trim())
    .filter((e) => e !== '')) {
    const port = /^\[[^\]]+\]:(.*)$/.exec(entry)?.[1] ?? /^[^:[\]]+:(.*)$/.exec(entry)?.[1];
    if (port !== undefined && !(/^\d{1,5}$/.test(port) && Number(port) >= 1 && Number(port) <= 65535)) {
      ctx.addIssue({
        code: 'custom',
        message: `"${entry}": the port must be a number from 1 to 65535 (write host or host:port, [IPv6]:port)`,
      });
    }
  }
}

const imports = {
  CAIRN_IMPORT_ALLOW_PRIVATE_HOSTS: z
    .string()
    .default('')
    .superRefine(checkAllowEntries)
    .describe(
      'comma-separated hosts imports may fetch although they resolve to private, loopback or other blocked addresses: a bare host name or IP allows all its ports, `host:port` (`[IPv6]:port`) that port only; each redirect hop is checked again',
    ),
  CAIRN_IMPORT_MAX_BYTES: int(1024)
    .default(10 * 1024 * 1024)
    .describe('size cap of one fetched resource (enforced while streaming, after decompression) and of an inline spec'),
  CAIRN_IMPORT_SPEC_MAX_BYTES: int(1024)
    .default(32 * 1024 * 1024)
    .describe(
      'cap on an OpenAPI spec plus every file its external `$ref`s bring in, together (each file is also capped by `CAIRN_IMPORT_MAX_BYTES`); at least `CAIRN_IMPORT_MAX_BYTES`',
    ),
  CAIRN_IMPORT_CONNECT_TIMEOUT_MS: int(10).default(5000).describe('connect timeout of the import fetcher'),
  CAIRN_IMPORT_TIMEOUT_MS: int(10).default(30000).describe('total time for one fetch, redirects and body included'),
  CAIRN_IMPORT_MAX_REDIRECTS: int(0, 5).default(5).describe('redirects followed, each re-checked'),
  CAIRN_IMPORT_USER_AGENT: z
    .string()
    .trim()
    .min(1)
    .default('Cairn-Importer/0.1 (Cairn knowledge platform)')
    .describe('User-Agent of the import fetcher'),
  CAIRN_IMPORT_PDF_MAX_PAGES: int(1, 100000).default(500).describe('PDFs with more pages are refused'),
  CAIRN_IMPORT_MAX_UNZIPPED_BYTES: int(1024)
    .default(100 * 1024 * 1024)
    .describe('largest total uncompressed size of a docx (zip-bomb guard)'),
  CAIRN_IMPORT_DEFER_VECTOR_INDEX: bool
    .default(true)
    .describe(
      'on a Postgres server, let a large import job drop the HNSW index and rebuild it once at the end (see [bulk loads](operations.md#bulk-loads)); `false` keeps the index, so searches keep their speed during big imports',
    ),
  CAIRN_IMPORT_JOB_CONCURRENCY: int(1, 64)
    .default(2)
    .describe(
      'background import jobs and source syncs one instance runs at once (jobs a request waits for run besides)',
    ),
  CAIRN_IMPORT_JOB_LEASE_MS: int(1000)
    .default(30_000)
    .describe(
      'how long a running job stays claimed without a heartbeat (renewed every third of it): a job whose instance died is taken over by another instance, or by the restarted one, once this has passed ([jobs](importing.md#jobs-queue-leases-and-takeover))',
    ),
  CAIRN_IMPORT_JOB_POLL_MS: int(0)
    .default(2000)
    .describe(
      'how often an instance looks for queued jobs and jobs whose lease ran out; `0` runs only the jobs its own requests wait for',
    ),
  CAIRN_UPLOAD_MAX_BYTES: int(1024)
    .default(25 * 1024 * 1024)
    .describe('largest file accepted by `POST /v1/uploads` (and by `import dir`)'),
  CAIRN_UPLOAD_TTL_MS: int(1000)
    .default(24 * 60 * 60 * 1000)
    .describe('how long an upload is kept for `importUpload`'),
};

const access = {
  CAIRN_AUTH: z
    .enum(['auto', 'required'])
    .default('auto')
    .describe(
      '`auto`: API keys are required once any unrevoked key exists (until then loopback only, no key); `required`: always',
    ),
  CAIRN_API_KEYS_RECHECK_MS: int(0)
    .default(2000)
    .describe(
      'how often a background check reads whether any API key exists, so a first key created (or the last one revoked) by another process applies even if its change notification was missed (notifications apply it at once; requests never wait for this check); `0`: notifications only',
    ),
  CAIRN_API_KEY: optionalString.describe(
    'the API key the CLI sends to a running server it works through (`--api-key` overrides it)',
  ),
  CAIRN_GRAPHQL_MAX_DEPTH: int(1, 1000).default(12).describe('deepest selection nesting of an operation'),
  CAIRN_GRAPHQL_MAX_COST: int(1)
    .default(20000)
    .describe(
      "highest estimated cost of an operation (graphql-armor's formula, with sizes from variables and defaults)",
    ),
  CAIRN_GRAPHQL_MAX_ALIASES: int(0, 100000).default(30).describe('most aliases in an operation'),
  CAIRN_GRAPHQL_MAX_DIRECTIVES: int(0, 100000).default(30).describe('most directives in an operation'),
  CAIRN_GRAPHQL_MAX_TOKENS: int(1).default(5000).describe("most lexical tokens in an operation's document"),
  CAIRN_SUBSCRIPTIONS_PER_CONNECTION: int(1, 1000)
    .default(10)
    .describe('most subscriptions one WebSocket connection may hold open at once (`/graphql` over graphql-ws)'),
  CAIRN_SUBSCRIPTIONS_PER_KEY: int(1, 100_000)
    .default(50)
    .describe(
      'most subscriptions one API key (or keyless client address) may hold open at once, over all its connections',
    ),
  CAIRN_SUBSCRIPTION_INIT_TIMEOUT_MS: int(100, 60_000)
    .default(3000)
    .describe(
      'how long a new WebSocket connection may take to send its `connection_init` (which carries its API key) before it is closed',
    ),
  CAIRN_RATE_LIMIT_PER_SECOND: z.coerce
    .number()
    .min(0)
    .max(1_000_000)
    .default(50)
    .describe('requests per second each API key (or keyless client address) regains; `0` turns the limit off'),
  CAIRN_RATE_LIMIT_BURST: int(0, 1_000_000)
    .default(100)
    .describe('requests a key may make at once; `0` turns the limit off'),
  CAIRN_SPACE_RATE_LIMIT_PER_SECOND: z.coerce
    .number()
    .min(0)
    .max(1_000_000)
    .default(0)
    .describe(
      "requests per second each [space](security.md#spaces) regains, over all its keys (beside each key's own limit); past it, requests in the space get `RATE_LIMITED` (HTTP 429 with `Retry-After`); `0` (the default) turns it off",
    ),
  CAIRN_SPACE_RATE_LIMIT_BURST: int(0, 1_000_000)
    .default(0)
    .describe('requests a space may take at once, over all its keys; `0` (the default) turns the per-space limit off'),
  CAIRN_READ_CONCURRENCY: int(0, 10_000)
    .optional()
    .describe(
      'enrichContext and search calls one instance runs at once; more wait in the read queue, and writes and import jobs are never held, so they keep the rest of the pool during a read storm; unset: half of `CAIRN_DATABASE_POOL_SIZE` (at least 2); `0` turns admission control off (see [fair share under load](scaling.md#fair-share-under-load))',
    ),
  CAIRN_READ_QUEUE: int(0, 100_000)
    .default(64)
    .describe(
      'enrichContext and search calls that may wait for a turn; one more is refused at once with `RATE_LIMITED` (HTTP 429 with `Retry-After`) and counted in `/readyz`',
    ),
  CAIRN_RATE_LIMIT_FAILED_KEYS_PER_MINUTE: int(0, 1_000_000)
    .default(60)
    .describe(
      'unknown, malformed or revoked API keys one client address may send per minute; past it, its requests with a key not accepted before get `RATE_LIMITED` without a key lookup; `0` (or the rate limit off) turns it off',
    ),
};

const sources = {
  CAIRN_SOURCES_FOLDER_ROOT: z
    .string()
    .trim()
    .optional()
    .describe('FOLDER sources may only read under this folder; unset turns them off ([sources](sources.md))'),
  CAIRN_SOURCES_CACHE_DIR: z
    .string()
    .trim()
    .min(1)
    .optional()
    .describe('where git clones of GIT sources are kept between syncs (default `<CAIRN_DATA_DIR>/sources`)'),
  CAIRN_SOURCES_TICK_MS: int(0)
    .default(30_000)
    .describe('how often due source schedules are looked for; `0` turns the scheduler off'),
  CAIRN_SECRET_KEY: optionalString
    .pipe(z.string().min(32, 'must be at least 32 characters (e.g. `openssl rand -base64 32`)').optional())
    .describe(
      'encrypts secrets stored in the database (deploy keys of GIT sources over ssh) with AES-256-GCM; at least 32 random characters. Unset: sources with deploy keys cannot be added or synced ([sources](sources.md#deploy-keys))',
    ),
  CAIRN_SECRET_KEY_PREVIOUS: z
    .string()
    .default('')
    .describe(
      'comma-separated former values of `CAIRN_SECRET_KEY`, still accepted for decryption while secrets are sealed again under the new key',
    ),
};

/** The settings by topic, in the order docs/configuration.md lists them. */
/**
 * Other names a setting is read under (other name → setting), kept so that existing deployments keep working: the
 * enrichment settings share the CAIRN_ENRICH_ prefix. When both are set, the setting's own name wins.
 */
export const SETTING_ALIASES: Readonly<Record<string, string>> = {
  CAIRN_KG_MAX_ENTITIES_IN_CONTEXT: 'CAIRN_ENRICH_MAX_ENTITIES',
  CAIRN_GAP_SCORE_THRESHOLD: 'CAIRN_ENRICH_GAP_SCORE_THRESHOLD',
  CAIRN_GAP_MIN_COVERAGE: 'CAIRN_ENRICH_GAP_MIN_COVERAGE',
};

/** The environment with each alias's value under its setting's name, unless that name is set itself. */
export function withSettingAliases(source: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const env = { ...source };
  for (const [alias, name] of Object.entries(SETTING_ALIASES))
    if (env[name] === undefined && env[alias] !== undefined) env[name] = env[alias];
  return env;
}

export const settingGroups = [
  { title: 'Server', settings: server },
  { title: 'Database', settings: database },
  { title: 'Embeddings', settings: embeddings },
  { title: 'Chunking', settings: chunking },
  { title: 'Search', settings: search },
  { title: 'Knowledge graph', settings: graph },
  { title: 'Graph extraction', settings: extraction },
  { title: 'enrichContext', settings: enrichment },
  { title: 'Documents and responses', settings: documents },
  { title: 'Imports and uploads', settings: imports },
  { title: 'Sources', settings: sources },
  { title: 'Access and request limits', settings: access },
] as const;

/** The environment as Cairn reads it, checked across settings. */
export const envSchema = z
  .object({
    ...server,
    ...database,
    ...embeddings,
    ...chunking,
    ...search,
    ...graph,
    ...extraction,
    ...enrichment,
    ...documents,
    ...imports,
    ...sources,
    ...access,
  })
  .superRefine((env, ctx) => {
    checkExtractors(env, ctx);
    if (env.CAIRN_DATABASE_REPLICA_URLS.length > 0 && !env.CAIRN_DATABASE_URL) {
      ctx.addIssue({
        code: 'custom',
        path: ['CAIRN_DATABASE_REPLICA_URLS'],
        message: 'needs CAIRN_DATABASE_URL: replicas serve the reads of a Postgres server, not of the embedded PGlite',
      });
    }
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
    if (env.CAIRN_IMPORT_SPEC_MAX_BYTES < env.CAIRN_IMPORT_MAX_BYTES) {
      ctx.addIssue({
        code: 'custom',
        path: ['CAIRN_IMPORT_SPEC_MAX_BYTES'],
        message: `must be at least CAIRN_IMPORT_MAX_BYTES (${env.CAIRN_IMPORT_MAX_BYTES}), or a spec of the largest allowed size could not load`,
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

/** The parsed environment, before it is shaped into a Config. */
export type Env = z.output<typeof envSchema>;

const EXTRACTOR_NAMES = ['structural', 'offline', 'llm'] as const;

/** The extractor list names known extractors, and `llm` comes with its model. */
function checkExtractors(
  env: { CAIRN_EXTRACTION_EXTRACTORS: string; CAIRN_EXTRACTION_LLM_MODEL?: string | undefined },
  ctx: z.RefinementCtx,
): void {
  const names = parseExtractorList(env.CAIRN_EXTRACTION_EXTRACTORS);
  const unknown = names.filter((n) => !(EXTRACTOR_NAMES as readonly string[]).includes(n));
  if (unknown.length > 0)
    ctx.addIssue({
      code: 'custom',
      path: ['CAIRN_EXTRACTION_EXTRACTORS'],
      message: `unknown extractor "${unknown[0]}": use a comma list of ${EXTRACTOR_NAMES.join(', ')}, or none`,
    });
  if (names.includes('llm') && env.CAIRN_EXTRACTION_LLM_MODEL === undefined)
    ctx.addIssue({
      code: 'custom',
      path: ['CAIRN_EXTRACTION_LLM_MODEL'],
      message: 'is required when CAIRN_EXTRACTION_EXTRACTORS includes llm (e.g. gpt-4o-mini, or llama3.1 on Ollama)',
    });
}

/** `structural, offline` → ['structural', 'offline']; `none` or empty → []. */
export function parseExtractorList(value: string): string[] {
  const names = value
    .split(',')
    .map((n) => n.trim().toLowerCase())
    .filter((n) => n !== '');
  return names.length === 1 && names[0] === 'none' ? [] : [...new Set(names)];
}
