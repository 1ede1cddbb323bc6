import { writeSpace } from '../db/spaceScope.js';
import type { NamedEntity } from '../graph/mentions/EntityNameLookup.js';
import { compatibleTypes, isGenericType, typeFamily } from './entityTypes.js';
import type { CandidateKind } from './types.js';
import { extractedEntityId, fuzzyMatches, nameKey, nameKeys, trigramSimilarity } from './nameKey.js';

/** A name to resolve to an entity. */
export interface ResolutionCandidate {
  name: string;
  type: string;
  aliases?: readonly string[];
  /** How the extractor found it; a key term's plain word never joins code of the same spelling. */
  kind?: CandidateKind;
}

const PLAIN_WORD = /^\p{Ll}[\p{Ll}\d]*$/u;

/**
 * True when a candidate and an entity type would join a common word of prose to code spelled alike: the term
 * "config" (the project's configuration) is not the `config` hook, nor the word "build" the `build` command. A plain
 * lower-case word found as a key term never joins a specific type, and found as code never joins a generic one.
 */
export function proseWordMeetsCode(candidate: ResolutionCandidate, type: string | null): boolean {
  if (type === null || !PLAIN_WORD.test(candidate.name.trim())) return false;
  if (candidate.kind === 'term') return !isGenericType(type);
  return candidate.kind === 'identifier' && isGenericType(type);
}

/** How a candidate found its entity: a recorded name or alias, a declared acronym, a fuzzy match, or a new id. */
export type MatchTier = 'name' | 'alias' | 'acronym' | 'fuzzy' | 'new';

/** The entity a candidate means. */
export interface Resolution {
  entityId: string;
  tier: MatchTier;
  /** The recorded entity it joined (absent for a new one). */
  existing?: NamedEntity;
}

/** What resolution compares candidates with: recorded entities (by key, or sharing a key prefix) and rejected keys. */
export interface ResolutionContext {
  known: readonly NamedEntity[];
  rejectedKeys: ReadonlySet<string>;
  fuzzyThreshold: number;
}

/** A person's or an importer's entity first, then one of the same type, then a name over an alias, then by id. */
function preference(candidateType: string, key: string) {
  return (a: NamedEntity, b: NamedEntity): number => {
    const rank = (e: NamedEntity) =>
      (e.origin === 'EXTRACTED' ? 4 : 0) + (e.type === candidateType ? 0 : 2) + (e.keys[0] === key ? 0 : 1);
    return rank(a) - rank(b) || (a.entityId < b.entityId ? -1 : a.entityId > b.entityId ? 1 : 0);
  };
}

/** An entity of unknown type (recorded before types were) matches exactly only, never fuzzily. */
const compatible = (e: NamedEntity, candidate: ResolutionCandidate) =>
  (e.type === null || compatibleTypes(e.type, candidate.type)) && !proseWordMeetsCode(candidate, e.type);

/**
 * Resolves one candidate, in tiers: a recorded name or alias with the same normalised key (case, accents,
 * punctuation, plural), a declared acronym (the candidate's aliases), then a conservative fuzzy match (trigram
 * similarity ≥ threshold, same numbers and word count, known compatible type). Types never merge unless compatible.
 * Fuzzy matches are not chained: the variant never becomes an alias, so it cannot pull in a third name. Returns
 * undefined for a name an admin rejected (unless a person's or an importer's entity has it) or with no key.
 */
export function resolveCandidate(candidate: ResolutionCandidate, context: ResolutionContext): Resolution | undefined {
  const key = nameKey(candidate.name);
  if (key === '') return undefined;
  const byPreference = preference(candidate.type, key);
  const index = indexOf(context);
  const exact = (index.get(key) ?? []).filter((e) => compatible(e, candidate)).sort(byPreference);
  const best = exact[0];
  if (best) return { entityId: best.entityId, tier: best.keys[0] === key ? 'name' : 'alias', existing: best };
  const aliasKeys = nameKeys(candidate.name, candidate.aliases).slice(1);
  const declared = [...new Set(aliasKeys.flatMap((k) => index.get(k) ?? []))]
    .filter((e) => compatible(e, candidate))
    .sort(byPreference)[0];
  if (declared) return { entityId: declared.entityId, tier: 'acronym', existing: declared };
  if (context.rejectedKeys.has(key)) return undefined;
  const fuzzy = context.known
    .filter((e) => e.type !== null)
    .map((e) => ({ e, score: fuzzyScore(key, e.keys, context.fuzzyThreshold) }))
    .filter((x) => x.score > 0 && compatible(x.e, candidate))
    .sort((a, b) => b.score - a.score || byPreference(a.e, b.e))[0];
  if (fuzzy) return { entityId: fuzzy.e.entityId, tier: 'fuzzy', existing: fuzzy.e };
  return { entityId: extractedEntityId(typeFamily(candidate.type), key, writeSpace()), tier: 'new' };
}

/** The best trigram similarity of `key` to those of `keys` it fuzzily matches (0: none). */
function fuzzyScore(key: string, keys: readonly string[], threshold: number): number {
  let best = 0;
  for (const k of keys) if (fuzzyMatches(key, k, threshold)) best = Math.max(best, trigramSimilarity(key, k));
  return best;
}

/** The known entities by each of their keys, built once per context (a batch resolves many names against one). */
const indexes = new WeakMap<readonly NamedEntity[], Map<string, NamedEntity[]>>();

function indexOf(context: ResolutionContext): Map<string, NamedEntity[]> {
  let index = indexes.get(context.known);
  if (!index) {
    index = new Map();
    for (const e of context.known)
      for (const k of new Set(e.keys)) {
        const list = index.get(k) ?? [];
        list.push(e);
        index.set(k, list);
      }
    indexes.set(context.known, index);
  }
  return index;
}

/** The lookups resolution needs for a batch: every key and three-character key prefix of the candidates. */
export function lookupKeys(candidates: readonly ResolutionCandidate[]): { keys: string[]; prefixes: string[] } {
  const keys = [...new Set(candidates.flatMap((c) => nameKeys(c.name, c.aliases)))];
  const prefixes = [...new Set(candidates.map((c) => nameKey(c.name).slice(0, 3)).filter((p) => p.length === 3))];
  return { keys, prefixes };
}
