// How many statements one enrichContext sends to each store (issue 21): every statement is a round trip, and on a
// busy machine each one also waits for a core, so these counts bound the latency as much as any query plan does.
// The bounds are today's counts (see bench/peer/PROFILE.md): lower them when a change removes a statement. No cache
// a request reads expires by the clock (the entity names and whether any API key exists are rechecked in the
// background: see BackgroundRecheck), so no call's statements depend on how long the one before it took.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { projectShare } from '../helpers/projects.js';
import { serverRuns, startRunServer } from '../helpers/serverRuns.js';
import { countStatements } from '../helpers/statementCounter.js';
import type { TestServer } from '../helpers/testServer.js';

/**
 * Postgres statements of one call per run, counted by `countStatements` (the call's own only: not the spaces the
 * query's space reads, which the request reads from the primary outside its route, see
 * docs/security.md#reading-other-spaces). Every run sends 8: the keyword lane's
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
  'postgres graph on pglite': 16,
  'postgres graph on postgres': 16,
  'neo4j graph on postgres': 13,
  'neo4j graph on pglite': 13,
};

/**
 * The longest chain of the call's statements each sent after the previous one answered, on the server (PGlite runs
 * one statement at a time, so there every statement is in the chain): the rows of the top chunks, the graph step and the gap check
 * all start from the ranking, so the step's chain is the mentions of the top chunks, the evidence read and the graph
 * chunks' rows, after whichever finishes last of the keyword lane and the graph lane's seeds (on the Postgres graph
 * store: the query entities' mention counts, then the expansion), and then the gap check, which reads the finished
 * context.
 */
const CHAIN_ON_SERVER = 8;
/** A busy machine may start a lane only after a statement of another lane was answered: one more link, at most. */
const LATE_LANE = 1;

const ENRICH = `query($input: EnrichContextInput!) { enrichContext(input: $input) { context chunks { document { id } } entities { entity { id } } warnings } }`;

const everyDatabaseRuns = projectShare(serverRuns({ everyDatabase: true }));

describe.each(everyDatabaseRuns)('enrichContext round trips ($name)', (run) => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startRunServer(run);
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
    expect(statements).toBe(POSTGRES_STATEMENTS[run.name]);
    // On Neo4j: the graph lane's expansion, then the entities and the relationships among them.
    expect(neo4j).toBe(run.graph ? 2 : 0);
  });

  if (run.db.name === 'postgres') {
    it('waits for a bounded chain of statements one after another', async () => {
      // The fewest of three calls: a lane a busy machine starts late may chain behind another lane's statements.
      let chain = Infinity;
      for (let i = 0; i < 3; i++) {
        const { postgresChain } = await countStatements(() =>
          t.gql(ENRICH, { input: { query: 'payment service ledger latency', topK: 5 } }),
        );
        chain = Math.min(chain, postgresChain);
      }
      expect(chain).toBeGreaterThanOrEqual(CHAIN_ON_SERVER);
      expect(chain).toBeLessThanOrEqual(CHAIN_ON_SERVER + LATE_LANE);
    });
  }
});
