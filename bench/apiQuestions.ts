import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { validateOpenApiImport } from '../importers/validateImportInput.js';
import { loadConfig } from '../src/config.js';
import { silentLogger } from '../src/logger.js';
import { createServices, type Services } from '../src/services.js';
import { createScratchDatabase } from '../test/helpers/databases.js';
import {
  acceptedDocumentIds,
  loadApiQuestionSet,
  OPENAPI_DIR,
  QUESTION_KINDS,
  type ApiQuestion,
  type ApiSpec,
  type QuestionKind,
} from './apiQuestionSet.js';
import type { BenchEmbedder } from './ingestSearch.js';
import { distinct } from './metrics.js';
import { machineLine, type Table } from './report.js';

/** What `benchApiQuestions` runs: one store per embedder, on PGlite unless a server URL is given. */
export interface ApiQuestionsOptions {
  embedders: readonly BenchEmbedder[];
  /** A Postgres server: each embedder gets a scratch database on it instead of PGlite. */
  serverUrl?: string | undefined;
}

/** Ranks scored: hit@1 and MRR over the first 10 distinct documents. */
const RANKS = 10;
/** DigitalOcean's spec with all its referenced files is about 14 MB; the default cap is 10 MB. */
const IMPORT_MAX_BYTES = String(64 * 1024 * 1024);
/** Issue #19's targets. */
const IDENTIFIER_HIT1_TARGET = 0.95;
const LOCAL_OVERALL_ENRICH_HIT1_TARGET = 0.6;

interface Scored {
  question: ApiQuestion;
  /** 0-based rank of the first accepted document, or -1 when none is in the first RANKS. */
  searchRank: number;
  enrichRank: number;
  searchTop: string | undefined;
  enrichTop: string | undefined;
}

interface SpecImport {
  spec: ApiSpec;
  documents: number;
  chunks: number;
  seconds: number;
  error?: string;
}

/**
 * The API questions bench (issue #19): imports every spec of bench/data/apiQuestions.json into one store through the
 * OpenAPI importer (from a local HTTP server, so multi-file specs resolve their `$ref`s as a URL import would), then asks
 * each question through `search` and `enrichContext` and scores where the expected operation's document comes. One
 * table per embedder.
 */
export async function benchApiQuestions(options: ApiQuestionsOptions): Promise<Table[]> {
  const set = loadApiQuestionSet();
  const site = await serveFolder(OPENAPI_DIR);
  try {
    const tables: Table[] = [];
    for (const embedder of options.embedders) {
      console.log(`API questions with the ${embedder.label} …`);
      const scratch = options.serverUrl ? await createScratchDatabase(options.serverUrl) : undefined;
      try {
        tables.push(await runOne(set.specs, set.questions, embedder, site.url, scratch?.url));
      } finally {
        await scratch?.drop();
      }
    }
    return tables;
  } finally {
    await site.close();
  }
}

async function runOne(
  specs: readonly ApiSpec[],
  questions: readonly ApiQuestion[],
  embedder: BenchEmbedder,
  baseUrl: string,
  databaseUrl: string | undefined,
): Promise<Table> {
  const config = loadConfig({
    CAIRN_DATA_DIR: 'memory://',
    CAIRN_IMPORT_ALLOW_PRIVATE_HOSTS: '127.0.0.1',
    CAIRN_IMPORT_MAX_BYTES: IMPORT_MAX_BYTES,
    CAIRN_IMPORT_SPEC_MAX_BYTES: IMPORT_MAX_BYTES,
    ...(databaseUrl ? { CAIRN_DATABASE_URL: databaseUrl } : {}),
  });
  const services = await createServices(config, silentLogger(), { embedder: embedder.create(), importQueue: false });
  try {
    const imports: SpecImport[] = [];
    for (const spec of specs) imports.push(await importSpec(services, spec, baseUrl));
    const skipped = new Set(imports.filter((i) => i.error !== undefined).map((i) => i.spec.id));
    const asked = questions.filter(
      (q) => !skipped.has(q.spec) && !(q.alsoAccepted ?? []).some((a) => skipped.has(a.spec)),
    );
    await assertExpectedDocumentsExist(services, asked);
    const scored: Scored[] = [];
    for (const q of asked) scored.push(await ask(services, q));
    printMisses(scored);
    return table(embedder, databaseUrl ? 'Postgres server' : 'PGlite', imports, scored);
  } finally {
    await services.close();
  }
}

