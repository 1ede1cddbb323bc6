import fs from 'node:fs';
import path from 'node:path';
import { loadConfig } from '../src/config.js';
import { HashingEmbeddingProvider } from '../src/embeddings/hashing/HashingEmbeddingProvider.js';
import { silentLogger } from '../src/logger.js';
import { createServices, type Services } from '../src/services.js';
import { DATA_DIR } from './datasets.js';
import type { Table } from './report.js';
import { machineLine } from './report.js';

/** A paragraph of MuSiQue's corpus. */
export interface Paragraph {
  title: string;
  text: string;
}
/** A MuSiQue question with its paragraphs (the supporting ones marked) and its answer. */
export interface Question {
  question: string;
  answer: string;
  answer_aliases?: string[];
  paragraphs: { title: string; paragraph_text: string; is_supporting: boolean }[];
}

/** Options of the MuSiQue run. */
/** Writes the corpus as documents `p<index>`, 200 a batch; `entityIdsOf` links each paragraph to given entities. */
export async function ingestParagraphs(
  services: Services,
  corpus: Paragraph[],
  entityIdsOf?: (p: Paragraph) => string[],
): Promise<void> {
  for (let i = 0; i < corpus.length; i += 200) {
    await services.documents.upsertMany(
      corpus.slice(i, i + 200).map((p, j) => ({
        id: `p${i + j}`,
        title: p.title,
        content: p.text,
        documentType: 'reference' as const,
        source: 'musique',
        tags: [],
        metadata: {},
        expiresAt: null,
        ...(entityIdsOf ? { entityIds: entityIdsOf(p) } : {}),
      })),
    );
  }
}

export interface MusiqueOptions {
  databaseUrl?: string;
  /** Questions to ask (default all). */
  limit?: number;
  /** enrichContext's graphShare (default: the configured one). */
  graphShare?: number;
}

/** Recall figures of one store build. */
interface Scores {
  questions: number;
  enrichRecall: number;
  enrichAllFound: number;
  searchRecall: number;
  searchAllFound: number;
  search10Recall: number;
  documents: number;
  graphDocuments: number;
}

/**
 * Supporting-paragraph recall of what enrichContext returns (its `documents`, as the API returns them) against search
 * given the same number of distinct documents, on stores built as a user would: one document per paragraph, one
 * entity per title linked to its paragraphs, and optionally RELATED_TO when one paragraph's text names another title.
 */
export async function benchMusique(options: MusiqueOptions = {}): Promise<Table> {
  const dir = path.join(DATA_DIR, 'musique');
  const corpus = JSON.parse(fs.readFileSync(path.join(dir, 'musique_train_corpus.json'), 'utf8')) as Paragraph[];
  const questions = (JSON.parse(fs.readFileSync(path.join(dir, 'musique_train.json'), 'utf8')) as Question[]).slice(
    0,
    options.limit,
  );
  const plain = await withStore(corpus, false, options, (s) => score(s, corpus, questions, options));
  const related = await withStore(corpus, true, options, (s) => score(s, corpus, questions, options));
  const row = (name: string, x: Scores): (string | number)[][] => [
    [`enrichContext ${name}`, x.enrichRecall, x.enrichAllFound, x.documents, x.graphDocuments],
    [`search, as many documents ${name}`, x.searchRecall, x.searchAllFound, x.documents, 0],
  ];
  return {
    title: `MuSiQue: supporting-paragraph recall of what enrichContext returns (${questions.length} questions, ${corpus.length} paragraphs)`,
    headers: ['retrieval', 'recall', 'all found', 'documents per question', 'of them from the graph'],
    rows: [
      ...row('(mentions only)', plain),
      ...row('(with RELATED_TO)', related),
      ['search, top 10 chunks (reference)', plain.search10Recall, '', 10, 0],
      [
        'enrichContext − search, recall (mentions only / with RELATED_TO)',
        plain.enrichRecall - plain.searchRecall,
        plain.enrichAllFound - plain.searchAllFound,
        '',
        '',
      ],
      ['', related.enrichRecall - related.searchRecall, related.enrichAllFound - related.searchAllFound, '', ''],
    ],
    notes: [
      `Machine: ${machineLine()}. Hashing embedder, 1024-d; ${options.databaseUrl ? 'Postgres server' : 'PGlite'}, Postgres graph store.`,
      'enrichContext: topK 10, maxEntities 5, graphDepth 1, the default maxChars and graphShare; scored on its `documents`, in the order it returns them.',
      'search: groupByDocument, cut to as many distinct documents as enrichContext returned for the same question.',
    ],
  };
}

