import { AsyncLocalStorage } from 'node:async_hooks';
import type { SqlParams } from './SqlParams.js';

// Spaces are enforced in one place: this module. A request runs inside `runInSpace` (the server does it once the key
// and its space are known), and every statement that reads or writes a spaced table takes its condition from
// `spaceSql` and its write space from `writeSpace`. Work outside any request (the CLI, workers, migrations) runs
// unscoped: it sees every space, as the whole store did before spaces. test/unit/db/spaceScope.test.ts fails when a
// statement reading a spaced table neither applies `spaceSql` nor is listed there with the reason it may not.

/** The space everything lives in until someone creates another. */
export const DEFAULT_SPACE = 'default';

/** The space a request works in: it reads `space` only and writes there. */
export interface SpaceScope {
  space: string;
}

const current = new AsyncLocalStorage<SpaceScope>();

/** Runs `fn` (and everything it starts) in `space`. */
export function runInSpace<T>(space: string, fn: () => T): T {
  return current.run(Object.freeze({ space }), fn);
}

/**
 * Runs `fn` outside any request's space (it sees every space): for background work a request only set off, such as
 * the job runner's poll, which must find jobs of every space and then runs each in its own.
 */
export function runOutsideSpaces<T>(fn: () => T): T {
  return current.exit(fn);
}

/** The scope of the running request, or undefined outside any (CLI, workers). */
export function currentSpaceScope(): SpaceScope | undefined {
  return current.getStore();
}

/** The space new rows go to: the request's, else `default`. */
export function writeSpace(): string {
  return current.getStore()?.space ?? DEFAULT_SPACE;
}

/**
 * The SQL condition that keeps rows of alias `alias` (a table with a `space_id` column) in the running request's
 * space; `TRUE` outside any request. The space travels as a parameter.
 */
export function spaceSql(alias: string, params: SqlParams | unknown[]): string {
  const scope = current.getStore();
  if (scope === undefined) return 'TRUE';
  const placeholder = Array.isArray(params) ? `$${params.push(scope.space)}` : params.add(scope.space);
  return `${alias}.space_id = ${placeholder}::text`;
}

/** True when a row of `space` is visible to the running request (for rows read before the scope was known). */
export function inCurrentSpace(space: string): boolean {
  const scope = current.getStore();
  return scope === undefined || scope.space === space;
}

/** `spaceSql` for statements that name several spaced aliases: one parameter, a condition per alias. */
export function spaceSqlFor(params: unknown[]): (alias: string) => string {
  const scope = current.getStore();
  if (scope === undefined) return () => 'TRUE';
  const placeholder = `$${params.push(scope.space)}`;
  return (alias) => `${alias}.space_id = ${placeholder}::text`;
}
