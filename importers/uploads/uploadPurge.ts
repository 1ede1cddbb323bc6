import type { Db } from '../../src/importerPort.js';

/** Deletes a space's uploads: part of deleting the space. Returns how many. */
export async function deleteUploadsOfSpace(db: Db, space: string): Promise<number> {
  const { rowCount } = await db.query('DELETE FROM uploads WHERE space_id = $1', [space]);
  return rowCount;
}
