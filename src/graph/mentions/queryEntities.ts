import type { EntityName, NameMatch } from './MentionMatcher.js';

/** An entity a query names, with how strongly. */
export interface QueryEntity {
  entityId: string;
  /** Higher is more telling: specific, long, unambiguous names score most. */
  score: number;
  /** True for a whole-word name or alias match, false for a name sharing most of its words with the query. */
  exact: boolean;
  /** The query text (folded) or name words that matched. */
  matched: string;
  /** How many entities the matched span names (1: this one only; partial matches say 1). */
  sharedWith: number;
}

/** A name with its content words (`nameWords`). */
export type TokenizedName = EntityName & { words: string[] };

/** Names tokenized for partial matching. */
export interface NameIndex {
  /** The name of an entity, if it links by name. */
  nameOf(entityId: string): TokenizedName | undefined;
  /** Ids of the entities whose name holds `word`. */
  idsWithWord(word: string): Iterable<string>;
}

/** A `NameIndex` that names are added to and removed from one at a time. */
export class WordIndex implements NameIndex {
  private readonly names = new Map<string, TokenizedName>();
  private readonly byWord = new Map<string, Set<string>>();

  static of(names: Iterable<EntityName>): WordIndex {
    const index = new WordIndex();
    for (const n of names) index.set(n);
    return index;
  }

  get size(): number {
    return this.names.size;
  }

  nameOf(entityId: string): TokenizedName | undefined {
    return this.names.get(entityId);
  }

  idsWithWord(word: string): Iterable<string> {
    return this.byWord.get(word) ?? [];
  }

  values(): IterableIterator<TokenizedName> {
    return this.names.values();
  }

  /** Records (or replaces) an entity's name. */
  set(name: EntityName): void {
    this.delete(name.entityId);
    const tokenized = { entityId: name.entityId, name: name.name, aliases: name.aliases, words: nameWords(name.name) };
    this.names.set(name.entityId, tokenized);
    for (const w of tokenized.words) {
      const ids = this.byWord.get(w);
      if (ids) ids.add(name.entityId);
      else this.byWord.set(w, new Set([name.entityId]));
    }
  }

  /** Forgets an entity's name. */
  delete(entityId: string): void {
    const prior = this.names.get(entityId);
    if (!prior) return;
    this.names.delete(entityId);
    for (const w of prior.words) {
      const ids = this.byWord.get(w);
      ids?.delete(entityId);
      if (ids?.size === 0) this.byWord.delete(w);
    }
  }
}

/** A name most of whose words the query holds. */
export interface PartialMatch {
  entityId: string;
  overlap: number;
  words: string[];
}

/** Mentions are counted up to this many: past it a name is common whatever the exact count. */
export const MENTION_COUNT_CAP = 1000;
/** Partial matches considered per query (the best by overlap), so a wordy query cannot fan out to every name. */
const MAX_PARTIAL = 20;
/** A partial match weighs this share of an exact match of the same name. */
const PARTIAL_WEIGHT = 0.2;

/**
 * Scores a query's name matches. Specificity is an inverse document frequency over chunks (1 / ln(e + mentions)), so a
 * name found in a few chunks outweighs one found everywhere; longer names (more words) weigh more; a span that names
 * several entities splits its weight among them; a match inside a longer match ("Temple" in "Shirley Temple") is
 * dropped. Exact matches come first, partial ones after, each by score, then by name length and text: never by id.
 */
