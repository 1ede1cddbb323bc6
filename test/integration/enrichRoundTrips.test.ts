// How many statements one enrichContext sends to each store (issue 21): every statement is a round trip, and on a
// busy machine each one also waits for a core, so these counts bound the latency as much as any query plan does.
// The bounds are today's counts (see bench/peer/PROFILE.md): lower them when a change removes a statement. The
// names are trusted for an hour here, so no call's count depends on how long the one before it took (the name
// cache checks their version at most once per CAIRN_QUERY_NAMES_MAX_AGE_MS; this process's writes drop it at once).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import { projectShare } from '../helpers/projects.js';
import { serverRuns, startRunServer } from '../helpers/serverRuns.js';
import { countStatements } from '../helpers/statementCounter.js';
import type { TestServer } from '../helpers/testServer.js';

/**
 * Postgres statements of one call per run, counted by `countStatements` (the call's own only). Every run sends 9:
 * the spaces the query's space reads (space_reads, see docs/security.md#reading-other-spaces), the keyword lane's
 * BM25 (term statistics included), the query entities' mention counts, the hits' chunk rows, the entities those
 * chunks mention, the hits' word coverage (a hit scores under the relevance floor), the hits' neighbouring chunks (one
 * batched read), the evidence read (chunks of the entities, with their mention counts) and the gap check's word
 * coverage of the context. On the server the vector lane adds 5: one transaction that widens ef_search for HNSW
 * (BEGIN, SET LOCAL, SELECT, COMMIT) and an exact scan, since this corpus has fewer chunks than the lane's 50
 * candidates. On PGlite the keyword lane runs in a transaction with its planner settings (BEGIN, SET LOCAL, COMMIT: 3
 * more) and the vector lane is the in-memory index: its change-log check and its hits' rows (2). The Postgres graph
 * store adds the graph lane's expansion and the two graph reads (entities, relationships).
 */
const POSTGRES_STATEMENTS: Record<string, number> = {
  'postgres graph on pglite': 17,
  'postgres graph on postgres': 17,
  'neo4j graph on postgres': 14,
  'neo4j graph on pglite': 14,
};

/**
 * The longest chain of statements each sent after the previous one answered, on the server (PGlite runs one statement
 * at a time, so there every statement is in the chain): the rows of the top chunks, the graph step and the gap check
 * all start from the ranking, so the step's chain is the mentions of the top chunks, the evidence read and the graph
 * chunks' rows, after whichever finishes last of the keyword lane and the graph lane's seeds (on the Postgres graph
 * store: the query entities' mention counts, then the expansion), and then the gap check, which reads the finished
 * context.
 */
const CHAIN_ON_SERVER = 9;

const ENRICH = `query($input: EnrichContextInput!) { enrichContext(input: $input) { context chunks { document { id } } entities { entity { id } } warnings } }`;

/**
 * Statements that are not the call's own work, or not every call's: the name cache's freshness check (at most once a
 * second, so under load every call may make one), the guard's check for any active API key (cached for 2 s, so a
 * slow machine makes it before each call), the import job poller and the source scheduler.
 */
const BACKGROUND = /FROM entity_names$|FROM api_keys WHERE revoked_at IS NULL|\bimport_jobs\b|\bsources\b/;

/** When each Postgres statement was sent and answered while `work` runs (background statements left out). */
async function postgresTimeline(work: () => Promise<unknown>): Promise<{ sent: number; done: number }[]> {
  const timeline: { sent: number; done: number }[] = [];
  const query = pg.Client.prototype.query;
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const entry = { sent: performance.now(), done: Infinity };
    const text =
      typeof args[0] === 'string' ? args[0] : String((args[0] as { text?: unknown } | undefined)?.text ?? '');
    if (!BACKGROUND.test(text)) timeline.push(entry);
    const callback = args.at(-1);
    // The pool passes a callback: the statement is answered when it is called.
    if (typeof callback === 'function') {
      args[args.length - 1] = (...r: unknown[]) => ((entry.done = performance.now()), callback(...r));
      return (query as (...a: unknown[]) => unknown).apply(this, args);
    }
    const result = (query as (...a: unknown[]) => unknown).apply(this, args);
    void Promise.resolve(result).finally(() => (entry.done = performance.now()));
    return result;
  } as typeof query;
  try {
    await work();
  } finally {
    pg.Client.prototype.query = query;
  }
  return timeline;
}

