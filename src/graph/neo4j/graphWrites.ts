import neo4j from 'neo4j-driver';
import { notFound } from '../../errors.js';
import type { EntityRecord, Origin, RelationshipRecord, RelationshipWrite } from '../types.js';
import { entityIdTaken } from '../validateGraphInput.js';
import * as Q from './cypher.js';
import type { SpacedTransaction } from './Neo4jConnection.js';
import {
  chunks,
  groupBy,
  relationshipKey,
  relationshipParams,
  writtenEntity,
  writtenRelationship,
  type EntityParams,
} from './mapping.js';

// The Neo4j store's batch upserts, each inside the caller's write transaction (throwing rolls it back).

/** Rows per UNWIND statement. */
export const CHUNK = 2_000;

const int = (n: number) => neo4j.int(Math.max(0, Math.floor(n)));

/** Upserts entity rows (unique, sorted by id) in UNWIND batches; the written records by id. */
export async function upsertEntitiesTx(
  tx: SpacedTransaction,
  rows: readonly EntityParams[],
  nowMs: number,
): Promise<Map<string, EntityRecord>> {
  const written = new Map<string, EntityRecord>();
  for (const chunk of chunks(rows, CHUNK)) {
    const res = await tx.run(Q.UPSERT_ENTITIES, { rows: chunk, now: int(nowMs), reserved: [...Q.RESERVED_LABELS] });
    const kept = new Map(res.records.map((r) => [r.get('id') as string, r]));
    // Entity ids are unique across spaces: an id another space holds is refused.
    const taken = chunk.find((row) => !kept.has(row.id));
    if (taken) throw entityIdTaken(taken.id);
    for (const row of chunk) {
      const r = kept.get(row.id);
      const createdAt = (r?.get('createdAt') as number | undefined) ?? nowMs;
      written.set(row.id, writtenEntity(row, createdAt, nowMs, (r?.get('origin') as Origin | undefined) ?? 'MANUAL'));
    }
  }
  return written;
}

/**
 * Upserts relationships (unique by (from, type, to)) by type in UNWIND batches; the written records by key. NOT_FOUND
 * names the first missing endpoint in `order` (the caller's input order).
 */
export async function upsertRelationshipsTx(
  tx: SpacedTransaction,
  unique: readonly RelationshipWrite[],
  order: readonly RelationshipWrite[],
  nowMs: number,
): Promise<Map<string, RelationshipRecord>> {
  const written = new Map<string, RelationshipRecord>();
  for (const [type, group] of groupBy(unique, (r) => r.type)) {
    for (const chunk of chunks(group, CHUNK)) {
      const res = await tx.run(Q.upsertRelationshipsQuery(type), {
        rows: chunk.map(relationshipParams),
        now: int(nowMs),
      });
      const kept = new Map(res.records.map((r) => [r.get('key') as string, r]));
      for (const w of chunk) {
        const r = kept.get(relationshipKey(w.fromId, w.type, w.toId));
        if (!r) continue;
        const createdAt = (r.get('createdAt') as number | null) ?? nowMs;
        written.set(
          r.get('key') as string,
          writtenRelationship(w, r.get('id') as string, createdAt, r.get('origin') as Origin),
        );
      }
    }
  }
  // Rows with a missing endpoint wrote nothing.
  if (written.size < unique.length) {
    await assertEntitiesExist(tx, [...new Set(unique.flatMap((r) => [r.fromId, r.toId]))], order);
    throw new Error(`Neo4j wrote ${written.size} of ${unique.length} relationships with all endpoints present`);
  }
  return written;
}

/** Throws NOT_FOUND for the first missing endpoint in input order, if any. */
async function assertEntitiesExist(
  tx: SpacedTransaction,
  ids: readonly string[],
  order: readonly RelationshipWrite[],
): Promise<void> {
  const res = await tx.run(Q.MISSING_ENTITIES, { ids });
  const missing = new Set((res.records[0]?.get('missing') as string[] | undefined) ?? []);
  if (missing.size === 0) return;
  for (const r of order) for (const id of [r.fromId, r.toId]) if (missing.has(id)) throw notFound('Entity', id);
  throw notFound('Entity', [...missing][0] as string);
}
