import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import type http from 'node:http';
import { Session, Transaction } from 'neo4j-driver';
import { currentRoute } from '../../src/db/readRoute.js';

// Statement budgets count one call's statements only. A Db opened with `onStatement: countStatement` tells each
// statement in the async context of the code that sent it, so it counts toward the `countStatements` call it runs
// under, if any: background work started outside the call (the extraction worker, the sweeper, the leader lock, the
// job poller, other requests) runs outside its context and never counts.

/** When a statement was sent and when it was answered (performance.now(); Infinity while unanswered). */
export interface StatementTime {
  sent: number;
  answered: number;
}

/** The statements of one `countStatements` call so far; closed when the call settles. */
interface Tally {
  postgres: number;
  neo4j: number;
  /** The Postgres statements' times, in the order sent. */
  postgresTimes: StatementTime[];
  open: boolean;
}

/**
 * Where a statement runs. `operationOnly`: in an HTTP request the call sent, whose statements count from where its
 * operation starts (its route, behind the guard): authentication, rate limits and the space check before it answer
 * from caches that expire every few seconds, so whether they send a statement depends on the clock. Work the request
 * hands to the background with `outsideRequest` (the knowledge gaps' flush) leaves the route, and the count, too.
 */
interface Scope {
  tally: Tally;
  operationOnly: boolean;
}

const current = new AsyncLocalStorage<Scope>();
/** The calls under way, by the id their HTTP requests carry (see `COUNTED_CALL_HEADER`). */
const byCallId = new Map<string, Tally>();
const callIds = new WeakMap<Tally, string>();

/** The header that ties a test's HTTP request to the `countStatements` call that sent it. */
export const COUNTED_CALL_HEADER = 'x-cairn-test-counted-call';

/** The running call's tally, if a statement sent here counts. */
function countingTally(): Tally | undefined {
  const scope = current.getStore();
  if (!scope?.tally.open) return undefined;
  if (scope.operationOnly && currentRoute() === undefined) return undefined;
  return scope.tally;
}

/**
 * A Db's `onStatement` (openDb's or createServices' option): counts the statement toward the running call, if any,
 * and records when it was sent and answered.
 */
export function countStatement(): (() => void) | undefined {
  const tally = countingTally();
  if (!tally) return undefined;
  tally.postgres++;
  const time: StatementTime = { sent: performance.now(), answered: Infinity };
  tally.postgresTimes.push(time);
  return () => {
    time.answered = performance.now();
  };
}

/** What a call returned and the statements it sent before it settled. */
export interface Counted<T> {
  value: T;
  /** Statements sent to Postgres or PGlite through a Db opened with `onStatement: countStatement`. */
  statements: number;
  /** Queries sent to Neo4j (auto-commit and in transactions). */
  neo4j: number;
  /** The longest chain of those Postgres statements each sent after the one before it was answered. */
  postgresChain: number;
}

/** The longest chain of statements each sent after the previous one in the chain was answered. */
export function longestChain(times: readonly StatementTime[]): number {
  const sorted = [...times].sort((a, b) => a.sent - b.sent);
  const chain: number[] = [];
  sorted.forEach((s, i) => {
    let longest = 1;
    for (let j = 0; j < i; j++)
      if ((sorted[j] as StatementTime).answered <= s.sent) longest = Math.max(longest, (chain[j] as number) + 1);
    chain.push(longest);
  });
  return Math.max(0, ...chain);
}

/**
 * Runs `fn` and counts the statements it sends, and those of the work it starts, until it settles: statements sent
 * meanwhile by anything else (background loops, other requests) do not count, nor do those of work it leaves running.
 * An HTTP request it sends through `TestServer.gql` counts from where the request's operation starts (see `Scope`).
 */
export async function countStatements<T>(fn: () => Promise<T>): Promise<Counted<T>> {
  const tally: Tally = { postgres: 0, neo4j: 0, postgresTimes: [], open: true };
  const id = randomUUID();
  byCallId.set(id, tally);
  callIds.set(tally, id);
  try {
    const value = await current.run({ tally, operationOnly: false }, fn);
    return {
      value,
      statements: tally.postgres,
      neo4j: tally.neo4j,
      postgresChain: longestChain(tally.postgresTimes),
    };
  } finally {
    tally.open = false;
    byCallId.delete(id);
  }
}

/** Runs `fn` outside any `countStatements` call, as background work does (for tests of the counter itself). */
export function uncounted<T>(fn: () => T): T {
  return current.exit(fn);
}

/** Headers for a test's HTTP request: they make the server count it toward the running `countStatements` call. */
export function countedCallHeaders(): Record<string, string> {
  const tally = current.getStore()?.tally;
  const id = tally?.open ? callIds.get(tally) : undefined;
  return id === undefined ? {} : { [COUNTED_CALL_HEADER]: id };
}

/**
 * Makes `httpServer` handle each request that carries `COUNTED_CALL_HEADER` in the context of the call that sent it,
 * and every other request outside any call (a keep-alive connection must not carry one request's call to the next).
 */
export function countRequestsOf(httpServer: http.Server): void {
  httpServer.prependListener('request', (req: http.IncomingMessage) => {
    const id = req.headers[COUNTED_CALL_HEADER];
    const tally = typeof id === 'string' ? byCallId.get(id) : undefined;
    // Entered on the connection's parser: the app's listener, which runs next, and the events of the request's body,
    // however late they arrive, run in the call's context.
    current.enterWith({ tally: tally ?? CLOSED, operationOnly: true });
  });
}

/** The tally of requests that no call sent. */
const CLOSED: Tally = { postgres: 0, neo4j: 0, postgresTimes: [], open: false };

function countNeo4jQuery(): void {
  const tally = countingTally();
  if (tally) tally.neo4j++;
}

// The Neo4j driver has no statement observer: its two ways to send a query count in the caller's context.
const sessionRun = Session.prototype.run;
const transactionRun = Transaction.prototype.run;
Session.prototype.run = function (this: Session, ...args: Parameters<Session['run']>) {
  countNeo4jQuery();
  return sessionRun.apply(this, args);
};
Transaction.prototype.run = function (this: Transaction, ...args: Parameters<Transaction['run']>) {
  countNeo4jQuery();
  return transactionRun.apply(this, args);
};
