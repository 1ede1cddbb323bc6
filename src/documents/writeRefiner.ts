import type { Queryable } from '../db/Db.js';
import type { DocumentRecord, DocumentInput } from './types.js';

/**
 * Fits each input of an upsert to what is already stored, inside the write's transaction, so that a merge with the
 * stored document (an import refreshing a page keeps the tags users gave it) is one atomic write and cannot lose a
 * concurrent update. It may also send an input to another id (a page already stored under another URL).
 */
export interface WriteRefiner {
  /** Ids besides the input's own whose stored documents decide its final form; they are locked with the write. */
  relatedIds(input: DocumentInput): string[];
  /**
   * The input to write, given the live documents among the input's id and its related ids. A document it finds by
   * other means through `q` it must lock with `FOR UPDATE` (taking no advisory lock, which could deadlock).
   */
  refine(input: DocumentInput, live: ReadonlyMap<string, DocumentRecord>, q: Queryable): Promise<DocumentInput>;
}

/** The ids a refiner wants locked for these inputs, their own included, once each. */
export function relatedIdsOf(inputs: readonly DocumentInput[], refiner: WriteRefiner): string[] {
  return [
    ...new Set(
      inputs.flatMap((input) => [...(input.id === undefined ? [] : [input.id]), ...refiner.relatedIds(input)]),
    ),
  ];
}

/** Refines each input in order against `live`, through `q`. */
export async function refineAll(
  inputs: readonly DocumentInput[],
  refiner: WriteRefiner,
  live: ReadonlyMap<string, DocumentRecord>,
  q: Queryable,
): Promise<DocumentInput[]> {
  const refined: DocumentInput[] = [];
  for (const input of inputs) refined.push(await refiner.refine(input, live, q));
  return refined;
}