async function withStore<T>(
  corpus: Paragraph[],
  relatedTo: boolean,
  options: MusiqueOptions,
  run: (s: Services) => Promise<T>,
): Promise<T> {
  const config = loadConfig({
    CAIRN_DATA_DIR: 'memory://',
    CAIRN_RAG_MAX_TOP_K: '100',
    ...(options.databaseUrl ? { CAIRN_DATABASE_URL: options.databaseUrl } : {}),
  });
  const services = await createServices(config, silentLogger(), {
    embedder: new HashingEmbeddingProvider({ dimensions: 1024 }),
  });
  try {
    const titles = [...new Set(corpus.map((p) => p.title))];
    const entityOf = new Map(titles.map((t, i) => [t, `title:${i}`]));
    // One entity per title first, so indexing links each paragraph to every title its text names.
    for (let i = 0; i < titles.length; i += 1000) {
      await services.graph.upsertGraph(
        titles.slice(i, i + 1000).map((t) => ({ id: entityOf.get(t) as string, type: 'Topic', name: t })),
        [],
      );
    }
    await ingestParagraphs(services, corpus, (p) => [entityOf.get(p.title) as string]);
    if (relatedTo) {
      // RELATED_TO when one paragraph's text names another's title, read back through the API's own document mentions.
      const rels = new Map<string, { fromId: string; toId: string; type: string }>();
      const mentioned = await services.graph.entityIdsByDocument(corpus.map((_, i) => `p${i}`));
      corpus.forEach((p, i) => {
        const from = entityOf.get(p.title) as string;
        for (const to of mentioned.get(`p${i}`) ?? [])
          if (to !== from) rels.set(`${from} ${to}`, { fromId: from, toId: to, type: 'RELATED_TO' });
      });
      const list = [...rels.values()];
      for (let i = 0; i < list.length; i += 2000) await services.graph.upsertGraph([], list.slice(i, i + 2000));
    }
    return await run(services);
  } finally {
    await services.close();
  }
}

async function score(
  services: Services,
  corpus: Paragraph[],
  questions: Question[],
  options: MusiqueOptions,
): Promise<Scores> {
  const docId = new Map<string, string>(corpus.map((p, i) => [`${p.title}\u0000${p.text}`, `p${i}`]));
  const s: Scores = {
    questions: 0,
    enrichRecall: 0,
    enrichAllFound: 0,
    searchRecall: 0,
    searchAllFound: 0,
    search10Recall: 0,
    documents: 0,
    graphDocuments: 0,
  };
  const { enrich } = services.config;
  for (const q of questions) {
    const supporting = q.paragraphs
      .filter((p) => p.is_supporting)
      .map((p) => docId.get(`${p.title}\u0000${p.paragraph_text}`))
      .filter((x): x is string => !!x);
    if (supporting.length === 0) continue;
    const enriched = await services.enricher.enrich({
      query: q.question,
      topK: 10,
      maxEntities: 5,
      graphDepth: 1,
      maxChars: enrich.maxChars,
      filter: {},
      mode: undefined,
      graphShare: options.graphShare ?? enrich.graphShare,
    });
    const enrichDocs = enriched.documents.map((d) => d.id);
    const graphDocs = new Set(
      enriched.chunks.filter((c) => c.lane === 'GRAPH' && c.citation !== null).map((c) => c.hit.document.id),
    );
    const grouped = await services.search.hits({ query: q.question, topK: 100, filter: {}, groupByDocument: true });
    const searchDocs = grouped.map((h) => h.document.id).slice(0, enrichDocs.length);
    const top10 = new Set(
      (await services.search.hits({ query: q.question, topK: 10, filter: {} })).map((h) => h.document.id),
    );
    const recall = (docs: Iterable<string>) => {
      const set = new Set(docs);
      return supporting.filter((d) => set.has(d)).length / supporting.length;
    };
    s.questions++;
    s.documents += enrichDocs.length;
    s.graphDocuments += graphDocs.size;
    s.enrichRecall += recall(enrichDocs);
    s.searchRecall += recall(searchDocs);
    s.search10Recall += recall(top10);
    s.enrichAllFound += recall(enrichDocs) === 1 ? 1 : 0;
    s.searchAllFound += recall(searchDocs) === 1 ? 1 : 0;
  }
  const n = Math.max(1, s.questions);
  return {
    questions: s.questions,
    enrichRecall: s.enrichRecall / n,
    enrichAllFound: s.enrichAllFound / n,
    searchRecall: s.searchRecall / n,
    searchAllFound: s.searchAllFound / n,
    search10Recall: s.search10Recall / n,
    documents: s.documents / n,
    graphDocuments: s.graphDocuments / n,
  };
}
