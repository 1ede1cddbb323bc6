/** What resolved candidates of one document state: one entity per thing named twice, and relationship facts. */
import type { RelationshipFact } from './EvidenceRepository.js';
import { compatibleTypes, isVagueType } from './entityTypes.js';
import { nameKey } from './nameKey.js';
import { proseWordMeetsCode, type Resolution } from './resolveEntities.js';
import type { CandidateKind, RelationshipCandidate } from './types.js';

const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/**
 * One document may name a new thing twice under types that are compatible but make different ids: a vague one
 * ("EnvironmentModuleNode" as a name in prose, a Concept; `envPrefix` in prose, an Identifier) and a specific one
 * (the same in code, a Type; a ConfigOption). When the specific ones agree on one id, the vague ones join it.
 */
export function joinNewNamesOfOneThing(
  found: { candidate: { name: string; type: string; kind?: CandidateKind }; resolution: Resolution }[],
): void {
  const byKey = new Map<string, typeof found>();
  for (const f of found.filter((x) => x.resolution.tier === 'new')) {
    const key = nameKey(f.candidate.name);
    byKey.set(key, [...(byKey.get(key) ?? []), f]);
  }
  for (const group of byKey.values()) {
    const specific = group.filter((f) => !isVagueType(f.candidate.type));
    const target = specific[0];
    if (!target || specific.some((f) => f.resolution.entityId !== target.resolution.entityId)) continue;
    for (const f of group) {
      const joins = compatibleTypes(f.candidate.type, target.candidate.type);
      if (isVagueType(f.candidate.type) && joins && !proseWordMeetsCode(f.candidate, target.candidate.type))
        f.resolution = { entityId: target.resolution.entityId, tier: 'new' };
    }
  }
}

/**
 * The fact an extractor's relationship states between two resolved entities. A RELATED_TO from an extractor that
 * does not read meaning (the offline NLP: two names in one sentence) is co-occurrence evidence, weak alone, and has
 * no direction: its ends go in id order, so both orders of appearance support one fact; `stated` when its sentence
 * links the two rather than lists them. The LLM's RELATED_TO is a relationship the model stated.
 */
export function relationshipFact(
  extractor: string,
  r: Pick<RelationshipCandidate, 'type' | 'description' | 'stated'>,
  from: string,
  to: string,
): RelationshipFact {
  const description = r.description?.trim() || null;
  if (r.type !== 'RELATED_TO' || extractor === 'llm') return { fromId: from, type: r.type, toId: to, description };
  const [fromId, toId] = cmp(to, from) < 0 ? [to, from] : [from, to];
  return { fromId, type: r.type, toId, description, cooccurrence: true, ...(r.stated ? { stated: true } : {}) };
}
