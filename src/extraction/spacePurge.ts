import type { Db } from '../db/Db.js';
import { lockEvidenceSupport } from './EvidenceRepository.js';

/**
 * Removes what extraction keeps of a space being deleted: the evidence of its documents (whose rows outlive a deleted
 * document until the worker cleans them up) and its rows of the queue. Its entities, and so the facts they were, are
 * deleted through the graph. Returns how many queue rows went.
 */
export async function purgeExtractionOfSpace(db: Db, space: string): Promise<number> {
  return db.transaction(async (tx) => {
    await lockEvidenceSupport(tx);
    await tx.query(
      `DELETE FROM extraction_evidence e USING extraction_documents d
        WHERE d.space_id = $1 AND e.document_id = d.document_id`,
      [space],
    );
    const { rowCount } = await tx.query('DELETE FROM extraction_documents WHERE space_id = $1', [space]);
    return rowCount;
  });
}
