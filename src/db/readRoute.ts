import { AsyncLocalStorage } from 'node:async_hooks';
import type { Replica } from './ReplicaSet.js';

// Which server a request's statements may read from. The edge (GraphQL, MCP) runs each request inside a route; the
// replicated Db reads it. Outside any route (jobs, workers, the CLI, migrations) everything goes to the primary.

/** One request's reading route, filled in as the request is understood. */
export interface ReadRoute {
  /** Who is asking (an API key's id, or the local principal): whose writes this request must see. */
  client: string | undefined;
  /** True once the request is known to only read (a GraphQL query, a reading MCP tool): reads may use a replica. */
  replica: boolean;
  /** The replica the request settled on at its first read, so all its reads see one server's state (undefined: the primary). */
  chosen?: Promise<Replica | undefined>;
}

const storage = new AsyncLocalStorage<ReadRoute>();

/** Runs `fn` (and everything it starts) on `route`. */
export function runOnRoute<T>(route: ReadRoute, fn: () => T): T {
  return storage.run(route, fn);
}

/** Runs `fn` as background work of no request: its statements go to the primary and count as no client's writes. */
export function outsideRequest<T>(fn: () => T): T {
  return storage.exit(fn);
}

/** The running request's route, or undefined outside any request. */
export function currentRoute(): ReadRoute | undefined {
  return storage.getStore();
}

/** Lets the running request's reads use a replica (once the request is known to write nothing of its own). */
export function allowReplicaReads(): void {
  const route = storage.getStore();
  if (route) route.replica = true;
}

/**
 * Whether a statement only reads, so a replica can run it. Conservative: anything that may write, lock rows or take
 * an advisory lock goes to the primary (a read mistaken for a write only costs the primary a statement).
 */
export function isReadOnlyStatement(sql: string): boolean {
  return (
    /^\s*(SELECT|WITH)\b/i.test(sql) &&
    !/\b(INSERT|UPDATE|DELETE|MERGE|FOR\s+(NO\s+KEY\s+)?UPDATE|FOR\s+(KEY\s+)?SHARE|nextval|setval|pg_notify|pg_(try_)?advisory\w*|set_config)\b/i.test(
      sql,
    )
  );
}