/** Imports one spec from the local server under its own spec id; an optional spec that fails is reported, not thrown. */
async function importSpec(services: Services, spec: ApiSpec, baseUrl: string): Promise<SpecImport> {
  const url = `${baseUrl}/${spec.file.split('/').map(encodeURIComponent).join('/')}`;
  const request = validateOpenApiImport({ url, specId: spec.id }, services.config.import.maxBytes);
  const t0 = performance.now();
  const job = await services.imports.submit(request);
  const seconds = (performance.now() - t0) / 1000;
  const failed = job.items.find((i) => i.status === 'FAILED');
  if (!failed) {
    const documents = new Set(job.items.flatMap((i) => i.documentIds)).size;
    console.log(`  imported ${spec.id}: ${documents} documents, ${job.chunkCount} chunks in ${seconds.toFixed(0)} s`);
    return { spec, documents, chunks: job.chunkCount, seconds };
  }
  const error = `${failed.errorCode ?? 'error'}: ${failed.error ?? 'no message'}`;
  if (!spec.optional) throw new Error(`importing ${spec.id} (${spec.file}) failed: ${error}`);
  console.log(`  skipping ${spec.id} and its questions: its import failed (${error})`);
  return { spec, documents: 0, chunks: 0, seconds, error };
}

/** A question whose expected operation was not imported would score as a miss; it is a defect of the set instead. */
async function assertExpectedDocumentsExist(services: Services, questions: readonly ApiQuestion[]): Promise<void> {
  const ids = [...new Set(questions.flatMap(acceptedDocumentIds))];
  const { rows } = await services.db.query<{ id: string }>('SELECT id FROM documents WHERE id = ANY($1)', [ids]);
  const found = new Set(rows.map((r) => r.id));
  const missing = ids.filter((id) => !found.has(id));
  if (missing.length > 0) throw new Error(`expected operation documents were not imported: ${missing.join(', ')}`);
}

async function ask(services: Services, q: ApiQuestion): Promise<Scored> {
  const accepted = new Set(acceptedDocumentIds(q));
  const hits = await services.search.hits({ query: q.question, topK: RANKS, filter: {} });
  const searchDocs = distinct(hits.map((h) => h.document.id)).slice(0, RANKS);
  const { enrich, rag } = services.config;
  const enriched = await services.enricher.enrich({
    query: q.question,
    topK: Math.min(RANKS, rag.maxTopK),
    graphShare: enrich.graphShare,
    maxEntities: enrich.maxEntities,
    graphDepth: 1,
    maxChars: enrich.maxChars,
    filter: {},
    mode: undefined,
  });
  const enrichDocs = enriched.documents.map((d) => d.id).slice(0, RANKS);
  return {
    question: q,
    searchRank: searchDocs.findIndex((id) => accepted.has(id)),
    enrichRank: enrichDocs.findIndex((id) => accepted.has(id)),
    searchTop: searchDocs[0],
    enrichTop: enrichDocs[0],
  };
}

/** The questions enrichContext did not answer first, for reading what came instead. */
function printMisses(scored: readonly Scored[]): void {
  for (const s of scored.filter((x) => x.enrichRank !== 0)) {
    const rank = (r: number) => (r < 0 ? `>${RANKS}` : String(r + 1));
    console.log(
      `  miss [${s.question.kind}] "${s.question.question}": search rank ${rank(s.searchRank)}, enrichContext rank ${rank(s.enrichRank)}; enrichContext's first: ${s.enrichTop ?? '(none)'}`,
    );
  }
}

const hit1 = (ranks: readonly number[]) =>
  ranks.length === 0 ? Number.NaN : ranks.filter((r) => r === 0).length / ranks.length;
const mrr = (ranks: readonly number[]) =>
  ranks.length === 0 ? Number.NaN : ranks.reduce((sum, r) => sum + (r < 0 ? 0 : 1 / (r + 1)), 0) / ranks.length;

function row(label: string, scored: readonly Scored[], target: string): (string | number)[] {
  const s = scored.map((x) => x.searchRank);
  const e = scored.map((x) => x.enrichRank);
  return [label, scored.length, hit1(s), mrr(s), hit1(e), mrr(e), target];
}

/** "met" or "missed (0.420)" for a hit@1 target. */
function versus(value: number, target: number): string {
  return value >= target ? `met (${value.toFixed(3)})` : `missed (${value.toFixed(3)})`;
}

