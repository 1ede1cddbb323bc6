import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../src/config.js';
import { HashingEmbeddingProvider } from '../../src/embeddings/hashing/HashingEmbeddingProvider.js';
import { silentLogger } from '../../src/logger.js';
import { createServices, type Services } from '../../src/services.js';
import { createScratchDatabase, scratchPglite, type ScratchDatabase } from '../helpers/databases.js';
import { ensurePostgresTemplate } from '../helpers/templates.js';
import { NO_BACKGROUND_EXTRACTION } from '../helpers/backgroundWork.js';

/** The hashing embedder, holding every call until released (a sync started stays RUNNING meanwhile). */
class HeldEmbedder extends HashingEmbeddingProvider {
  private release!: () => void;
  private readonly released = new Promise<void>((resolve) => (this.release = resolve));

  constructor() {
    super({ dimensions: 64 });
  }

  open(): void {
    this.release();
  }

  private arrive!: () => void;
  /** Resolves once a call waits. */
  readonly reached = new Promise<void>((resolve) => (this.arrive = resolve));

  override async embed(texts: string[]): Promise<Float32Array[]> {
    this.arrive();
    await this.released;
    return super.embed(texts);
  }
}

const serverUrl = process.env.CAIRN_TEST_DATABASE_URL;
const describeServer = serverUrl ? describe : describe.skip;

/** An inline spec with one operation. */
const spec = (title: string) =>
  JSON.stringify({
    openapi: '3.0.3',
    info: { title, version: '1' },
    paths: { '/a': { get: { responses: { 200: { description: 'ok' } } } } },
  });

// Two Services over one Postgres database behave as two instances: what must be exclusive is exclusive across them.
describeServer('locks shared by instances on one database', () => {
  let database: ScratchDatabase & { url: string };
  let root: string;
  const opened: Services[] = [];
  beforeAll(async () => {
    database = await createScratchDatabase(serverUrl as string, await ensurePostgresTemplate(serverUrl as string));
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-locks-'));
    fs.mkdirSync(path.join(root, 'book'));
    fs.writeFileSync(path.join(root, 'book', 'a.md'), '# A\n\nChapter a.');
  });
  afterAll(async () => {
    for (const s of opened) await s.close();
    await database?.drop();
    fs.rmSync(root, { recursive: true, force: true });
  });

  const open = async (
    embedder: HashingEmbeddingProvider,
    env: Record<string, string> = {},
    queue = false,
  ): Promise<Services> => {
    const config = loadConfig({
      ...NO_BACKGROUND_EXTRACTION,
      NODE_ENV: 'test',
      ...database.env,
      CAIRN_EMBEDDING_PROVIDER: 'hashing',
      CAIRN_EMBEDDING_DIMENSIONS: '64',
      CAIRN_EXPIRY_SWEEP_INTERVAL_MS: '0',
      CAIRN_SOURCES_FOLDER_ROOT: root,
      CAIRN_SOURCES_TICK_MS: '0',
      ...env,
    });
    const services = await createServices(config, silentLogger(), { embedder, importQueue: queue });
    opened.push(services);
    return services;
  };

  it('starts one sync when two instances are asked to "Sync now" at once', async () => {
    const embedder = new HeldEmbedder();
    const [a, b] = [await open(embedder, {}, true), await open(embedder, {}, true)] as [Services, Services];
    const source = await a.sources.create({ name: 'book', kind: 'FOLDER', path: 'book' });
    const jobs = await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 === 0 ? a : b).sources.sync(source.id)));
    expect(new Set(jobs.map((j) => j.id)).size).toBe(1);
    const recorded = await a.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM import_jobs WHERE kind = 'source'`,
    );
    expect(recorded.rows[0]?.n).toBe(1);
    embedder.open();
    expect((await a.imports.waitFor(jobs[0]!.id)).status).toBe('SUCCEEDED');
  });

  it('keeps connections for the writes of a spec-lock holder while many imports wait (pool of 2)', async () => {
    const services = await open(new HashingEmbeddingProvider({ dimensions: 64 }), { CAIRN_DATABASE_POOL_SIZE: '2' });
    const jobs = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        services.imports.submit({ kind: 'openapi', content: spec(`Pooled ${i}`), tags: [], specId: `pooled-${i}` }),
      ),
    );
    // Without the bound, two holders took both connections and their writes failed after the 10 s connect timeout.
    expect(jobs.map((j) => j.status)).toEqual(Array(6).fill('SUCCEEDED'));
  });
});

// The same locks on PGlite are per key in the process: a spec import holding its spec id holds nothing else.
describe('locks on the embedded database', () => {
  let database: ScratchDatabase;
  let services: Services | undefined;
  afterAll(async () => {
    await services?.close();
    await database?.drop();
  });

  it('creates an entity while a spec import holds its spec id', async () => {
    database = await scratchPglite();
    const embedder = new HeldEmbedder();
    const config = loadConfig({
      ...NO_BACKGROUND_EXTRACTION,
      NODE_ENV: 'test',
      ...database.env,
      CAIRN_EMBEDDING_PROVIDER: 'hashing',
      CAIRN_EMBEDDING_DIMENSIONS: '64',
      CAIRN_EXPIRY_SWEEP_INTERVAL_MS: '0',
    });
    services = await createServices(config, silentLogger(), { embedder, importQueue: false });
    const s = services;
    // The import waits in its embedding, inside the spec lock.
    const importing = s.imports.submit({ kind: 'openapi', content: spec('Held'), tags: [], specId: 'held' });
    await embedder.reached;
    const entity = await s.graph.createEntity({ id: 'concept:independent', type: 'Concept', name: 'Independent' });
    expect(entity.name).toBe('Independent');
    embedder.open();
    expect((await importing).status).toBe('SUCCEEDED');
  });
});
