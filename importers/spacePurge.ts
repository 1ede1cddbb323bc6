import type { Db } from '../src/importerPort.js';

/**
 * Removes a space's import jobs (their items by cascade), sources (their items, by cascade) and uploads: the last of
 * what a space being deleted holds in the importers' tables. Its documents went through the document service first.
 * Returns how many rows went.
 */
export async function purgeImportsOfSpace(db: Db, space: string): Promise<number> {
  let removed = 0;
  for (const table of ['import_jobs', 'sources', 'uploads'] as const) {
    const { rowCount } = await db.query(`DELETE FROM ${table} WHERE space_id = $1`, [space]);
    removed += rowCount;
  }
  return removed;
}
