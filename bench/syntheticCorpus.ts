import { chunkText } from '../src/chunking/chunkText.js';
import type { EntityName } from '../src/graph/mentions/MentionMatcher.js';
import type { EntityWrite, RelationshipWrite } from '../src/graph/types.js';
import { relationshipId } from '../src/graph/validateGraphInput.js';
import type { BeirDoc } from './datasets.js';
import { prng, syntheticGraph } from './graphData.js';

/** A corpus built from another, with how many chunks it makes and how many copies of the source it took. */
export interface ScaledCorpus {
  docs: BeirDoc[];
  chunks: number;
  copies: number;
}

/** A scaled corpus document as the document write takes it. */
export function scaledDocumentInput(d: BeirDoc) {
  return {
    id: d.id,
    title: d.title,
    content: d.text,
    documentType: 'reference' as const,
    source: 'scifact-scaled',
    tags: [],
    metadata: {},
    expiresAt: null,
  };
}

/** Share of words dropped, replaced by a random corpus word, and swapped with their neighbour in a perturbed copy. */
const DROP = 0.08;
const REPLACE = 0.08;
const SWAP = 0.1;

/**
 * Repeats a corpus until its documents make `targetChunks` chunks: copy 0 is the original text, later copies drop,
 * replace and swap words at random (seeded), so every chunk embeds to its own vector near its source's and no two
 * documents are identical. Every document gets a new id under `idPrefix`; titles are kept.
 */
export function perturbedCorpus(
  corpus: readonly BeirDoc[],
  targetChunks: number,
  chunking: { size: number; overlap: number },
  idPrefix: string,
  seed = 11,
): ScaledCorpus {
  const rand = prng(seed);
  const vocabulary = corpus.flatMap((d) => d.text.split(/\s+/)).filter((w) => w !== '');
  const perturb = (text: string): string => {
    const words: string[] = [];
    for (const w of text.split(/\s+/)) {
      const r = rand();
      if (r < DROP) continue;
      words.push(r < DROP + REPLACE ? (vocabulary[Math.floor(rand() * vocabulary.length)] as string) : w);
    }
    for (let i = 0; i + 1 < words.length; i++) {
      if (rand() < SWAP) [words[i], words[i + 1]] = [words[i + 1] as string, words[i] as string];
    }
    return words.join(' ');
  };
  const docs: BeirDoc[] = [];
  let chunks = 0;
  let copy = 0;
  for (; chunks < targetChunks; copy++) {
    for (const d of corpus) {
      if (chunks >= targetChunks) break;
      const text = copy === 0 ? d.text : perturb(d.text);
      chunks += chunkText(text, chunking).length;
      docs.push({ id: `${idPrefix}c${copy}_${d.id}`, title: d.title, text });
    }
  }
  return { docs, chunks, copies: copy };
}

/** Entities and relationships ready for `GraphService.upsertGraph`. */
export interface NamedGraph {
  entities: EntityWrite[];
  relationships: RelationshipWrite[];
}

/**
 * A knowledge graph whose entities carry names found in the corpus (so document writes link mentions to them): the
 * structure of `syntheticGraph` (preferential attachment, seed 42), its entity i renamed to `names[i]` and given the
 * id `${idPrefix}e${i}`. Names come ranked by document frequency, so the most mentioned terms are also the hubs.
 */
export function namedGraph(names: readonly EntityName[], relationshipCount: number, idPrefix: string): NamedGraph {
  const shape = syntheticGraph(names.length, relationshipCount, 42);
  const index = new Map(shape.entities.map((e, i) => [e.id, i]));
  const idOf = (syntheticId: string) => `${idPrefix}e${index.get(syntheticId) ?? syntheticId}`;
  const entities = shape.entities.map((e, i) => ({
    ...e,
    id: `${idPrefix}e${i}`,
    name: (names[i] as EntityName).name,
    aliases: [],
  }));
  const relationships = shape.relationships.map((r) => {
    const fromId = idOf(r.fromId);
    const toId = idOf(r.toId);
    return { ...r, id: relationshipId(fromId, r.type, toId), fromId, toId };
  });
  return { entities, relationships };
}
