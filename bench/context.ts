import fs from 'node:fs';
import path from 'node:path';
import type { EnrichedContextRecord } from '../src/enrichment/types.js';
import type { Services } from '../src/services.js';
import { loadMusique, writeMusique } from './extraction/musique.js';
import { containsPhrase, extractionStore, mean, waitForExtraction } from './extraction/store.js';
import { importViteDocs, loadViteQuestions } from './extraction/vite.js';
import { machineLine, type Table } from './report.js';
import { defaultEnrichRequest } from './enrichRequest.js';

/** One question of a set: its text and the strings any of which answers it. */
interface AnswerQuestion {
  question: string;
  answers: string[];
}

/** What one configuration of enrichContext gave over a question set. */
interface ContextScores {
  answer: number;
  searchSameChars: number;
  share: number;
  midSentence: number;
  passages: number;
  unlocated: number;
  p95: number;
}

/**
 * The context an agent receives, over MuSiQue-100 and the Vite docs question set: whether the answer string reaches
 * `context` at the default settings, against search's top chunks concatenated to as many characters; the share of
 * `maxChars` used; passages starting or ending mid-sentence; and enrichContext's p95 with the neighbour expansion
 * against without (interleaved in one run). Runs on main's code too (where `expandNeighbors` is ignored), which is how
 * today's defaults are measured.
 */
export async function benchContext(sets = ['musique', 'vite'], expand?: string): Promise<Table[]> {
  const tables: Table[] = [];
  if (sets.includes('musique')) {
    const { corpus, questions } = loadMusique();
    const { services, fresh } = await store('musique', expand);
    try {
      if (fresh) await writeMusique(services, corpus);
      console.log(`  MuSiQue written and extracted (${corpus.length} paragraphs)`);
      const qs = questions.map((q) => ({ question: q.question, answers: [q.answer, ...(q.answer_aliases ?? [])] }));
      tables.push(table(`MuSiQue-100 (${corpus.length} paragraphs)`, await score(services, qs)));
    } finally {
      await services.close();
    }
  }
  if (sets.includes('vite')) {
    const { services, fresh } = await store('vite', expand);
    try {
      const pages = fresh ? (await importViteDocs(services)).length : await documentCount(services);
      console.log(`  Vite docs imported and extracted (${pages} pages)`);
      const qs = loadViteQuestions().map((q) => ({ question: q.question, answers: [q.answer] }));
      tables.push(table(`Vite docs (${pages} pages, ${qs.length} questions)`, await score(services, qs)));
    } finally {
      await services.close();
    }
  }
  return tables;
}

/**
 * The extraction benchmarks' store; lanes get a minute (the default 2 s drops a lane on a machine shared with other
 * jobs, which would measure the load rather than the context). With CAIRN_BENCH_CONTEXT_STORE=<folder>, each set's
 * store is a PGlite folder under it, written by the first run and only asked by later ones (`fresh` false), for
 * iterating on enrichment; a run stopped before extraction finished leaves jobs the worker goes on with.
 */
async function store(set: string, expand?: string): Promise<{ services: Services; fresh: boolean }> {
  const kept = process.env.CAIRN_BENCH_CONTEXT_STORE;
  const folder = kept ? path.resolve(kept, set) : undefined;
  const fresh = !folder || !fs.existsSync(folder);
  const services = await extractionStore('structural,offline', undefined, {
    CAIRN_ENRICH_LANE_TIMEOUT_MS: '60000',
    ...(expand ? { CAIRN_ENRICH_EXPAND_NEIGHBORS: expand } : {}),
    ...(folder ? { CAIRN_DATA_DIR: folder } : {}),
  });
  if (!fresh) await waitForExtraction(services, 4 * 3600_000);
  return { services, fresh };
}

async function documentCount(services: Services): Promise<number> {
  const { rows } = await services.db.query<{ n: number }>('SELECT count(*)::int AS n FROM documents');
  return rows[0]?.n ?? 0;
}

function table(corpus: string, s: { on: ContextScores; off: ContextScores }): Table {
  const row = (label: string, key: keyof ContextScores) => [label, s.on[key], s.off[key]];
  return {
    title: `The context an agent receives: ${corpus}, enrichContext at the defaults`,
    headers: ['measure', 'expansion on (default)', 'expansion off (expandNeighbors 0)'],
    rows: [
      row('answer string in context', 'answer'),
      row("search's top chunks, concatenated to the context's length: answer in them", 'searchSameChars'),
      row('share of maxChars used, mean', 'share'),
      row('passages starting or ending mid-sentence', 'midSentence'),
      row('passages in all contexts', 'passages'),
      row('passages not found verbatim in their document', 'unlocated'),
      row('enrichContext p95 ms (interleaved)', 'p95'),
      ['p95 with expansion ÷ without', s.off.p95 > 0 ? s.on.p95 / s.off.p95 : '', ''],
    ],
    notes: [
      `Machine: ${machineLine()}. Hashing embedder, 1024-d; PGlite, Postgres graph store; extractors structural + offline; graph lane on (the defaults: topK, maxChars, maxEntities, graphShare).`,
      'Mid-sentence: a passage (a cited document\'s text between ellipsis lines, graph evidence without its "(why)" line) that starts neither at its document\'s start, at a line start, nor after a sentence end at a character other than a lower-case letter, or ends before more text of its line without ending in ., !, ? or …; judged against the stored document.',
      "Search: `search` with topK 50, its chunks' contents joined in rank order and cut to the context's length.",
    ],
  };
}