export function rankQueryEntities(
  exact: readonly NameMatch[],
  partial: readonly PartialMatch[],
  mentionCounts: ReadonlyMap<string, number>,
): QueryEntity[] {
  const kept = exact.filter(
    (m) => !exact.some((o) => o.start <= m.start && o.end >= m.end && o.end - o.start > m.end - m.start),
  );
  const perSpan = new Map<string, Set<string>>();
  for (const m of kept) {
    const key = `${m.start}:${m.end}`;
    perSpan.set(key, (perSpan.get(key) ?? new Set()).add(m.entityId));
  }
  const best = new Map<string, QueryEntity>();
  for (const m of kept) {
    const sharing = perSpan.get(`${m.start}:${m.end}`)?.size ?? 1;
    const score = (specificity(mentionCounts.get(m.entityId)) * lengthWeight(m.pattern)) / sharing;
    const prior = best.get(m.entityId);
    if (!prior || prior.score < score)
      best.set(m.entityId, { entityId: m.entityId, score, exact: true, matched: m.pattern, sharedWith: sharing });
  }
  const exactOnes = [...best.values()].sort(byScore);
  const partialOnes = partial
    .filter((p) => !best.has(p.entityId))
    .map((p) => ({
      entityId: p.entityId,
      score: PARTIAL_WEIGHT * p.overlap * specificity(mentionCounts.get(p.entityId)) * lengthWeight(p.words.join(' ')),
      exact: false,
      matched: p.words.join(' '),
      sharedWith: 1,
    }))
    .sort(byScore);
  return [...exactOnes, ...partialOnes];
}

/** 1 for a name no chunk mentions, falling slowly as mentions grow (0.39 at 10, 0.15 at 1,000). */
export function specificity(mentions: number | undefined): number {
  return 1 / Math.log(Math.E + Math.max(0, mentions ?? 0));
}

/** 1 for one word, up to 2 for five words or more. */
function lengthWeight(text: string): number {
  const words = text.split(/\s+/u).filter((w) => w.length > 0).length;
  return Math.min(2, 1 + 0.25 * Math.max(0, words - 1));
}

function byScore(a: QueryEntity, b: QueryEntity): number {
  return (
    b.score - a.score ||
    b.matched.length - a.matched.length ||
    (a.matched < b.matched ? -1 : a.matched > b.matched ? 1 : 0)
  );
}

/**
 * Names of at least two content words, half or more of which the query holds (disambiguators such as "(film)" and
 * common words aside), best overlap first; names already matched exactly are skipped.
 */
export function partialNameMatches(query: string, index: NameIndex, skip: ReadonlySet<string>): PartialMatch[] {
  const words = new Set(nameWords(query));
  const sharing = new Set<string>();
  for (const w of words) for (const id of index.idsWithWord(w)) sharing.add(id);
  const out: PartialMatch[] = [];
  for (const id of sharing) {
    const n = index.nameOf(id);
    if (!n || skip.has(n.entityId) || n.words.length < 2) continue;
    const shared = n.words.filter((w) => words.has(w));
    const overlap = shared.length / n.words.length;
    if (overlap >= 0.5 && shared.length >= 1) out.push({ entityId: n.entityId, overlap, words: shared });
  }
  // The id breaks ties, so the order does not depend on the order names were recorded in.
  out.sort(
    (a, b) =>
      b.overlap - a.overlap ||
      b.words.length - a.words.length ||
      (a.entityId < b.entityId ? -1 : a.entityId > b.entityId ? 1 : 0),
  );
  return out.slice(0, MAX_PARTIAL);
}

/** Content words of a name or query: lower-case, 3+ letters, without a trailing parenthetical or common words. */
export function nameWords(text: string): string[] {
  const bare = text.replace(/\s*\([^()]*\)\s*$/u, '');
  return (
    bare
      .toLowerCase()
      .normalize('NFKC')
      .match(/[\p{L}\p{N}]{3,}/gu) ?? []
  ).filter((w) => !STOP_WORDS.has(w));
}

const STOP_WORDS = new Set(
  (
    'the and for with from what how why does did when where which who whom whose this that these those was were are has had have ' +
    'not but its his her their our your you they them then than there here into onto over under about after before between ' +
    'during while also only very more most some any all each other such can could would should will shall may might must ' +
    'one two first second new old same own been being out off upon via per get got use used using name named called'
  ).split(' '),
);
