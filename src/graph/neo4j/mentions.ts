import type { SpacedTransaction } from './Neo4jConnection.js';
import type { MentionOp } from '../types.js';
import { LINK_MENTIONS, UNLINK_DOCUMENTS, UNLINK_MENTIONS } from './cypher.js';
import { chunks } from './mapping.js';

/** Consecutive ops of the same kind, applied as one UNWIND per chunk; order across kinds is kept. */
function runs(ops: readonly MentionOp[]): MentionOp[][] {
  const out: MentionOp[][] = [];
  for (const op of ops) {
    const last = out.at(-1);
    if (last && last[0]?.op === op.op) last.push(op);
    else out.push([op]);
  }
  return out;
}

/**
 * Mirrors mention ops in `tx`: `link` merges the document and an entity→document MENTIONED_IN edge (skipped when the
 * entity does not exist), `unlinkDocument` drops the document and its edges, `unlink` drops one edge (and the
 * document once nothing mentions it). Every op is idempotent, so a batch can be applied twice.
 */
export async function applyMentionOps(
  tx: SpacedTransaction,
  ops: readonly MentionOp[],
  chunkSize: number,
): Promise<void> {
  for (const run of runs(ops)) {
    for (const chunk of chunks(run, chunkSize)) {
      const rows: Record<string, string | null>[] = [];
      const documentIds: string[] = [];
      for (const op of chunk) {
        if (op.op === 'link')
          rows.push({
            entityId: op.entityId,
            documentId: op.documentId,
            documentTitle: op.documentTitle,
            space: op.space ?? null,
          });
        else if (op.op === 'unlink') rows.push({ entityId: op.entityId, documentId: op.documentId });
        else documentIds.push(op.documentId);
      }
      const kind = chunk[0]?.op;
      if (kind === 'link') await tx.run(LINK_MENTIONS, { rows });
      else if (kind === 'unlink') await tx.run(UNLINK_MENTIONS, { rows });
      else if (kind === 'unlinkDocument') await tx.run(UNLINK_DOCUMENTS, { ids: [...new Set(documentIds)] });
    }
  }
}