async function score(
  services: Services,
  questions: AnswerQuestion[],
): Promise<{ on: ContextScores; off: ContextScores }> {
  const runs = { on: [] as EnrichedContextRecord[], off: [] as EnrichedContextRecord[] };
  const ms = { on: [] as number[], off: [] as number[] };
  // Warm up (embedder, caches, planner) before timing.
  for (const q of questions.slice(0, 5)) await ask(services, q.question, undefined);
  for (const [i, q] of questions.entries()) {
    // Interleaved, alternating which goes first, so load on the machine falls on both alike.
    const order: ('on' | 'off')[] = i % 2 === 0 ? ['on', 'off'] : ['off', 'on'];
    for (const mode of order) {
      const t0 = performance.now();
      runs[mode].push(await ask(services, q.question, mode === 'off' ? 0 : undefined));
      ms[mode].push(performance.now() - t0);
    }
  }
  const contents = await documentContents(services, [...runs.on, ...runs.off]);
  const searchSameChars = {
    on: await searchAnswers(services, questions, runs.on),
    off: await searchAnswers(services, questions, runs.off),
  };
  const summarise = (mode: 'on' | 'off'): ContextScores => {
    const shape = runs[mode].map((r) => sentenceCheck(r, contents));
    return {
      answer: mean(runs[mode].map((r, i) => (answered(r.context, questions[i] as AnswerQuestion) ? 1 : 0))),
      searchSameChars: searchSameChars[mode],
      share: mean(runs[mode].map((r) => r.context.length / services.config.enrich.maxChars)),
      midSentence: shape.reduce((n, s) => n + s.mid, 0),
      passages: shape.reduce((n, s) => n + s.passages, 0),
      unlocated: shape.reduce((n, s) => n + s.unlocated, 0),
      p95: percentile(ms[mode], 0.95),
    };
  };
  return { on: summarise('on'), off: summarise('off') };
}

/** enrichContext at the configured defaults, `expandNeighbors` as given (undefined: the default). */
function ask(services: Services, query: string, expandNeighbors: number | undefined): Promise<EnrichedContextRecord> {
  return services.enricher.enrich(
    defaultEnrichRequest(services, query, expandNeighbors === undefined ? {} : { expandNeighbors }),
  );
}

function answered(text: string, q: AnswerQuestion): boolean {
  return q.answers.some((a) => containsPhrase(text, a));
}

/** Share of questions whose answer is in search's top chunks joined and cut to the context's length. */
async function searchAnswers(
  services: Services,
  questions: AnswerQuestion[],
  contexts: EnrichedContextRecord[],
): Promise<number> {
  let found = 0;
  for (const [i, q] of questions.entries()) {
    const hits = await services.search.hits({ query: q.question, topK: 50, filter: {} });
    const joined = hits
      .map((h) => h.chunk.content)
      .join('\n\n')
      .slice(0, contexts[i]?.context.length ?? 0);
    if (answered(joined, q)) found++;
  }
  return found / Math.max(1, questions.length);
}

async function documentContents(services: Services, runs: EnrichedContextRecord[]): Promise<Map<string, string>> {
  const ids = [...new Set(runs.flatMap((r) => r.citations.map((c) => c.documentId)))];
  const { rows } = await services.db.query<{ id: string; content: string }>(
    'SELECT id, content FROM documents WHERE id = ANY($1::text[])',
    [ids],
  );
  return new Map(rows.map((r) => [r.id, r.content]));
}

/** The passages of a context, each with the document its citation names. */
function passagesOf(r: EnrichedContextRecord): { documentId: string; text: string }[] {
  const byNumber = new Map(r.citations.map((c) => [c.number, c.documentId]));
  const knowledge = r.context.split(/\n## Related entities\n/)[0] ?? '';
  return knowledge
    .replace(/^## Relevant knowledge\n/, '')
    .split(/\n\n(?=\[\d+\] )/)
    .flatMap((entry) => {
      const m = /^\[(\d+)\] [^\n]*\n/.exec(entry);
      const documentId = m ? byNumber.get(Number(m[1])) : undefined;
      if (!m || !documentId) return [];
      return entry
        .slice(m[0].length)
        .split('\n…\n')
        .map((p) => ({ documentId, text: p.replace(/^\([^\n]*\)\n/, '').trim() }))
        .filter((p) => p.text !== '');
    });
}

const SENTENCE_END = /[.!?…]["')\]*_`]*$/;

/** Passages starting or ending mid-sentence in one context, and those not found in their document. */
function sentenceCheck(
  r: EnrichedContextRecord,
  contents: ReadonlyMap<string, string>,
): { mid: number; passages: number; unlocated: number } {
  let mid = 0;
  let unlocated = 0;
  const passages = passagesOf(r);
  for (const p of passages) {
    const doc = contents.get(p.documentId) ?? '';
    const at = doc.indexOf(p.text);
    if (at < 0) {
      unlocated++;
      continue;
    }
    const before = doc.slice(0, at);
    const after = doc.slice(at + p.text.length);
    // A sentence edge, or where none is, a line edge (a table row, a line of code) at any case; nothing else.
    const startOk =
      before.trim() === '' ||
      /\n\s*$/.test(before) ||
      (!/^\p{Ll}/u.test(p.text) && SENTENCE_END.test(before.trimEnd()));
    const endOk = after.trim() === '' || /^[ \t]*\r?\n/.test(after) || SENTENCE_END.test(p.text);
    if (!startOk || !endOk) mid++;
  }
  return { mid, passages: passages.length, unlocated };
}

function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] as number;
}
