import neo4j, {
  Neo4jError,
  isRetriableError,
  type Driver,
  type ManagedTransaction,
  type Record as Neo4jRecord,
} from 'neo4j-driver';
import { currentSpaceScope, writeSpace } from '../../db/spaceScope.js';
import { AppError, ErrorCode, isAppError } from '../../errors.js';
import type { Logger } from '../../logger.js';
import { enableTcpNoDelay } from './tcpNoDelay.js';

/** How to reach Neo4j. */
export interface Neo4jOptions {
  uri: string;
  user: string;
  password: string;
  /** Database name; the server default when absent (Community has only `neo4j`). */
  database?: string;
  logger?: Logger;
}

/** What a unit of work may run: statements, each given the space parameters (`spaceParams`). */
export type SpacedTransaction = Pick<ManagedTransaction, 'run'>;

/**
 * The parameters every statement gets, from the running request's space scope: `$spaces` (the spaces reads keep to:
 * its own and those it reads), `$space` (its own, which statements that write keep to), both null outside any
 * request, and `$writeSpace` (where new nodes go). Taken when the unit of work starts.
 */
export function spaceParams(): { space: string | null; spaces: string[] | null; writeSpace: string } {
  const scope = currentSpaceScope();
  return { space: scope?.space ?? null, spaces: scope ? [...scope.reads] : null, writeSpace: writeSpace() };
}

/** `tx` whose statements carry `space` (a statement's own parameters of those names win). */
function spaced(tx: ManagedTransaction, space: ReturnType<typeof spaceParams>): SpacedTransaction {
  return {
    run: ((query: string, params?: Record<string, unknown>) =>
      tx.run(query, { ...space, ...params })) as ManagedTransaction['run'],
  };
}

/** How long a unit of work keeps retrying transient failures (driver default: 30 s, too long for a request). */
const MAX_RETRY_MS = 3_000;
const CONNECT_TIMEOUT_MS = 5_000;

/** True when a schema statement failed only because an equivalent index or constraint exists (a concurrent creator). */
export function isSchemaAlreadyThere(err: unknown): boolean {
  const code = err instanceof Neo4jError ? err.code : '';
  return (
    code === 'Neo.ClientError.Schema.EquivalentSchemaRuleAlreadyExists' ||
    code === 'Neo.ClientError.Schema.IndexAlreadyExists' ||
    code === 'Neo.ClientError.Schema.ConstraintAlreadyExists'
  );
}

/** The URI without credentials, safe for messages and logs. */
export function safeUri(uri: string): string {
  try {
    const u = new URL(uri);
    u.username = '';
    u.password = '';
    return u.toString().replace(/\/$/, '');
  } catch {
    return uri.replace(/\/\/[^@/]*@/, '//');
  }
}

const UNAVAILABLE_CODES = new Set([
  'ServiceUnavailable',
  'SessionExpired',
  'Neo.ClientError.Database.DatabaseNotFound',
  'Neo.TransientError.General.DatabaseUnavailable',
]);
const AUTH_CODES = new Set([
  'Neo.ClientError.Security.Unauthorized',
  'Neo.ClientError.Security.AuthenticationRateLimit',
  'Neo.ClientError.Security.CredentialsExpired',
]);
const NETWORK_MESSAGE =
  /ECONNREFUSED|ECONNRESET|ENOTFOUND|EHOSTUNREACH|ETIMEDOUT|EAI_AGAIN|socket hang up|Connection acquisition timed out|Failed to connect/i;

/** Why an error means the server cannot be used (connection, credentials, database), or undefined. */
function unavailableReason(err: unknown): string | undefined {
  const code = err instanceof Neo4jError ? err.code : (err as { code?: unknown } | null)?.code;
  const full = err instanceof Error ? err.message : String(err);
  // The driver's connection errors are long advice texts ending in "Caused by: <socket error>": keep the cause.
  const message = full.includes('Caused by: ') ? (full.split('Caused by: ').at(-1) ?? full).trim() : full;
  if (typeof code === 'string' && AUTH_CODES.has(code)) return `authentication failed (${message})`;
  if (typeof code === 'string' && UNAVAILABLE_CODES.has(code)) return message;
  if (NETWORK_MESSAGE.test(full)) return message;
  return undefined;
}

