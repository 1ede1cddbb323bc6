import type { SpaceService } from '../auth/SpaceService.js';
import type { Queryable } from '../db/Db.js';
import { outsideRequest } from '../db/readRoute.js';
import { currentSpaceScope, widenReads } from '../db/spaceScope.js';
import { AppError, ErrorCode, badInput } from '../errors.js';

/** One declaration: requests working in `space` also read `reads`. */
export interface SpaceRead {
  space: string;
  reads: string;
}

/**
 * Which spaces each space may read (the `space_reads` table): an admin declares a space (e.g. a company-wide `shared`
 * one) readable by another, whose requests that only read then see its knowledge as read-only context. Nothing is
 * cached: a declaration or its revocation applies from the next request, on every instance.
 */
export class SpaceReads {
  constructor(
    private readonly db: Queryable,
    private readonly spaces: Pick<SpaceService, 'missing'>,
  ) {}

  /**
   * Declares `reads` readable by `space` (idempotent). NOT_FOUND names a space that does not exist (or is being
   * deleted); BAD_USER_INPUT when both are the same space.
   */
  async allow(input: SpaceRead): Promise<void> {
    if (input.space === input.reads) throw badInput('input.reads', 'a space always reads itself; name another space');
    const missing = (await this.spaces.missing([input.space, input.reads]))[0];
    if (missing !== undefined)
      throw new AppError(ErrorCode.NOT_FOUND, `space "${missing.slice(0, 80)}" does not exist (see the spaces query)`, {
        space: missing.slice(0, 80),
      });
    await this.db.query('INSERT INTO space_reads (reader_space, read_space) VALUES ($1, $2) ON CONFLICT DO NOTHING', [
      input.space,
      input.reads,
    ]);
  }

  /** Revokes a declaration; NOT_FOUND when `space` does not read `reads`. */
  async revoke(input: SpaceRead): Promise<void> {
    const { rowCount } = await this.db.query('DELETE FROM space_reads WHERE reader_space = $1 AND read_space = $2', [
      input.space,
      input.reads,
    ]);
    if (rowCount === 0)
      throw new AppError(
        ErrorCode.NOT_FOUND,
        `space "${input.space.slice(0, 80)}" does not read "${input.reads.slice(0, 80)}" (see the spaces query)`,
        { space: input.space.slice(0, 80), reads: input.reads.slice(0, 80) },
      );
  }

  /** The spaces `space` reads besides itself, by id (a deletion forgets its space's declarations as it starts). */
  async readsOf(space: string): Promise<string[]> {
    const { rows } = await this.db.query<{ id: string }>(
      'SELECT read_space AS id FROM space_reads WHERE reader_space = $1 ORDER BY 1',
      [space],
    );
    return rows.map((r) => r.id);
  }

  /** Forgets every declaration naming `space`, either way: the first step of deleting it, so nothing reads it on. */
  async forgetSpace(space: string): Promise<void> {
    await this.db.query('DELETE FROM space_reads WHERE reader_space = $1 OR read_space = $1', [space]);
  }

  /** Every space's reads, by reader (spaces that read none are absent). */
  async all(): Promise<Map<string, string[]>> {
    const { rows } = await this.db.query<{ reader: string; id: string }>(
      'SELECT reader_space AS reader, read_space AS id FROM space_reads ORDER BY 1, 2',
    );
    const bySpace = new Map<string, string[]>();
    for (const r of rows) bySpace.set(r.reader, [...(bySpace.get(r.reader) ?? []), r.id]);
    return bySpace;
  }

  /**
   * Lets the running request read the spaces its space may read (see `widenReads`): for requests known to write
   * nothing (a GraphQL query, a reading MCP tool). Outside any request it does nothing (it reads every space already).
   */
  async widen(): Promise<void> {
    const scope = currentSpaceScope();
    if (!scope) return;
    // From the primary, never a lagging replica: a revocation applies to the next request.
    widenReads(await outsideRequest(() => this.readsOf(scope.space)));
  }
}
