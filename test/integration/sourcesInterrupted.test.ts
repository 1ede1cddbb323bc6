import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../src/config.js';
import { HashingEmbeddingProvider } from '../../src/embeddings/hashing/HashingEmbeddingProvider.js';
import { silentLogger } from '../../src/logger.js';
import { createServices, type Services } from '../../src/services.js';
import { NO_BACKGROUND_EXTRACTION } from '../helpers/backgroundWork.js';
import { scratchPglite, type ScratchDatabase } from '../helpers/databases.js';

/** The hashing embedder, holding its second call until released (each file is embedded by its own call). */
class SecondCallGate extends HashingEmbeddingProvider {
  private calls = 0;
  private release!: () => void;
  private readonly released = new Promise<void>((resolve) => (this.release = resolve));
  private arrive!: () => void;
  readonly reached = new Promise<void>((resolve) => (this.arrive = resolve));

  constructor() {
    super({ dimensions: 64 });
  }

  open(): void {
    this.release();
  }

  override async embed(texts: string[]): Promise<Float32Array[]> {
    if (++this.calls === 2) {
      this.arrive();
      await this.released;
    }
    return super.embed(texts);
  }
}

// A sync stopped mid-way (the process shutting down) keeps the files it finished, and the next sync, in a new
// process over the same store, imports only the rest and ends with every file's document.
describe('a source sync stopped mid-way', () => {
  let root: string;
  let data: ScratchDatabase;
  let dataDir: string;
  beforeAll(async () => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-sources-stop-'));
    data = await scratchPglite(); // a copy of the migrated template
    dataDir = data.env.CAIRN_DATA_DIR!;
    fs.mkdirSync(path.join(root, 'book'));
    for (const name of ['a', 'b', 'c', 'd'])
      fs.writeFileSync(path.join(root, 'book', `${name}.md`), `# ${name}\n\nChapter ${name} of the book.`);
  });
  afterAll(async () => {
    fs.rmSync(root, { recursive: true, force: true });
    await data?.drop();
  });

  const open = (embedder: HashingEmbeddingProvider, now?: () => Date): Promise<Services> =>
    createServices(
      loadConfig({
        ...NO_BACKGROUND_EXTRACTION,
        NODE_ENV: 'test',
        CAIRN_DATA_DIR: dataDir,
        CAIRN_EMBEDDING_PROVIDER: 'hashing',
        CAIRN_EMBEDDING_DIMENSIONS: '64',
        CAIRN_EXPIRY_SWEEP_INTERVAL_MS: '0',
        CAIRN_SOURCES_FOLDER_ROOT: root,
        CAIRN_SOURCES_CACHE_DIR: path.join(dataDir, 'cache'),
        CAIRN_SOURCES_TICK_MS: '0',
      }),
      silentLogger(),
      { embedder, ...(now ? { now } : {}) },
    );

  it('loses nothing and finishes on the next run', async () => {
    const gate = new SecondCallGate();
    const first = await open(gate);
    const source = await first.sources.create({ name: 'book', kind: 'FOLDER', path: 'book' });
    const job = await first.sources.sync(source.id);
    await gate.reached;
    const stopped = first.imports.stop();
    gate.open();
    await stopped;
    expect((await first.imports.job(job.id))?.status).toBe('INTERRUPTED');
    const stoppedSource = await first.sources.byIdOrNameOrFail(source.id);
    expect(stoppedSource.status).toBe('FAILED');
    expect(stoppedSource.lastErrorCode).toBe('INTERRUPTED');
    const kept = await first.db.query<{ id: string }>('SELECT id FROM documents WHERE source_id = $1 ORDER BY id', [
      source.id,
    ]);
    expect(kept.rows.length).toBeGreaterThanOrEqual(1);
    expect(kept.rows.length).toBeLessThan(4);
    await first.close();

    const second = await open(new HashingEmbeddingProvider({ dimensions: 64 }));
    try {
      // A process killed outright leaves its source SYNCING; the next scheduler tick records it as interrupted.
      await second.db.query("UPDATE sources SET status = 'SYNCING', last_error = NULL WHERE id = $1", [source.id]);
      await second.sources.tick();
      expect(await second.sources.byIdOrNameOrFail(source.id)).toMatchObject({
        status: 'FAILED',
        lastErrorCode: 'INTERRUPTED',
      });
      expect((await second.sources.sync(source.id, { async: false })).status).toBe('SUCCEEDED');
      const after = await second.sources.byIdOrNameOrFail(source.id);
      expect(after.status).toBe('SUCCEEDED');
      expect(after.counts.unchanged).toBe(kept.rows.length);
      expect(after.counts.added).toBe(4 - kept.rows.length);
      const all = await second.db.query<{ id: string }>('SELECT id FROM documents WHERE source_id = $1 ORDER BY id', [
        source.id,
      ]);
      expect(all.rows.map((r) => r.id)).toEqual([
        'file:book/a.md',
        'file:book/b.md',
        'file:book/c.md',
        'file:book/d.md',
      ]);
    } finally {
      await second.close();
    }
  });

  // Closing while a scheduler tick is under way waits for it, and the tick ends without an error: it either started
  // the due sync before the close (its job then settles) or left it due for the next process. Either way the run
  // happens exactly once.
  it('waits for a scheduler tick in progress when the services close', async () => {
    let clock = new Date('2026-01-05T10:00:00Z');
    const services = await open(new HashingEmbeddingProvider({ dimensions: 64 }), () => clock);
    const source = await services.sources.create({
      name: 'nightly',
      kind: 'FOLDER',
      path: 'book',
      schedule: '0 * * * *',
    });
    clock = new Date('2026-01-05T12:00:00Z'); // the schedule has come due
    const tick = services.sources.tick();
    await services.close();
    const before = await tick;

    const reopened = await open(new HashingEmbeddingProvider({ dimensions: 64 }), () => clock);
    try {
      const after = await reopened.sources.tick();
      const jobs = [...before, ...after];
      expect(jobs.map((job) => job.request.kind)).toEqual(['source']);
      if (before.length === 1) expect((await reopened.imports.job(jobs[0]!.id))?.status).not.toMatch(/QUEUED|RUNNING/);
      expect((await reopened.sources.byIdOrNameOrFail(source.id)).nextRunAt?.toISOString()).toBe(
        '2026-01-05T13:00:00.000Z',
      );
    } finally {
      await reopened.close();
    }
  });
});
