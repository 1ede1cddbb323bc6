// `npx tsx bench/rateLimitCost.ts`: what one rate-limit decision costs per request, in this process's memory (the
// RateLimiter the server uses) and in the real Postgres server (rate-limiter-flexible's Postgres store, the
// deployment-wide alternative), alone and at the load bench's concurrency. Needs CAIRN_TEST_DATABASE_URL.
import pg from 'pg';
import { RateLimiterMemory, RateLimiterPostgres } from 'rate-limiter-flexible';
import { RateLimiter } from '../src/server/RateLimiter.js';
import { createScratchDatabase } from '../test/helpers/databases.js';
import { percentile } from './metrics.js';
import { benchDatabaseUrl } from './servers.js';

const KEYS = 200;
const url = benchDatabaseUrl();
if (!url) {
  console.error('set CAIRN_TEST_DATABASE_URL (`bash scripts/postgres-server.sh start` prints one)');
  process.exit(2);
}

/** Latencies (ms) of `calls` decisions made by `concurrency` callers at once, and the wall time. */
async function measure(consume: (key: string) => Promise<unknown>, calls: number, concurrency: number) {
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < calls) {
        const key = `key:${next++ % KEYS}`;
        const t = performance.now();
        // A refusal rejects with the limiter's answer and costs the same; any other error is a broken measurement.
        await consume(key).catch((err: unknown) => {
          if (err instanceof Error) throw err;
        });
        latencies.push(performance.now() - t);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((x, y) => x - y);
  const mean = latencies.reduce((a, b) => a + b, 0) / latencies.length;
  return {
    perSecond: Math.round(calls / seconds),
    mean,
    p50: percentile(latencies, 50),
    p95: percentile(latencies, 95),
  };
}

const fmt = (r: { perSecond: number; mean: number; p50: number; p95: number }) =>
  `${r.perSecond} decisions/s, mean ${r.mean.toFixed(3)} ms, p50 ${r.p50.toFixed(3)} ms, p95 ${r.p95.toFixed(3)} ms`;

const local = new RateLimiter(50, 100);
const localCalls = 1_000_000;
let t = performance.now();
for (let i = 0; i < localCalls; i++) local.take(`key:${i % KEYS}`);
console.log(
  `in process (RateLimiter.take): ${(((performance.now() - t) * 1e6) / localCalls).toFixed(0)} ns per decision`,
);

const memory = new RateLimiterMemory({ points: 100, duration: 2 });
t = performance.now();
for (let i = 0; i < 200_000; i++) await memory.consume(`key:${i % KEYS}`).catch(() => undefined);
console.log(
  `in process (rate-limiter-flexible memory): ${(((performance.now() - t) * 1e6) / 200_000).toFixed(0)} ns per decision`,
);

const scratch = await createScratchDatabase(url);
const pool = new pg.Pool({ connectionString: scratch.url, max: 10 });
try {
  const shared = await new Promise<RateLimiterPostgres>((resolve, reject) => {
    const limiter: RateLimiterPostgres = new RateLimiterPostgres(
      { storeClient: pool, tableName: 'rate_limits', points: 100, duration: 2 },
      (err?: Error) => (err ? reject(err) : resolve(limiter)),
    );
  });
  await measure((k) => shared.consume(k), 500, 1); // warm up the connections and the table
  console.log(`Postgres store, one caller:  ${fmt(await measure((k) => shared.consume(k), 5000, 1))}`);
  console.log(`Postgres store, 32 callers:  ${fmt(await measure((k) => shared.consume(k), 20000, 32))}`);
  console.log(
    `SELECT 1 for scale, 32 callers: ${fmt(await measure((k) => pool.query('SELECT $1::text', [k]), 20000, 32))}`,
  );
} finally {
  await pool.end();
  await scratch.drop();
}
