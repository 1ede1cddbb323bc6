import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { loadConfig } from '../../src/config.js';
import { HashingEmbeddingProvider } from '../../src/embeddings/hashing/HashingEmbeddingProvider.js';
import { silentLogger } from '../../src/logger.js';
import { projectPath } from '../../src/paths.js';
import { createServices, type Services } from '../../src/services.js';
import { childEnv } from '../helpers/cli.js';
import { dbTargets, type ScratchDatabase } from '../helpers/databases.js';
import { doc, EXTRACTION_ENV } from '../helpers/extractionScenario.js';
import { TextMarkupExtractor } from '../helpers/TextMarkupExtractor.js';
import { eventually } from '../helpers/eventually.js';

// Instances sharing a server database: one is killed (SIGKILL) while it extracts; another takes its document over once
// the lease runs out, and the evidence ends as if nothing had happened.
const servers = dbTargets().filter((t) => t.name === 'postgres');
const suite = servers.length > 0 ? describe.each(servers) : describe.skip.each([{ name: 'postgres' as const }]);
const LEASE_MS = 60_000;

const FIRST = doc(
  'doc:first',
  'Release Notes',
  'notes.md',
  'Built with [[Rollup|Technology]] and [[esbuild|Technology]].',
);
const HUNG = doc(
  'doc:hung',
  'Build Guide',
  'build.md',
  'HANG while [[Rollup|Technology]] bundles for [[Node.js|Technology]].',
);

/** Resolves once `file` exists (the child writes it when it hangs), failing after `ms`. */
async function fileAppears(file: string, child: ChildProcess, ms: number): Promise<void> {
  await eventually(
    () => {
      if (child.exitCode !== null) throw new Error(`the extracting instance exited (${child.exitCode})`);
      return fs.existsSync(file);
    },
    { within: ms, what: 'the extracting instance reaching the hanging chunk' },
  );
}

suite('a killed extracting instance ($name)', (target) => {
  let scratch: ScratchDatabase;
  let s: Services;
  let child: ChildProcess | undefined;
  let clock = Date.now(); // the dead instance's lease is measured in real time
  const extractor = new TextMarkupExtractor();
  const marker = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-kill-')), 'hung');
  beforeAll(async () => {
    scratch = await (target as (typeof servers)[number]).createDatabase();
    const env = { ...scratch.env, ...EXTRACTION_ENV, CAIRN_EXTRACTION_LEASE_MS: String(LEASE_MS) };
    s = await createServices(loadConfig(env), silentLogger(), {
      embedder: new HashingEmbeddingProvider({ dimensions: 64 }),
      extractors: [extractor],
      importQueue: false,
      now: () => new Date(clock),
    });
    await s.documents.upsertMany([FIRST]);
    await s.documents.upsertMany([HUNG]);
    child = spawn(process.execPath, ['--import', 'tsx', projectPath('test/helpers/extractionChild.ts')], {
      // One document a batch: the first finishes before the second hangs.
      env: childEnv({
        ...env,
        CAIRN_EXTRACTION_POLL_MS: '100',
        CAIRN_EXTRACTION_BATCH_DOCUMENTS: '1',
        CAIRN_TEST_HANG_MARKER: marker,
      }),
      cwd: projectPath(),
      stdio: ['ignore', 'pipe', 'inherit'],
    });
  }, 120_000);
  afterAll(async () => {
    child?.kill('SIGKILL');
    await s?.close();
    await scratch?.drop();
    fs.rmSync(path.dirname(marker), { recursive: true, force: true });
  });

  it('loses nothing and repeats nothing', async () => {
    const running = child as ChildProcess;
    await fileAppears(marker, running, 90_000);
    const exited = new Promise((resolve) => running.once('exit', resolve));
    running.kill('SIGKILL');
    await exited;
    expect((await s.extraction.documentState(FIRST.id as string))?.status).toBe('DONE');
    expect((await s.extraction.documentState(HUNG.id as string))?.status).toBe('RUNNING');

    // While the dead instance's lease holds, nobody takes its document.
    await s.extraction.drain();
    expect(extractor.calls).toBe(0);
    expect((await s.extraction.documentState(HUNG.id as string))?.status).toBe('RUNNING');

    clock = Date.now() + LEASE_MS + 1000;
    await s.extraction.drain();
    expect(await s.extraction.statusCounts()).toEqual({ pending: 0, running: 0, done: 2, failed: 0 });
    // Only the hung document's chunk was extracted again; the first one's result stayed.
    expect(extractor.calls).toBe(1);
    const { rows } = await s.db.query<{ fact_key: string; document_id: string; n: number }>(
      `SELECT fact_key, document_id, count(*)::int AS n FROM extraction_evidence
        WHERE fact_key LIKE 'e:%' GROUP BY fact_key, document_id ORDER BY document_id, fact_key`,
    );
    expect(rows).toEqual([
      { document_id: 'doc:first', fact_key: 'e:x:technology:esbuild', n: 1 },
      { document_id: 'doc:first', fact_key: 'e:x:technology:rollup', n: 1 },
      { document_id: 'doc:first', fact_key: 'e:x:topic:release-note', n: 1 },
      { document_id: 'doc:hung', fact_key: 'e:x:technology:node.js', n: 1 },
      { document_id: 'doc:hung', fact_key: 'e:x:technology:rollup', n: 1 },
      { document_id: 'doc:hung', fact_key: 'e:x:topic:build-guide', n: 1 },
    ]);
    // Five facts with evidence; "Release Notes" is a generic heading, so its page makes no entity.
    const entities = await s.graph.getEntities(rows.map((r) => r.fact_key.slice(2)));
    expect([...new Set(entities.map((e) => e.id))].sort()).toEqual([
      'x:technology:esbuild',
      'x:technology:node.js',
      'x:technology:rollup',
      'x:topic:build-guide',
    ]);
  }, 120_000);
});
