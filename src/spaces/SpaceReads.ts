import type { Queryable } from '../db/Db.js';
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
  constructor(private readonly db: Queryable) {}

  /**
   * Declares `reads` readable by `space` (idempotent). NOT_FOUND names a space that does not exist (or is being
   * deleted); BAD_USER_INPUT when both are the same space.
   */
  async allow(input: SpaceRead): Promise<void> {
    if (input.space === input.reads) throw badInput('input.reads', 'a space always reads itself; name another space');
    const { rows } = await this.db.query<{ inserted: boolean }>(
      `WITH live AS (SELECT id FROM spaces WHERE id = ANY($3::text[]) AND deleting_at IS NULL)
       INSERT INTO space_reads (reader_space, read_space)
       SELECT $1, $2 WHERE (SELECT count(*) FROM live) = 2
       ON CONFLICT DO NOTHING RETURNING true AS inserted`,
      [input.space, input.reads, [input.space, input.reads]],
    );
    if (rows[0]) return;
    await this.requireSpaces(input);
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

  /** The spaces `space` reads besides itself, by id (none being deleted). */
  async readsOf(space: string): Promise<string[]> {
    const { rows } = await this.db.query<{ id: string }>(
      `SELECT r.read_space AS id FROM space_reads r JOIN spaces s ON s.id = r.read_space
        WHERE r.reader_space = $1 AND s.deleting_at IS NULL ORDER BY 1`,
      [space],
    );
    return rows.map((r) => r.id);
  }

  /** Every space's reads, by reader (spaces that read none are absent). */
  async all(): Promise<Map<string, string[]>> {
    const { rows } = await this.db.query<{ reader: string; id: string }>(
      `SELECT r.reader_space AS reader, r.read_space AS id FROM space_reads r JOIN spaces s ON s.id = r.read_space
        WHERE s.deleting_at IS NULL ORDER BY 1, 2`,
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
    widenReads(await this.readsOf(scope.space));
  }

  /** NOT_FOUND for the first of the two spaces that does not exist (or is being deleted). */
  private async requireSpaces(input: SpaceRead): Promise<void> {
    const { rows } = await this.db.query<{ id: string }>(
      'SELECT id FROM spaces WHERE id = ANY($1::text[]) AND deleting_at IS NULL',
      [[input.space, input.reads]],
    );
    const found = new Set(rows.map((r) => r.id));
    const missing = [input.space, input.reads].find((id) => !found.has(id));
    if (missing !== undefined)
      throw new AppError(ErrorCode.NOT_FOUND, `space "${missing.slice(0, 80)}" does not exist (see the spaces query)`, {
        space: missing.slice(0, 80),
      });
  }
}
