import type { Db } from '../src/importerPort.js';
import { deleteJobsOfSpace } from './jobs/jobPurge.js';
import { deleteSourcesOfSpace } from './sources/sourcePurge.js';
import { deleteUploadsOfSpace } from './uploads/uploadPurge.js';

/**
 * Removes a space's import jobs, sources and uploads (each by its owner): the last of what a space being deleted
 * holds in the importers' tables. Its documents went through the document service first. Returns how many rows went.
 */
export async function purgeImportsOfSpace(db: Db, space: string): Promise<number> {
  return (
    (await deleteSourcesOfSpace(db, space)) +
    (await deleteJobsOfSpace(db, space)) +
    (await deleteUploadsOfSpace(db, space))
  );
}
