import { foldForMatching, nameForms, namePatterns } from '../graph/mentions/MentionMatcher.js';
import type { RelationshipRecord } from '../graph/types.js';

/** The names of an entity, as read with its record. */
export interface EntityNames {
  name: string;
  aliases: readonly string[];
}

/** Tuning of how names count as evidence; see docs/enrichment.md, "Named entities first". */
export const NAME_EVIDENCE = {
  /** A single plain word ("Request", "plugin") is specific only when at most this many chunks mention it. */
  singleWordMentions: 5,
  /**
   * A single plain word that the context's chunks name (a bridge, not named by the query) is specific up to this many
   * mentioning chunks: the chunk that names it says which thing it is.
   */
  bridgeSingleWordMentions: 20,
  /**
   * A bridge at most this many chunks mention leads to those chunks without being as close to the query as the
   * documents lane's weakest chunk.
   */
  rareBridgeMentions: 5,
  /** Past this many mentioning chunks, any name is a topic of the corpus rather than a pointer to one page. */
  anyNameMentions: 50,
};

/** Whole words of a name without its trailing disambiguator ("Kiss and Tell (1945 film)" has three). */
function wordCount(form: string): number {
  return form
    .replace(/\s*\([^()]*\)\s*$/u, '')
    .split(/\s+/u)
    .filter((w) => w.length > 0).length;
}

/**
 * Whether a name reads as a code identifier or an acronym rather than a word: inner capitals (`listPets`), digits,
 * punctuation inside (`server.port`, `--host`, `@vitejs/plugin-react`), or all capitals (`ACH`).
 */
export function identifierShaped(form: string): boolean {
  return /\p{Ll}\p{Lu}|\p{N}|[._/:#@$-]/u.test(form) || /^\p{Lu}{2,}$/u.test(form);
}

/**
 * Whether a query's exact match of an entity is specific enough for the entity's own documents to lead the context:
 * the span names no other entity, few chunks mention the name, and the name is more than a single plain word
 * (several words, an identifier or an acronym) unless it is rare. "Request" mentioned by every page of a framework's
 * docs is not; "Shirley Temple", `listPets` or "Port of Tema" are.
 */
export function namesSpecifically(
  matched: { form: string; sharedWith: number },
  names: EntityNames | undefined,
  mentions: number,
  singleWordMentions: number = NAME_EVIDENCE.singleWordMentions,
): boolean {
  if (matched.sharedWith > 1 || mentions > NAME_EVIDENCE.anyNameMentions) return false;
  if (mentions <= singleWordMentions) return true;
  // The match is folded; the entity's own spelling of that form shows its capitals.
  const written = names
    ? (nameForms(names.name, names.aliases).find((f) => foldForMatching(f) === matched.form) ?? names.name)
    : matched.form;
  return wordCount(written) > 1 || identifierShaped(written);
}

/**
 * Whether an entity is specific enough for the graph evidence it leads to to stand on its own: the query's span (an
 * exact match) or, for an entity the query does not name, its own name passes `namesSpecifically`.
 */
export function leadsSpecifically(
  names: EntityNames | undefined,
  mentions: number,
  seed?: { exact: boolean; matched?: { form: string; sharedWith: number } },
): boolean {
  if (seed?.matched) return seed.exact && namesSpecifically(seed.matched, names, mentions);
  if (!names) return false;
  const form = { form: foldForMatching(names.name), sharedWith: 1 };
  return namesSpecifically(form, names, mentions, NAME_EVIDENCE.bridgeSingleWordMentions);
}

/**
 * The weight of a relationship in the ranking: 1, or for one carrying `properties.weight` (the number of chunks that
 * support an extracted RELATED_TO) 1 + ln(weight), so that co-occurring often counts without drowning the evidence
 * edges of an entity.
 */
export function relationshipWeight(r: RelationshipRecord): number {
  const w = r.properties['weight'];
  return typeof w === 'number' && Number.isFinite(w) && w > 1 ? 1 + Math.log(w) : 1;
}

/**
 * Mentions that a shared name form attributes to the wrong entity. "Kiss and Tell" names both the film and the song
 * "Kiss and Tell (Bryan Ferry song)": in a chunk of a document that is home to one of them, the form means that one,
 * so the other's mention of that chunk is dropped. Elsewhere the mention is ambiguous and its weight is split among
 * the entities sharing the form. Returns, per `entityId\0chunkId`, the factor its mention weighs (absent: 1).
 */
export function mentionFactors(
  mentions: readonly { entityId: string; chunkId: string; documentId: string }[],
  names: ReadonlyMap<string, EntityNames>,
  homes: ReadonlyMap<string, ReadonlySet<string>>,
): Map<string, number> {
  const forms = new Map<string, Set<string>>();
  for (const [id, n] of names) forms.set(id, new Set(namePatterns(n.name, n.aliases)));
  const byChunk = new Map<string, { documentId: string; entityIds: Set<string> }>();
  for (const m of mentions) {
    const entry = byChunk.get(m.chunkId) ?? { documentId: m.documentId, entityIds: new Set<string>() };
    entry.entityIds.add(m.entityId);
    byChunk.set(m.chunkId, entry);
  }
  const factors = new Map<string, number>();
  for (const [chunkId, { documentId, entityIds }] of byChunk) {
    const ids = [...entityIds];
    for (const id of ids) {
      const own = forms.get(id);
      if (!own) continue;
      const sharing = ids.filter((o) => o !== id && [...(forms.get(o) ?? [])].some((f) => own.has(f)));
      if (sharing.length === 0 || homes.get(id)?.has(documentId)) continue;
      const homeOfOther = sharing.some((o) => homes.get(o)?.has(documentId));
      factors.set(`${id}\u0000${chunkId}`, homeOfOther ? 0 : 1 / (sharing.length + 1));
    }
  }
  return factors;
}
