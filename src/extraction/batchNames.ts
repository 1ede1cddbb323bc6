import type { NamedEntity } from '../graph/mentions/EntityNameLookup.js';
import type { ExtractionRepository } from './ExtractionRepository.js';
import { nameKeys } from './nameKey.js';
import { lookupKeys, type Resolution, type ResolutionCandidate, type ResolutionContext } from './resolveEntities.js';

/** Fuzzy-match candidates read per key prefix. */
export const FUZZY_CANDIDATES_PER_PREFIX = 200;

/**
 * The recorded names a batch of documents resolves against, read once for the whole batch (three statements, not
 * three per document), plus the new entities the batch's earlier documents named: a later document of the batch
 * finds them as it would have found them recorded had it been extracted after them.
 */
export class BatchNames {
  private readonly byKey = new Map<string, NamedEntity[]>();
  private readonly byPrefix = new Map<string, NamedEntity[]>();
  private readonly ids = new Set<string>();

  private constructor(
    known: readonly NamedEntity[],
    private readonly rejectedKeys: ReadonlySet<string>,
    private readonly fuzzyThreshold: number,
  ) {
    for (const e of known) this.add(e);
  }

  /** Reads the names every candidate of the batch may resolve to. */
  static async load(
    candidates: readonly ResolutionCandidate[],
    repository: ExtractionRepository,
    fuzzyThreshold: number,
  ): Promise<BatchNames> {
    const { keys, prefixes } = lookupKeys(candidates);
    const [byKey, byPrefix, rejectedKeys] = await Promise.all([
      repository.names.byKeys(keys),
      repository.names.byKeyPrefixes(prefixes, FUZZY_CANDIDATES_PER_PREFIX),
      repository.rejections.rejected(keys),
    ]);
    const known = new Map([...byKey, ...byPrefix].map((e) => [e.entityId, e]));
    return new BatchNames([...known.values()], rejectedKeys, fuzzyThreshold);
  }

  /** What one document's candidates are compared with: the names sharing a key or a key prefix with them. */
  contextFor(candidates: readonly ResolutionCandidate[]): ResolutionContext {
    const { keys, prefixes } = lookupKeys(candidates);
    const known = new Map<string, NamedEntity>();
    for (const list of [...keys.map((k) => this.byKey.get(k)), ...prefixes.map((p) => this.byPrefix.get(p))])
      for (const e of list ?? []) if (!known.has(e.entityId)) known.set(e.entityId, e);
    return { known: [...known.values()], rejectedKeys: this.rejectedKeys, fuzzyThreshold: this.fuzzyThreshold };
  }

  /** Makes a document's new entities known to the documents of the batch resolved after it. */
  remember(found: readonly { candidate: ResolutionCandidate; resolution: Resolution }[]): void {
    const seen = new Set<string>();
    for (const { candidate, resolution } of found) {
      if (resolution.tier !== 'new' || seen.has(resolution.entityId) || this.ids.has(resolution.entityId)) continue;
      seen.add(resolution.entityId);
      const keys = nameKeys(candidate.name, candidate.aliases);
      if (keys.length === 0) continue;
      this.add({
        entityId: resolution.entityId,
        name: candidate.name.trim(),
        aliases: [...(candidate.aliases ?? [])],
        type: candidate.type,
        origin: 'EXTRACTED',
        keys,
      });
    }
  }

  private add(e: NamedEntity): void {
    this.ids.add(e.entityId);
    for (const key of new Set(e.keys)) listIn(this.byKey, key).push(e);
    const prefix = (e.keys[0] ?? '').slice(0, 3);
    if (prefix.length === 3) listIn(this.byPrefix, prefix).push(e);
  }
}

function listIn(map: Map<string, NamedEntity[]>, key: string): NamedEntity[] {
  const list = map.get(key) ?? [];
  map.set(key, list);
  return list;
}
