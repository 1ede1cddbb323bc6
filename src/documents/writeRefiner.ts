import type { Queryable } from '../db/Db.js';
import { lockOldestByMetadataValue } from './DocumentRepository.js';
import type { DocumentRecord, DocumentInput } from './types.js';

/** Stored documents a refiner may look up beyond the ones locked for it, inside the write's transaction. */
export interface StoredDocumentLookup {
  /**
   * The oldest live document whose `metadata[key]` (a string) is one of `values`, locked FOR UPDATE; `key` must be a
   * plain identifier (an expression index on it serves the lookup).
   */
  lockOldestByMetadataValue(key: string, values: readonly string[]): Promise<DocumentRecord | undefined>;
}

/**
 * Fits each input of an upsert to what is already stored, inside the write's transaction, so that a merge with the
 * stored document (an import refreshing a page keeps the tags users gave it) is one atomic write and cannot lose a
 * concurrent update. It may also send an input to another id (a page already stored under another URL).
 */
export interface WriteRefiner {
  /** Ids besides the input's own whose stored documents decide its final form; they are locked with the write. */
  relatedIds(input: DocumentInput): string[];
  /**
   * The input to write, given the live documents among the input's id and its related ids; others it finds through
   * `stored`, which locks what it returns (and takes no advisory lock, which could deadlock).
   */
  refine(
    input: DocumentInput,
    live: ReadonlyMap<string, DocumentRecord>,
    stored: StoredDocumentLookup,
  ): Promise<DocumentInput>;
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
  const stored: StoredDocumentLookup = {
    lockOldestByMetadataValue: (key, values) => lockOldestByMetadataValue(q, key, values),
  };
  const refined: DocumentInput[] = [];
  for (const input of inputs) refined.push(await refiner.refine(input, live, stored));
  return refined;
}
