import fs from 'node:fs';
import path from 'node:path';
import type { DocumentInput } from '../src/documents/types.js';
import { projectRoot } from '../src/paths.js';

/** Root of the shared evaluation data (../shared/data from the project). */
export const DATA_DIR = process.env.CAIRN_BENCH_DATA ?? path.resolve(projectRoot, '..', 'shared', 'data');

/** A BEIR corpus document. */
export interface BeirDoc {
  id: string;
  title: string;
  text: string;
}

/** A BEIR-layout dataset: corpus, queries and graded relevance judgements. */
export interface BeirDataset {
  corpus: BeirDoc[];
  queries: { id: string; text: string }[];
  /** query id → (doc id → grade) */
  qrels: Map<string, Map<string, number>>;
}

function readJsonl<T>(file: string): T[] {
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as T);
}

/** Loads SciFact's test split (queries restricted to those with judgements). */
export function loadSciFact(dir = path.join(DATA_DIR, 'scifact')): BeirDataset {
  const corpus = readJsonl<{ _id: string; title: string; text: string }>(path.join(dir, 'corpus.jsonl')).map((d) => ({
    id: d._id,
    title: d.title,
    text: d.text,
  }));
  const qrels = new Map<string, Map<string, number>>();
  for (const line of fs
    .readFileSync(path.join(dir, 'qrels', 'test.tsv'), 'utf8')
    .split('\n')
    .slice(1)) {
    const [q, d, s] = line.split('\t');
    if (!q || !d) continue;
    const m = qrels.get(q) ?? new Map<string, number>();
    m.set(d, Number(s));
    qrels.set(q, m);
  }
  const queries = readJsonl<{ _id: string; text: string }>(path.join(dir, 'queries.jsonl'))
    .filter((q) => qrels.has(q._id))
    .map((q) => ({ id: q._id, text: q.text }));
  return { corpus, queries, qrels };
}

/** A SciFact abstract as a document to store (type reference, source scifact). */
export function sciFactDocument(d: BeirDoc): DocumentInput {
  return {
    id: d.id,
    title: d.title,
    content: d.text,
    documentType: 'reference',
    source: 'scifact',
    tags: [],
    metadata: {},
    expiresAt: null,
  };
}