/** The longest chain of statements each sent after the previous one was answered. */
function longestChain(timeline: readonly { sent: number; done: number }[]): number {
  const sorted = [...timeline].sort((a, b) => a.sent - b.sent);
  const chain = sorted.map(() => 1);
  sorted.forEach((s, i) => {
    for (let j = 0; j < i; j++)
      if ((sorted[j] as { done: number }).done <= s.sent)
        chain[i] = Math.max(chain[i] as number, (chain[j] as number) + 1);
  });
  return Math.max(0, ...chain);
}

const everyDatabaseRuns = projectShare(serverRuns({ everyDatabase: true }));

describe.each(everyDatabaseRuns)('enrichContext round trips ($name)', (run) => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startRunServer(run, { CAIRN_QUERY_NAMES_MAX_AGE_MS: String(3_600_000) });
    await t.gql(`mutation($input: UpsertGraphInput!) { upsertGraph(input: $input) { entities { id } } }`, {
      input: {
        entities: [
          { id: 'svc:payments', type: 'Service', name: 'Payment Service' },
          { id: 'sys:ledger', type: 'System', name: 'Ledger' },
          { id: 'team:core', type: 'Team', name: 'Core Banking Team' },
        ],
        relationships: [
          { fromId: 'svc:payments', toId: 'sys:ledger', type: 'DEPENDS_ON' },
          { fromId: 'team:core', toId: 'svc:payments', type: 'OWNS' },
        ],
      },
    });
    await t.gql(`mutation($input: [CreateDocumentInput!]!) { upsertDocuments(input: $input) { changed } }`, {
      input: [
        {
          id: 'rb:payments',
          title: 'Payment Service runbook',
          content: 'When the Payment Service is slow, check Ledger latency first. The Core Banking Team owns it.',
        },
        {
          id: 'rb:ledger',
          title: 'Ledger notes',
          content: 'The Ledger keeps balances; payment retries are idempotent.',
        },
      ],
    });
    await t.services.outbox?.drain();
  }, 120_000);
  afterAll(async () => {
    await t?.close();
  });

  it('sends a bounded number of statements to each store', async () => {
    const ask = () =>
      t.gql<{ enrichContext: { chunks: unknown[]; entities: unknown[]; warnings: string[] } }>(ENRICH, {
        input: { query: 'payment service ledger latency', topK: 5 },
      });
    await ask(); // the name cache loads on the first call
    const { value: res, statements, neo4j } = await countStatements(ask);
    expect(res.data?.enrichContext.warnings).toEqual([]);
    expect(res.data?.enrichContext.chunks.length).toBeGreaterThan(0);
    expect(res.data?.enrichContext.entities.length).toBeGreaterThan(0);
    expect(statements).toBeLessThanOrEqual(POSTGRES_STATEMENTS[run.name] ?? 0);
    // On Neo4j: the graph lane's expansion, then the entities and the relationships among them.
    expect(neo4j).toBe(run.graph ? 2 : 0);
  });

  if (run.db.name === 'postgres') {
    it('waits for a bounded chain of statements one after another', async () => {
      let chain = Infinity;
      for (let i = 0; i < 3; i++) {
        const timeline = await postgresTimeline(() =>
          t.gql(ENRICH, { input: { query: 'payment service ledger latency', topK: 5 } }),
        );
        chain = Math.min(chain, longestChain(timeline));
      }
      expect(chain).toBeLessThanOrEqual(CHAIN_ON_SERVER);
    });
  }
});
