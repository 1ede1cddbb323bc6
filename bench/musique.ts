import fs from 'node:fs';
import path from 'node:path';
import { loadConfig } from '../src/config.js';
import { HashingEmbeddingProvider } from '../src/embeddings/hashing/HashingEmbeddingProvider.js';
import { silentLogger } from '../src/logger.js';
import { createServices } from '../src/services.js';
import { DATA_DIR } from './datasets.js';
import type { Table } from './report.js';
import { machineLine } from './report.js';

interface Paragraph {
  title: string;
  text: string;
}
interface Question {
  question: string;
  paragraphs: { title: string; paragraph_text: string; is_supporting: boolean }[];
}

/** Supporting-paragraph recall: `search` alone against `enrichContext` (its chunks plus documents reached through the graph). */
export async function benchMusique(databaseUrl?: string): Promise<Table> {
  const dir = path.join(DATA_DIR, 'musique');
  const corpus = JSON.parse(fs.readFileSync(path.join(dir, 'musique_train_corpus.json'), 'utf8')) as Paragraph[];
  const questions = JSON.parse(fs.readFileSync(path.join(dir, 'musique_train.json'), 'utf8')) as Question[];
  const docId = new Map<string, string>(corpus.map((p, i) => [`${p.title}\u0000${p.text}`, `p${i}`]));
  const titles = [...new Set(corpus.map((p) => p.title))];
  const titleIds = new Map(titles.map((t, i) => [t, `title:${i}`]));
  const entityOf = (title: string) => titleIds.get(title) as string;

  const config = loadConfig({ CAIRN_DATA_DIR: 'memory://', CAIRN_RAG_MAX_TOP_K: '100', ...(databaseUrl ? { CAIRN_DATABASE_URL: databaseUrl } : {}) });
  const services = await createServices(config, silentLogger(), { embedder: new HashingEmbeddingProvider({ dimensions: 1024 }) });
  try {
    // One entity per title first, so indexing links each paragraph to every title its text names.
    for (let i = 0; i < titles.length; i += 1000) {
      await services.graph.upsertGraph(titles.slice(i, i + 1000).map((t) => ({ id: entityOf(t), type: 'Topic', name: t })), []);
    }
    for (let i = 0; i < corpus.length; i += 200) {
      await services.documents.upsertMany(corpus.slice(i, i + 200).map((p, j) => ({
        id: `p${i + j}`, title: p.title, content: p.text, documentType: 'reference' as const, source: 'musique', tags: [], metadata: {}, expiresAt: null, entityIds: [entityOf(p.title)],
      })));
    }
    // RELATED_TO when one paragraph's text names another's title: read back from the automatic mentions.
    const { rows } = await services.db.query<{ from_title: string; entity_id: string }>(
      `SELECT DISTINCT d.title AS from_title, m.entity_id FROM mentions m JOIN documents d ON d.id = m.document_id WHERE m.source = 'auto'`,
    );
    const rels = rows.filter((r) => entityOf(r.from_title) !== r.entity_id).map((r) => ({ fromId: entityOf(r.from_title), toId: r.entity_id, type: 'RELATED_TO' }));
    for (let i = 0; i < rels.length; i += 2000) await services.graph.upsertGraph([], rels.slice(i, i + 2000));
    const docsOfEntity = new Map<string, string[]>();
    corpus.forEach((p, i) => docsOfEntity.set(entityOf(p.title), [...(docsOfEntity.get(entityOf(p.title)) ?? []), `p${i}`]));

    let searchRecall = 0;
    let enrichRecall = 0;
    let enrichItems = 0;
    let matchedRecall = 0;
    for (const q of questions) {
      const supporting = q.paragraphs.filter((p) => p.is_supporting).map((p) => docId.get(`${p.title}\u0000${p.paragraph_text}`)).filter((x): x is string => !!x);
      if (supporting.length === 0) continue;
      const hits = await services.search.search({ query: q.question, topK: 10, filter: {} });
      const searchDocs = new Set(hits.map((h) => h.document.id));
      const enriched = await services.enricher.enrich({ query: q.question, topK: 10, maxEntities: 5, graphDepth: 1, maxChars: 100_000, filter: {}, mode: undefined });
      const enrichDocs = new Set([...enriched.chunks.map((c) => c.hit.document.id), ...enriched.entities.flatMap((e) => docsOfEntity.get(e.entity.id) ?? [])]);
      enrichItems += enrichDocs.size;
      searchRecall += supporting.filter((d) => searchDocs.has(d)).length / supporting.length;
      enrichRecall += supporting.filter((d) => enrichDocs.has(d)).length / supporting.length;
      // Fairness check: search allowed as many distinct documents as enrichContext returned.
      const wider = await services.search.search({ query: q.question, topK: 100, filter: {} });
      const widerDocs = new Set([...new Set(wider.map((h) => h.document.id))].slice(0, enrichDocs.size));
      matchedRecall += supporting.filter((d) => widerDocs.has(d)).length / supporting.length;
    }
    const n = questions.length;
    return {
      title: `MuSiQue: supporting-paragraph recall (${n} questions, ${corpus.length} paragraphs, ${titles.length} title entities, ${rels.length} RELATED_TO)`,
      headers: ['retrieval', 'recall', 'documents returned per question'],
      rows: [
        ['search (top 10 chunks)', searchRecall / n, 10],
        ['search (as many distinct documents as enrichContext returned)', matchedRecall / n, enrichItems / n],
        ['enrichContext (10 chunks + documents of up to 5 graph entities, depth 1)', enrichRecall / n, enrichItems / n],
      ],
      notes: [`Machine: ${machineLine()}. Hashing embedder, 1024-d; ${databaseUrl ? 'Postgres server' : 'PGlite'}, Postgres graph store.`],
    };
  } finally {
    await services.close();
  }
}
