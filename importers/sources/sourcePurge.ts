import type { Db } from '../../src/importerPort.js';

/** Deletes a space's sources (their items by cascade): part of deleting the space. Returns how many. */
export async function deleteSourcesOfSpace(db: Db, space: string): Promise<number> {
  const { rowCount } = await db.query('DELETE FROM sources WHERE space_id = $1', [space]);
  return rowCount;
}
