import fs from 'node:fs';
import path from 'node:path';
import type { Services } from '../../src/services.js';
import { DATA_DIR } from '../datasets.js';
import { ingestParagraphs, type Paragraph, type Question } from '../musique.js';
import { machineLine, type Table } from '../report.js';
import { askEnrich, containsPhrase, extractionStore, waitForExtraction } from './store.js';

interface Scores {
  questions: number;
  enrichRecall: number;
  enrichAllFound: number;
  searchRecall: number;
  searchAllFound: number;
  answerGraphOn: number;
  answerGraphOff: number;
  graphChunks: number;
}

/**
 * MuSiQue with everything extracted: one document per paragraph, written as a user would (title and text, no
 * entities, no links), and the graph the extractors build from them. Scores what enrichContext returns against search
 * given as many documents, and whether the answer string reaches `context` with the graph lane on and off.
 */
export async function benchMusiqueExtracted(databaseUrl?: string): Promise<{ table: Table; seconds: number }> {
  const { corpus, questions } = loadMusique();
  const services = await extractionStore('structural,offline', databaseUrl);
  try {
    const t0 = performance.now();
    await writeMusique(services, corpus);
    const seconds = (performance.now() - t0) / 1000;
    const stats = await services.graph.stats(0);
    const s = await score(services, corpus, questions);
    const n = Math.max(1, s.questions);
    return {
      seconds,
      table: {
        title: `MuSiQue, everything extracted: what enrichContext returns (${s.questions} questions, ${corpus.length} paragraphs)`,
        headers: ['measure', 'enrichContext', 'search, as many documents', 'difference'],
        rows: [
          [
            'supporting-paragraph recall',
            s.enrichRecall / n,
            s.searchRecall / n,
            (s.enrichRecall - s.searchRecall) / n,
          ],
          [
            'all supporting paragraphs found',
            s.enrichAllFound / n,
            s.searchAllFound / n,
            (s.enrichAllFound - s.searchAllFound) / n,
          ],
          [
            'answer string in context: graph lane on / off',
            s.answerGraphOn / n,
            s.answerGraphOff / n,
            (s.answerGraphOn - s.answerGraphOff) / n,
          ],
          ['graph-lane chunks cited per question', s.graphChunks / n, '', ''],
        ],
        notes: [
          `Machine: ${machineLine()}. Hashing embedder, 1024-d; ${databaseUrl ? 'Postgres server' : 'PGlite'}, Postgres graph store; extractors structural + offline.`,
          `Extracted graph: ${stats.entityCount} entities, ${stats.relationshipCount} relationships; no entity, title link or relationship given by hand.`,
          'enrichContext: the defaults (topK, maxChars, graphShare, maxEntities); scored on its `documents` and `context`. Graph lane off: maxEntities 0 and graphShare 0 in the same run.',
          'search: groupByDocument, cut to as many distinct documents as enrichContext returned for the same question.',
        ],
      },
    };
  } finally {
    await services.close();
  }
}

/** MuSiQue-100: its paragraphs and questions from shared/data/musique. */
export function loadMusique(): { corpus: Paragraph[]; questions: Question[] } {
  const dir = path.join(DATA_DIR, 'musique');
  const corpus = JSON.parse(fs.readFileSync(path.join(dir, 'musique_train_corpus.json'), 'utf8')) as Paragraph[];
  const questions = JSON.parse(fs.readFileSync(path.join(dir, 'musique_train.json'), 'utf8')) as Question[];
  return { corpus, questions };
}

/** Writes one document per paragraph (id `p<index>`, title and text, as a user would) and waits for extraction. */
export async function writeMusique(services: Services, corpus: Paragraph[]): Promise<void> {
  await ingestParagraphs(services, corpus);
  await waitForExtraction(services);
}

async function score(services: Services, corpus: Paragraph[], questions: Question[]): Promise<Scores> {
  const docId = new Map<string, string>(corpus.map((p, i) => [`${p.title}\u0000${p.text}`, `p${i}`]));
  const s: Scores = {
    questions: 0,
    enrichRecall: 0,
    enrichAllFound: 0,
    searchRecall: 0,
    searchAllFound: 0,
    answerGraphOn: 0,
    answerGraphOff: 0,
    graphChunks: 0,
  };
  const ask = (query: string, graph: boolean) => askEnrich(services, query, graph);
  for (const q of questions) {
    const supporting = q.paragraphs
      .filter((p) => p.is_supporting)
      .map((p) => docId.get(`${p.title}\u0000${p.paragraph_text}`))
      .filter((x): x is string => !!x);
    if (supporting.length === 0) continue;
    const on = await ask(q.question, true);
    const off = await ask(q.question, false);
    const enrichDocs = on.documents.map((d) => d.id);
    const grouped = await services.search.hits({ query: q.question, topK: 100, filter: {}, groupByDocument: true });
    const searchDocs = grouped.map((h) => h.document.id).slice(0, enrichDocs.length);
    const recall = (docs: Iterable<string>) => {
      const set = new Set(docs);
      return supporting.filter((d) => set.has(d)).length / supporting.length;
    };
    const answers = [q.answer, ...(q.answer_aliases ?? [])];
    s.questions++;
    s.enrichRecall += recall(enrichDocs);
    s.searchRecall += recall(searchDocs);
    s.enrichAllFound += recall(enrichDocs) === 1 ? 1 : 0;
    s.searchAllFound += recall(searchDocs) === 1 ? 1 : 0;
    s.answerGraphOn += answers.some((a) => containsPhrase(on.context, a)) ? 1 : 0;
    s.answerGraphOff += answers.some((a) => containsPhrase(off.context, a)) ? 1 : 0;
    s.graphChunks += on.chunks.filter((c) => c.lane === 'GRAPH' && c.citation !== null).length;
  }
  return s;
}
