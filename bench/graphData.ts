import type { BeirDoc } from './datasets.js';
import type { EntityName } from '../src/graph/mentions/MentionMatcher.js';
import type { EntityWrite, RelationshipWrite } from '../src/graph/types.js';
import { relationshipId } from '../src/graph/validateGraphInput.js';

/** A deterministic PRNG (mulberry32): uniform floats in [0, 1). */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A synthetic knowledge graph. */
export interface SyntheticGraph {
  entities: EntityWrite[];
  relationships: RelationshipWrite[];
  /** Degree (both directions) of each entity, by id. */
  degree: Map<string, number>;
}

const ENTITY_TYPES = ['Service', 'Team', 'Library', 'Concept', 'Person', 'Dataset'];
const RELATIONSHIP_TYPES = ['DEPENDS_ON', 'USES', 'OWNS', 'RELATED_TO', 'PART_OF'];
const ONSETS = ['b', 'c', 'd', 'f', 'g', 'h', 'k', 'l', 'm', 'n', 'p', 'r', 's', 't', 'v', 'z', 'br', 'tr', 'st', 'pl'];
const VOWELS = ['a', 'e', 'i', 'o', 'u', 'ai', 'ou'];

/**
 * A deterministic graph with power-law degrees by preferential attachment (Barabási–Albert style): entities arrive
 * in order and each links to `perNode` earlier ones, picked with probability ∝ degree (80%) or uniformly (20%); the
 * direction and type of each relationship are random. Extra preferential edges top it up to exactly `relationships`.
 * No self loops, no duplicate (from, type, to), and no two relationships between the same pair of entities.
 */
export function syntheticGraph(entityCount = 10_000, relationshipCount = 50_000, seed = 42): SyntheticGraph {
  const rand = prng(seed);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)] as T;
  const names = new Set<string>();
  const entities: EntityWrite[] = [];
  for (let i = 0; i < entityCount; i++) {
    let name = '';
    while (name === '' || names.has(name)) {
      const syllables = 2 + Math.floor(rand() * 3);
      name = Array.from({ length: syllables }, () => pick(ONSETS) + pick(VOWELS)).join('');
      name = name.charAt(0).toUpperCase() + name.slice(1);
    }
    names.add(name);
    entities.push({
      id: `bench_e${i}`,
      type: pick(ENTITY_TYPES),
      name,
      aliases: [],
      description: null,
      properties: { rank: i },
    });
  }
  const endpoints: number[] = []; // one entry per relationship end: sampling from it is sampling ∝ degree
  const pairs = new Set<string>();
  const relationships: RelationshipWrite[] = [];
  const add = (a: number, b: number): boolean => {
    if (a === b || pairs.has(a < b ? `${a}:${b}` : `${b}:${a}`)) return false;
    pairs.add(a < b ? `${a}:${b}` : `${b}:${a}`);
    const [from, to] = rand() < 0.5 ? [a, b] : [b, a];
    const fromId = `bench_e${from}`;
    const toId = `bench_e${to}`;
    const type = pick(RELATIONSHIP_TYPES);
    relationships.push({ id: relationshipId(fromId, type, toId), type, fromId, toId, properties: {} });
    endpoints.push(a, b);
    return true;
  };
  const preferential = (below: number) =>
    endpoints.length > 0 && rand() < 0.8
      ? (endpoints[Math.floor(rand() * endpoints.length)] as number)
      : Math.floor(rand() * below);
  const perNode = Math.max(1, Math.floor(relationshipCount / entityCount));
  for (let i = 1; i < entityCount && relationships.length < relationshipCount; i++) {
    const want = Math.min(perNode, i);
    for (let made = 0, tries = 0; made < want && tries < want * 20; tries++) if (add(i, preferential(i))) made++;
  }
  while (relationships.length < relationshipCount) add(preferential(entityCount), preferential(entityCount));
  const degree = new Map<string, number>(entities.map((e) => [e.id, 0]));
  for (const r of relationships) {
    degree.set(r.fromId, (degree.get(r.fromId) ?? 0) + 1);
    degree.set(r.toId, (degree.get(r.toId) ?? 0) + 1);
  }
  return { entities, relationships, degree };
}

/** `n` distinct indexes in [0, size), drawn with a fixed seed. */
export function sampleIndexes(size: number, n: number, seed: number): number[] {
  const rand = prng(seed);
  const chosen = new Set<number>();
  while (chosen.size < Math.min(n, size)) chosen.add(Math.floor(rand() * size));
  return [...chosen];
}

/**
 * Entity names picked from a corpus: distinctive terms such as acronyms, gene names and proper nouns (DNA, CD4,
 * Drosophila). A term is a whitespace token of an abstract, trimmed of punctuation, at least 2 characters, containing
 * an upper-case letter, not at the start of a sentence; it is dropped when its lower-case form occurs at least as
 * often as the term itself (so common words in capitals, "US" vs "us", are out). Case variants are merged; terms
 * are ranked by how many documents use them, then by name, and the first `count` kept.
 */
export function corpusEntityNames(corpus: readonly BeirDoc[], count = 2_000): EntityName[] {
  const capitalisedDf = new Map<string, number>();
  const lowerCount = new Map<string, number>();
  for (const doc of corpus) {
    const seen = new Set<string>();
    const tokens = doc.text.split(/\s+/);
    tokens.forEach((raw, i) => {
      const t = raw.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, '');
      if (t.length < 2) return;
      if (t === t.toLowerCase()) {
        lowerCount.set(t, (lowerCount.get(t) ?? 0) + 1);
        return;
      }
      const prev = tokens[i - 1];
      if (prev === undefined || /[.!?:]$/.test(prev) || /^[^\p{L}\p{N}]/u.test(raw)) return;
      if (/^[\p{L}\p{N}][\p{L}\p{N}-]*$/u.test(t)) seen.add(t);
    });
    for (const s of seen) capitalisedDf.set(s, (capitalisedDf.get(s) ?? 0) + 1);
  }
  const best = new Map<string, [string, number]>();
  for (const [t, n] of capitalisedDf) {
    const lower = t.toLowerCase();
    if ((lowerCount.get(lower) ?? 0) >= n) continue;
    const cur = best.get(lower);
    if (!cur || n > cur[1] || (n === cur[1] && t < cur[0])) best.set(lower, [t, n]);
  }
  return [...best.values()]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
    .slice(0, count)
    .map(([name], i) => ({ entityId: `scifact_term_${i}`, name, aliases: [] }));
}
