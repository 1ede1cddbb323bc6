import { AsyncLocalStorage } from 'node:async_hooks';
import type { SqlParams } from './SqlParams.js';

// Spaces are enforced in one place: this module. A request runs inside `runInSpace` (the server does it once the key
// and its space are known), and every statement that reads or writes a spaced table takes its condition from
// `spaceSql` and its write space from `writeSpace`. Work outside any request (the CLI, workers, migrations) runs
// unscoped: it sees every space, as the whole store did before spaces. test/unit/db/spaceScope.test.ts fails when a
// statement reading a spaced table neither applies `spaceSql` nor is listed there with the reason it may not.

/** The space everything lives in until someone creates another. */
export const DEFAULT_SPACE = 'default';

/**
 * The space a request works in: it writes there, and reads `space` plus, once the request is known to only read (a
 * GraphQL query, a reading MCP tool), the spaces an admin declared readable by it (`reads`, `space` first).
 */
export interface SpaceScope {
  readonly space: string;
  reads: readonly string[];
}

const current = new AsyncLocalStorage<SpaceScope>();

/** Runs `fn` (and everything it starts) in `space`, reading that space only until `widenReads`. */
export function runInSpace<T>(space: string, fn: () => T): T {
  return current.run({ space, reads: [space] }, fn);
}

/**
 * Lets the running request's reads of knowledge (`readSpaceSql`) also see `readable`, the spaces its space may read:
 * called once a request is known to write nothing (see docs/security.md#reading-other-spaces). Its writes, and every
 * statement that locks or changes rows (`spaceSql`), stay in its own space.
 */
export function widenReads(readable: readonly string[]): void {
  const scope = current.getStore();
  if (!scope) return;
  scope.reads = [scope.space, ...readable.filter((s) => s !== scope.space)];
}

/** The spaces the running request reads knowledge from (its own first); undefined outside any request. */
export function readSpaces(): readonly string[] | undefined {
  return current.getStore()?.reads;
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

/**
 * `spaceSql` for plain reads of knowledge (documents, chunks, entities, relationships, mentions, entity names): the
 * request's space and the spaces it may read (`widenReads`). Never for a statement that writes or locks rows:
 * test/unit/db/spaceScope.test.ts holds it to that.
 */
export function readSpaceSql(alias: string, params: SqlParams | unknown[]): string {
  return readSpaceSqlFor(params)(alias);
}

/** `spaceSql` for statements that name several spaced aliases: one parameter, a condition per alias. */
export function spaceSqlFor(params: unknown[]): (alias: string) => string {
  const scope = current.getStore();
  if (scope === undefined) return () => 'TRUE';
  const placeholder = `$${params.push(scope.space)}`;
  return (alias) => `${alias}.space_id = ${placeholder}::text`;
}

/** `readSpaceSql` for statements that name several aliases; one space keeps the plain equality (and its plans). */
export function readSpaceSqlFor(params: SqlParams | unknown[]): (alias: string) => string {
  const scope = current.getStore();
  if (scope === undefined) return () => 'TRUE';
  const value = scope.reads.length === 1 ? scope.space : [...scope.reads];
  const placeholder = Array.isArray(params) ? `$${params.push(value)}` : params.add(value);
  if (typeof value === 'string') return (alias) => `${alias}.space_id = ${placeholder}::text`;
  return (alias) => `${alias}.space_id = ANY(${placeholder}::text[])`;
}
