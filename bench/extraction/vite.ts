import fs from 'node:fs';
import path from 'node:path';
import { documentIdForFile, walkDirectory } from '../../importers/index.js';
import { validateDocumentDefaults } from '../../src/documents/validateInput.js';
import type { Services } from '../../src/services.js';
import { projectRoot } from '../../src/paths.js';
import { DATA_DIR } from '../datasets.js';
import { machineLine, type Table } from '../report.js';
import { askEnrich, containsPhrase, extractionStore, mean, waitForExtraction } from './store.js';
import { graphSample, judgedPrecision, topDegreeTable } from './viteGraph.js';

/** One question of bench/data/vite-questions.json. */
export interface ViteQuestion {
  question: string;
  /** Pages that answer it, relative to shared/data/docs/vite. */
  pages: string[];
  /** A phrase of the answer, verbatim from the page. */
  answer: string;
}

const DOCS_ROOT = path.join(DATA_DIR, 'docs', 'vite', 'docs');

/**
 * Vite's documentation imported as a user would (`cairn import dir`), the graph extracted from it, and developer
 * questions asked through enrichContext and search: hit@3 of the answering page and the answer phrase in `context`,
 * with the graph lane on and off. Also the extracted graph's size, its most connected entities and a sample to judge.
 */
export async function benchViteExtracted(databaseUrl?: string): Promise<Table[]> {
  const questions = loadViteQuestions();
  const services = await extractionStore('structural,offline', databaseUrl);
  try {
    const files = await importViteDocs(services);
    const stats = await services.graph.stats(30);
    const s = await score(services, questions);
    const sample = await graphSample(services);
    return [
      {
        title: `Vite docs, everything extracted: ${s.n} developer questions through the API`,
        headers: ['measure', 'enrichContext (graph lane on)', 'graph lane off', 'search'],
        rows: [
          ['answering page among the first 3 documents (hit@3)', s.hitOn, s.hitOff, s.hitSearch],
          ['answer phrase in context', s.answerOn, s.answerOff, ''],
          ['graph-lane chunks cited per question', s.graphChunks, 0, ''],
          ['questions where the graph lane added the answering page', s.graphAddedPage, '', ''],
        ],
        notes: [
          `Machine: ${machineLine()}. Hashing embedder, 1024-d; ${databaseUrl ? 'Postgres server' : 'PGlite'}, Postgres graph store; ${files.length} files imported with the directory importer, extractors structural + offline.`,
          `Extracted graph: ${stats.entityCount} entities, ${stats.relationshipCount} relationships (${stats.relationshipsByType.map((r) => `${r.key} ${r.count}`).join(', ')}).`,
          'search: groupByDocument, its first 3 documents. Graph lane off: maxEntities 0 and graphShare 0, in the same run.',
        ],
      },
      topDegreeTable(stats),
      judgedPrecision(sample),
    ];
  } finally {
    await services.close();
  }
}

/** The Vite question set's questions (the file is { corpus, about, questions }; its questions carry more fields). */
export function loadViteQuestions(): ViteQuestion[] {
  return (
    JSON.parse(fs.readFileSync(path.join(projectRoot, 'bench', 'data', 'vite-questions.json'), 'utf8')) as {
      questions: ViteQuestion[];
    }
  ).questions;
}

/** Imports Vite's docs as `cairn import dir` does and waits for their extraction; returns the files imported. */
export async function importViteDocs(services: Services): Promise<string[]> {
  const files = await walkDirectory(DOCS_ROOT);
  const job = await services.imports.submit({
    kind: 'directory',
    root: DOCS_ROOT,
    files,
    defaults: validateDocumentDefaults({}, 'import dir'),
  });
  if (job.status !== 'SUCCEEDED') throw new Error(`the Vite docs import ended ${job.status}`);
  await waitForExtraction(services);
  return files;
}

async function score(services: Services, questions: ViteQuestion[]) {
  const ask = (query: string, graph: boolean) => askEnrich(services, query, graph);
  const rows = { hitOn: [0], hitOff: [0], hitSearch: [0], answerOn: [0], answerOff: [0], graphChunks: [0] };
  for (const key of Object.keys(rows)) rows[key as keyof typeof rows] = [];
  let graphAddedPage = 0;
  for (const q of questions) {
    const pages = new Set(q.pages.map((p) => documentIdForFile(`docs/${p.replace(/^docs\//, '')}`)));
    const hit = (ids: readonly string[]) => (ids.slice(0, 3).some((id) => pages.has(id)) ? 1 : 0);
    const on = await ask(q.question, true);
    const off = await ask(q.question, false);
    const searched = await services.search.hits({ query: q.question, topK: 10, filter: {}, groupByDocument: true });
    rows.hitOn.push(hit(on.documents.map((d) => d.id)));
    rows.hitOff.push(hit(off.documents.map((d) => d.id)));
    rows.hitSearch.push(hit(searched.map((h) => h.document.id)));
    rows.answerOn.push(containsPhrase(on.context, q.answer) ? 1 : 0);
    rows.answerOff.push(containsPhrase(off.context, q.answer) ? 1 : 0);
    const graphDocs = on.chunks.filter((c) => c.lane === 'GRAPH' && c.citation !== null).map((c) => c.hit.document.id);
    rows.graphChunks.push(graphDocs.length);
    if (graphDocs.some((id) => pages.has(id)) && !off.documents.some((d) => pages.has(d.id))) graphAddedPage++;
  }
  return {
    n: questions.length,
    hitOn: mean(rows.hitOn),
    hitOff: mean(rows.hitOff),
    hitSearch: mean(rows.hitSearch),
    answerOn: mean(rows.answerOn),
    answerOff: mean(rows.answerOff),
    graphChunks: mean(rows.graphChunks),
    graphAddedPage,
  };
}
