import type { Queryable } from '../db/Db.js';
import { DEFAULT_SPACE } from '../db/spaceScope.js';
import { AppError, ErrorCode, badInput, notFound } from '../errors.js';
import type { Principal } from './roles.js';

/** A space: a part of the store that keys are bound to (see docs/security.md#spaces). */
export interface SpaceRecord {
  id: string;
  name: string;
  createdAt: Date;
}

/** Space ids: lower-case letters, digits, `_` and `-`, starting with a letter or digit (the table's CHECK). */
const SPACE_ID = /^[a-z0-9][a-z0-9_-]{0,62}$/;
const MAX_NAME = 100;

/** The header a request names its space with. */
export const SPACE_HEADER = 'cairn-space';

interface Row {
  id: string;
  name: string;
  created_at: Date;
}

const toRecord = (r: Row): SpaceRecord => ({ id: r.id, name: r.name, createdAt: r.created_at });

/** Validates a space id (`field` names it in the error). */
export function validateSpaceId(id: string, field = 'id'): string {
  const clean = id.trim();
  if (!SPACE_ID.test(clean))
    throw badInput(field, `"${clean.slice(0, 80)}" is not a valid space id: 1-63 of a-z, 0-9, _ and -, e.g. payments`);
  return clean;
}

/** A space's name, trimmed: 1 to MAX_NAME characters (`field` names it in the error). */
function validSpaceName(name: string, field: string): string {
  const clean = name.trim();
  if (clean === '' || clean.length > MAX_NAME) throw badInput(field, `must be 1 to ${MAX_NAME} characters`);
  return clean;
}

/** Creates and lists spaces (the `spaces` table), and decides which space a request works in. */
export class SpaceService {
  constructor(private readonly db: Queryable) {}

  /** Creates a space; CONFLICT when the id is taken. */
  async create(input: { id: string; name?: string | null }): Promise<SpaceRecord> {
    const id = validateSpaceId(input.id, 'input.id');
    const name = validSpaceName(input.name ?? id, 'input.name');
    const { rows } = await this.db.query<Row>(
      'INSERT INTO spaces (id, name) VALUES ($1, $2) ON CONFLICT (id) DO NOTHING RETURNING id, name, created_at',
      [id, name],
    );
    if (!rows[0]) throw new AppError(ErrorCode.CONFLICT, `space "${id}" already exists`, { id });
    return toRecord(rows[0]);
  }

  /** Gives a space a new name (its id stays); NOT_FOUND for an unknown id. */
  async rename(id: string, newName: string): Promise<SpaceRecord> {
    const name = validSpaceName(newName, 'name');
    const { rows } = await this.db.query<Row>(
      'UPDATE spaces SET name = $2 WHERE id = $1 AND deleting_at IS NULL RETURNING id, name, created_at',
      [id, name],
    );
    if (!rows[0]) throw notFound('Space', id);
    return toRecord(rows[0]);
  }

  /** Every space, by id (a space being deleted is gone already). */
  async list(): Promise<SpaceRecord[]> {
    const { rows } = await this.db.query<Row>(
      'SELECT id, name, created_at FROM spaces WHERE deleting_at IS NULL ORDER BY id',
    );
    return rows.map(toRecord);
  }

  /** The ids among `ids` that name no space (or one being deleted). */
  async missing(ids: readonly string[]): Promise<string[]> {
    if (ids.length === 0) return [];
    const { rows } = await this.db.query<{ id: string }>(
      'SELECT id FROM spaces WHERE id = ANY($1::text[]) AND deleting_at IS NULL',
      [ids],
    );
    const found = new Set(rows.map((r) => r.id));
    return ids.filter((id) => !found.has(id));
  }

  /**
   * Marks a space as being deleted: requests can no longer name it. True when it exists (being deleted already
   * included, so a deletion can be resumed); BAD_USER_INPUT for `default`.
   */
  async markDeleting(id: string): Promise<boolean> {
    if (id === DEFAULT_SPACE) throw badInput('id', 'the default space cannot be deleted; delete its documents instead');
    const { rows } = await this.db.query(
      'UPDATE spaces SET deleting_at = coalesce(deleting_at, now()) WHERE id = $1 RETURNING id',
      [id],
    );
    return rows.length > 0;
  }

  /** Removes a deleted space's row (the last step of its deletion); fails while rows of it remain anywhere. */
  async removeDeleted(id: string): Promise<void> {
    await this.db.query('DELETE FROM spaces WHERE id = $1 AND deleting_at IS NOT NULL', [id]);
  }

  /** True when the store has more spaces than `default`. */
  async several(): Promise<boolean> {
    const { rows } = await this.db.query<{ several: boolean }>(
      'SELECT EXISTS (SELECT 1 FROM spaces WHERE id <> $1) AS several',
      [DEFAULT_SPACE],
    );
    return rows[0]?.several === true;
  }

  /**
   * True when the caller may use what is not kept apart by space yet (extraction, curation, undo, the audit log):
   * while `default` is the only space, or for a key bound to every space working in `default`.
   */
  async unrestricted(principal: Principal, space: string): Promise<boolean> {
    if (space !== DEFAULT_SPACE) return false;
    return principal.spaces === null || !(await this.several());
  }

  /**
   * The space a request works in: the one its `Cairn-Space` header names, else the key's only space, else
   * `default`. A space the key is not bound to is FORBIDDEN, whether or not it exists, so the answer tells nothing
   * about other spaces; a key bound to every space gets NOT_FOUND for a space that does not exist.
   */
  async forRequest(principal: Principal, header: string | undefined): Promise<string> {
    const named = header?.trim();
    const bound = principal.spaces;
    if (named) {
      if (bound !== null && !bound.includes(named)) throw spaceForbidden(principal, named);
      if (bound === null && (await this.missing([named])).length > 0)
        throw new AppError(ErrorCode.NOT_FOUND, `space "${named.slice(0, 80)}" does not exist (see the spaces query)`, {
          space: named.slice(0, 80),
        });
      return named;
    }
    if (bound === null || bound.includes(DEFAULT_SPACE)) return DEFAULT_SPACE;
    if (bound.length === 1) return bound[0] as string;
    throw new AppError(
      ErrorCode.BAD_REQUEST,
      `this key works in several spaces (${bound.join(', ')}): name one with the Cairn-Space header`,
      { spaces: [...bound] },
    );
  }
}

/** FORBIDDEN for a space the key is not bound to. */
function spaceForbidden(principal: Principal, space: string): AppError {
  return new AppError(
    ErrorCode.FORBIDDEN,
    `this key (${principal.name}) may not use space "${space.slice(0, 80)}"; an admin binds keys to spaces with createApiKey(input: { spaces })`,
    { space: space.slice(0, 80) },
  );
}