/** One driver (connection pool) with a session per unit of work; translates connection failures to GRAPH_UNAVAILABLE. */
export class Neo4jConnection {
  readonly driver: Driver;
  readonly uri: string;
  private readonly database: string | undefined;

  constructor(private readonly options: Neo4jOptions) {
    enableTcpNoDelay(); // the driver's sockets keep Nagle on: small requests would wait for delayed ACKs
    this.uri = safeUri(options.uri);
    this.database = options.database;
    const logger = options.logger;
    this.driver = neo4j.driver(options.uri, neo4j.auth.basic(options.user, options.password), {
      disableLosslessIntegers: true,
      maxTransactionRetryTime: MAX_RETRY_MS,
      connectionTimeout: CONNECT_TIMEOUT_MS,
      connectionAcquisitionTimeout: MAX_RETRY_MS * 2,
      userAgent: 'cairn',
      ...(logger
        ? {
            logging: {
              level: 'warn' as const,
              logger: (level: string, message: string) => logger.warn({ neo4jLevel: level, uri: this.uri }, message),
            },
          }
        : {}),
    });
  }

  /** Runs `work` in a read transaction (retried on transient errors, so it must be repeatable). */
  async read<T>(work: (tx: SpacedTransaction) => Promise<T>): Promise<T> {
    const space = spaceParams();
    const session = this.driver.session({ database: this.database, defaultAccessMode: neo4j.session.READ });
    try {
      return await session.executeRead((tx) => work(spaced(tx, space)));
    } finally {
      await session.close();
    }
  }

  /**
   * Runs one read-only statement as an auto-commit query and returns its records. One round trip instead of a managed
   * transaction's three (BEGIN/RUN, PULL, COMMIT), which saves client CPU (bench/RESULTS.md). Retryable failures are
   * retried with backoff for up to MAX_RETRY_MS, as managed transactions are.
   */
  async readQuery(cypher: string, params: Record<string, unknown> = {}): Promise<Neo4jRecord[]> {
    const started = Date.now();
    const withSpace = { ...spaceParams(), ...params };
    for (let attempt = 0; ; attempt++) {
      const session = this.driver.session({ database: this.database, defaultAccessMode: neo4j.session.READ });
      try {
        return (await session.run(cypher, withSpace)).records;
      } catch (err) {
        if (!isRetriableError(err) || Date.now() - started >= MAX_RETRY_MS) throw err;
        await new Promise((resolve) => setTimeout(resolve, Math.min(1_000, 50 * 2 ** attempt)));
      } finally {
        await session.close();
      }
    }
  }

  /** Runs `work` in a write transaction (retried on transient errors, so it must be idempotent). */
  async write<T>(work: (tx: SpacedTransaction) => Promise<T>): Promise<T> {
    const space = spaceParams();
    const session = this.driver.session({ database: this.database, defaultAccessMode: neo4j.session.WRITE });
    try {
      return await session.executeWrite((tx) => work(spaced(tx, space)));
    } finally {
      await session.close();
    }
  }

  /** Checks once, without retrying, that the database answers a query with these credentials. */
  async verify(): Promise<void> {
    const session = this.driver.session({ database: this.database, defaultAccessMode: neo4j.session.READ });
    try {
      await session.run('RETURN 1');
    } finally {
      await session.close();
    }
  }

  /** Runs `fn`, turning connection failures into GRAPH_UNAVAILABLE; AppErrors and other errors pass through. */
  async guard<T>(operation: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      if (isAppError(err)) throw err;
      const reason = unavailableReason(err);
      if (reason === undefined) throw err;
      this.options.logger?.warn({ err, uri: this.uri, operation }, 'Neo4j is unavailable');
      throw new AppError(
        ErrorCode.GRAPH_UNAVAILABLE,
        `Neo4j at ${this.uri} is unreachable: ${reason}. Check CAIRN_NEO4J_URI, CAIRN_NEO4J_USER and CAIRN_NEO4J_PASSWORD, and that the server is running.`,
        { uri: this.uri },
        { cause: err },
      );
    }
  }

  /** Closes the driver and its connections. */
  async close(): Promise<void> {
    await this.driver.close();
  }
}