function table(
  embedder: BenchEmbedder,
  store: string,
  imports: readonly SpecImport[],
  scored: readonly Scored[],
): Table {
  const ofKind = (k: QuestionKind) => scored.filter((s) => s.question.kind === k);
  const identifiers = ofKind('identifier');
  const idTarget = `hit@1 ≥ ${IDENTIFIER_HIT1_TARGET}: search ${versus(hit1(identifiers.map((s) => s.searchRank)), IDENTIFIER_HIT1_TARGET)}, enrichContext ${versus(hit1(identifiers.map((s) => s.enrichRank)), IDENTIFIER_HIT1_TARGET)}`;
  const overallTarget =
    embedder.provider === 'local'
      ? `enrichContext hit@1 ≥ ${LOCAL_OVERALL_ENRICH_HIT1_TARGET}: ${versus(hit1(scored.map((s) => s.enrichRank)), LOCAL_OVERALL_ENRICH_HIT1_TARGET)}`
      : '–';
  const rows = QUESTION_KINDS.map((k) => row(k, ofKind(k), k === 'identifier' ? idTarget : '–'));
  rows.push(row('overall', scored, overallTarget));
  const imported = imports.filter((i) => i.error === undefined);
  const skipped = imports.filter((i) => i.error !== undefined);
  const sum = (f: (i: SpecImport) => number) => imported.reduce((n, i) => n + f(i), 0);
  const bySpec = [...new Set(scored.map((s) => specGroup(s.question.spec)))].map((g) => {
    const of = scored.filter((s) => specGroup(s.question.spec) === g);
    return `${g} ${of.length} (search ${hit1(of.map((s) => s.searchRank)).toFixed(2)}, enrichContext ${hit1(of.map((s) => s.enrichRank)).toFixed(2)})`;
  });
  return {
    title: `API questions: search and enrichContext, ${embedder.label}`,
    headers: [
      'kind',
      'questions',
      'search hit@1',
      `search MRR@${RANKS}`,
      'enrichContext hit@1',
      `enrichContext MRR@${RANKS}`,
      'target',
    ],
    rows,
    notes: [
      `Machine: ${machineLine()}. ${store}, Postgres graph store. ${imported.length} specs imported into one store through the OpenAPI importer (URL imports from a local HTTP server) in ${sum((i) => i.seconds).toFixed(0)} s: ${sum((i) => i.documents)} documents, ${sum((i) => i.chunks)} chunks.`,
      ...(skipped.length > 0
        ? [
            `Not imported, so their questions were skipped: ${skipped.map((i) => `${i.spec.id} (${i.error ?? ''})`).join('; ')}.`,
          ]
        : []),
      `Questions: bench/data/apiQuestions.json. A question is answered by its expected operation's document (or the same operation in a copy of the spec, for the petstore variants). search: the distinct documents of search's top ${RANKS} chunks, in order; enrichContext: its \`documents\`, in its order (topK ${RANKS}, the server's defaults otherwise). MRR counts the first ${RANKS} ranks.`,
      `hit@1 by spec: ${bySpec.join('; ')}.`,
      `Targets (issue #19): identifier queries hit@1 ≥ ${IDENTIFIER_HIT1_TARGET} with either embedder; with the local model, enrichContext hit@1 ≥ ${LOCAL_OVERALL_ENRICH_HIT1_TARGET} overall.`,
    ],
  };
}

/** Box, DigitalOcean, or the OAI examples as one group. */
function specGroup(specId: string): string {
  return specId.startsWith('oai-')
    ? 'OAI examples'
    : specId === 'box'
      ? 'Box'
      : specId === 'digitalocean'
        ? 'DigitalOcean'
        : specId;
}

/** Serves a folder's files read-only on 127.0.0.1 (YAML and JSON with their media types). */
async function serveFolder(root: string): Promise<{ url: string; close(): Promise<void> }> {
  const base = path.resolve(root);
  const server = http.createServer((req, res) => {
    const relative = decodeURIComponent((req.url ?? '/').split('?')[0] ?? '/');
    const file = path.resolve(base, `.${relative}`);
    if (!file.startsWith(`${base}${path.sep}`) || !fs.existsSync(file) || !fs.statSync(file).isFile()) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    const type = /\.ya?ml$/i.test(file)
      ? 'application/yaml'
      : /\.json$/i.test(file)
        ? 'application/json'
        : 'application/octet-stream';
    res.writeHead(200, { 'content-type': type });
    fs.createReadStream(file).pipe(res);
  });
  // The importer fetches a spec's $refs in parallel: hundreds of connections at once for DigitalOcean.
  await new Promise<void>((resolve) => server.listen({ port: 0, host: '127.0.0.1', backlog: 4096 }, resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
