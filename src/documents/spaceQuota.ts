import type { Queryable } from '../db/Db.js';
import { writeSpace } from '../db/spaceScope.js';
import { AppError, ErrorCode } from '../errors.js';
import type { SpaceQuota } from './validateInput.js';

/** Advisory-lock space of a space's quota check (see KeyedLock for the others). */
const QUOTA_LOCK = 0x5155;

/**
 * Refuses (QUOTA_EXCEEDED) a write that left the space it wrote to over a quota. Runs in the write's transaction after
 * its rows are in, so its own writes count and a refusal rolls all of them back; the space's writers take turns at the
 * check (a transaction-scoped lock), so two concurrent writes cannot both slip under the quota. Free when no quota is set.
 */
export async function enforceSpaceQuota(tx: Queryable, quota: SpaceQuota | undefined): Promise<void> {
  if (!quota || (quota.documents <= 0 && quota.chunks <= 0)) return;
  const space = writeSpace();
  await tx.query('SELECT pg_advisory_xact_lock($1::int, hashtext($2::text))', [QUOTA_LOCK, space]);
  const { rows } = await tx.query<{ documents: number; chunks: number }>(
    `SELECT (SELECT count(*)::int FROM documents d WHERE d.space_id = $1) AS documents,
            (SELECT count(*)::int FROM chunks c WHERE c.space_id = $1) AS chunks`,
    [space],
  );
  const found = rows[0] ?? { documents: 0, chunks: 0 };
  for (const [kind, env] of [
    ['documents', 'CAIRN_SPACE_MAX_DOCUMENTS'],
    ['chunks', 'CAIRN_SPACE_MAX_CHUNKS'],
  ] as const) {
    const max = quota[kind];
    if (max > 0 && found[kind] > max)
      throw new AppError(
        ErrorCode.QUOTA_EXCEEDED,
        `space "${space}" would hold ${found[kind]} ${kind}; its quota is ${max} (${env}). Delete some, or raise the quota`,
        { space, limit: kind, max, found: found[kind], env },
      );
  }
}
