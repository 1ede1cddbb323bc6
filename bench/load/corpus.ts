import { loadSciFact, type BeirDoc } from '../datasets.js';
import { corpusEntityNames, prng } from '../graphData.js';

/** What the load bench writes and asks: seed documents, entities, relationships, the documents imported under load, queries. */
export interface LoadCorpus {
  seed: BeirDoc[];
  imported: BeirDoc[];
  entities: { id: string; type: string; name: string }[];
  relationships: { fromId: string; toId: string; type: string }[];
  queries: string[];
}

/** Splits SciFact into `seedCount` seed documents and `importCount` more; entities are its terms, ids under `prefix`. */
export function loadCorpus(seedCount: number, importCount: number, prefix: string, entityCount = 500): LoadCorpus {
  const data = loadSciFact();
  if (data.corpus.length < seedCount + importCount) {
    throw new Error(`SciFact has ${data.corpus.length} documents; --docs + --import must not exceed it`);
  }
  const seed = data.corpus.slice(0, seedCount);
  const imported = data.corpus.slice(seedCount, seedCount + importCount);
  const names = corpusEntityNames(seed, entityCount);
  const entities = names.map((n, i) => ({ id: `${prefix}_term_${i}`, type: 'Concept', name: n.name }));
  // A sparse random graph over the terms (seeded), so enrichContext has neighbours to traverse.
  const random = prng(7);
  const relationships: LoadCorpus['relationships'] = [];
  const seen = new Set<string>();
  for (let i = 0; i < entities.length * 2; i++) {
    const from = entities[Math.floor(random() * entities.length)]!.id;
    const to = entities[Math.floor(random() * entities.length)]!.id;
    if (from === to || seen.has(`${from} ${to}`)) continue;
    seen.add(`${from} ${to}`);
    relationships.push({ fromId: from, toId: to, type: 'RELATED_TO' });
  }
  return { seed, imported, entities, relationships, queries: data.queries.map((q) => q.text) };
}

/** A document as `upsertDocuments` takes it, its id under `prefix`. */
export function asInput(doc: BeirDoc, tag: string, prefix: string): Record<string, unknown> {
  return {
    id: `${prefix}:${doc.id}`,
    title: doc.title || `SciFact ${doc.id}`,
    content: doc.text || doc.title,
    documentType: 'REFERENCE',
    source: 'scifact',
    tags: [tag],
  };
}
