import fs from 'node:fs';
import { performance } from 'node:perf_hooks';
import { gunzipSync } from 'node:zlib';
import { AppError, ErrorCode } from '../src/errors.js';
import { loadConfig } from '../src/config.js';
import { HashingEmbeddingProvider } from '../src/embeddings/hashing/HashingEmbeddingProvider.js';
import { silentLogger } from '../src/logger.js';
import { projectPath } from '../src/paths.js';
import { createServices } from '../src/services.js';
import { htmlToMarkdown } from '../importers/html/htmlToMarkdown.js';
import type { SafeFetcher } from '../importers/http/SafeFetcher.js';
import { loadOpenApiSpec } from '../importers/openapi/loadSpec.js';
import { openApiToPlan } from '../importers/openapi/specToPlan.js';
import { writePlan } from '../importers/pipeline/writePlan.js';
import type { Table } from './report.js';

const PAGES = ['article.html', 'docs.html', 'noisy.html'];

/** A fetcher for a self-contained spec: any external reference is a bug in the fixture. */
const noNetwork: SafeFetcher = {
  fetch: (url) =>
    Promise.reject(new AppError(ErrorCode.IMPORT_FETCH_BLOCKED, `the benchmark fetches nothing (${url})`)),
};

/** Converts each fixture page repeatedly for about `seconds` and returns pages/s per page and overall. */
function benchHtml(seconds: number): { rows: (string | number)[][]; overall: number } {
  const rows: (string | number)[][] = [];
  let pages = 0;
  let elapsed = 0;
  for (const name of PAGES) {
    const html = fs.readFileSync(projectPath('test', 'fixtures', 'pages', name), 'utf8');
    htmlToMarkdown(html, { baseUrl: 'https://docs.example.com/guide/intro' }); // warm-up
    let n = 0;
    const start = performance.now();
    while (performance.now() - start < seconds * 1000) {
      htmlToMarkdown(html, { baseUrl: 'https://docs.example.com/guide/intro' });
      n += 1;
    }
    const ms = performance.now() - start;
    rows.push([`HTML → markdown: ${name} (${(html.length / 1024).toFixed(1)} KB)`, n, ms / n, (n / ms) * 1000]);
    pages += n;
    elapsed += ms;
  }
  return { rows, overall: (pages / elapsed) * 1000 };
}

/** Parses, validates and plans the large real spec, then writes it into an in-memory PGlite store. */
async function benchOpenApi(): Promise<(string | number)[][]> {
  const content = gunzipSync(
    fs.readFileSync(projectPath('test', 'fixtures', 'openapi', 'large', 'github-api.json.gz')),
  ).toString('utf8');
  let t = performance.now();
  const spec = await loadOpenApiSpec({ content }, { fetcher: noNetwork, maxBytes: 64 * 1024 * 1024 });
  const loadMs = performance.now() - t;
  t = performance.now();
  const plan = openApiToPlan(spec, { specId: 'github', tags: ['github'], source: 'bench' });
  const planMs = performance.now() - t;
  const operations = plan.documents.length - 1;

  const config = loadConfig({
    CAIRN_DATA_DIR: 'memory://',
    CAIRN_EMBEDDING_PROVIDER: 'hashing',
    CAIRN_EXPIRY_SWEEP_INTERVAL_MS: '0',
  });
  const services = await createServices(config, silentLogger(), {
    embedder: new HashingEmbeddingProvider({ dimensions: 1024 }),
    importQueue: false,
  });
  let writeMs: number;
  let chunks: number;
  try {
    t = performance.now();
    const outcome = await writePlan(plan, { documents: services.documents, graph: services.graph, limits: config });
    writeMs = performance.now() - t;
    chunks = outcome.chunkCount;
  } finally {
    await services.close();
  }
  const label = `GitHub REST spec (${(content.length / 2 ** 20).toFixed(1)} MB, ${operations} operations)`;
  return [
    [`${label}: parse + validate + dereference`, operations, loadMs, (operations / loadMs) * 1000],
    [`${label}: plan documents and graph`, operations, planMs, (operations / planMs) * 1000],
    [
      `${label}: write to PGlite (${chunks} chunks, ${plan.entities.length} entities, ${plan.relationships.length} relationships)`,
      operations,
      writeMs,
      (operations / writeMs) * 1000,
    ],
    [`${label}: end to end`, operations, loadMs + planMs + writeMs, (operations / (loadMs + planMs + writeMs)) * 1000],
  ];
}

/** Importer throughput: HTML pages/s over the page fixtures and OpenAPI operations/s on a large real spec. */
export async function benchImporters(): Promise<Table> {
  const html = benchHtml(2);
  const openapi = await benchOpenApi();
  return {
    title: 'Importers: HTML to markdown and OpenAPI',
    headers: ['what', 'items', 'ms (per page, or total)', 'items/s'],
    rows: [...html.rows, ['HTML → markdown: all three pages', '', '', html.overall], ...openapi],
    notes: [
      'HTML rows: one page converted repeatedly for 2 s (linkedom + Readability + turndown); items are pages.',
      'OpenAPI rows: items are operations; the write step embeds with the hashing embedder (1024-d) and writes documents, chunks, entities, relationships and mentions.',
    ],
  };
}
