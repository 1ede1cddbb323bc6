import type { Db } from '../../src/importerPort.js';

/** Deletes a space's import jobs (their items by cascade): part of deleting the space. Returns how many. */
export async function deleteJobsOfSpace(db: Db, space: string): Promise<number> {
  const { rowCount } = await db.query('DELETE FROM import_jobs WHERE space_id = $1', [space]);
  return rowCount;
}
