// How many statements one enrichContext sends to each store (issue 21): every statement is a round trip, and on a
// busy machine each one also waits for a core, so these counts bound the latency as much as any query plan does.
// The bounds are today's counts (see bench/peer/PROFILE.md): lower them when a change removes a statement.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Session, Transaction } from 'neo4j-driver';
import { laneShare } from '../helpers/lanes.js';
import { serverRuns, startRunServer } from '../helpers/serverRuns.js';
import type { TestServer } from '../helpers/testServer.js';

/**
 * Postgres statements per run today. Every run: the keyword lane's term frequencies and BM25, the vector lane, the
 * hits' chunk rows and the entities their chunks mention. On the server the vector lane is HNSW plus an exact scan,
 * since this corpus has fewer chunks than the lane's 50 candidates; on PGlite it is the in-memory index, which checks
 * the change log first. The Postgres graph store adds the graph lane's expansion and the two graph reads. The graph
 * lane adds the query entities' mention counts, the evidence read (chunks of the entities, with their mention counts),
 * the graph chunks' rows, and the gap check's word coverage of the top chunks.
 */
const POSTGRES_STATEMENTS: Record<string, number> = {
  'postgres graph on pglite': 13,
  'postgres graph on postgres': 12,
  'neo4j graph on pglite': 11,
};

const ENRICH = `query($input: EnrichContextInput!) { enrichContext(input: $input) { context chunks { document { id } } entities { entity { id } } warnings } }`;

/** Statements the Neo4j driver sends while `work` runs (auto-commit and in transactions). */
async function neo4jStatements(work: () => Promise<unknown>): Promise<number> {
  let count = 0;
  const sessionRun = Session.prototype.run;
  const txRun = Transaction.prototype.run;
  Session.prototype.run = function (this: Session, ...args: Parameters<Session['run']>) {
    count++;
    return sessionRun.apply(this, args);
  };
  Transaction.prototype.run = function (this: Transaction, ...args: Parameters<Transaction['run']>) {
    count++;
    return txRun.apply(this, args);
  };
  try {
    await work();
  } finally {
    Session.prototype.run = sessionRun;
    Transaction.prototype.run = txRun;
  }
  return count;
}

describe.each(laneShare(serverRuns()))('enrichContext round trips ($name)', (run) => {
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
        { id: 'rb:payments', title: 'Payment Service runbook', content: 'When the Payment Service is slow, check Ledger latency first. The Core Banking Team owns it.' },
        { id: 'rb:ledger', title: 'Ledger notes', content: 'The Ledger keeps balances; payment retries are idempotent.' },
      ],
    });
    await t.services.outbox?.drain();
  }, 120_000);
  afterAll(async () => {
    await t?.close();
  });

  it('sends a bounded number of statements to each store', async () => {
    const ask = () => t.gql<{ enrichContext: { chunks: unknown[]; entities: unknown[]; warnings: string[] } }>(ENRICH, { input: { query: 'payment service ledger latency', topK: 5 } });
    await ask(); // the name cache loads on the first call
    // Background work (the expiry sweeper, the outbox, the name cache's periodic freshness check) shares the
    // counters now and then: the fewest statements over a few calls are the call's own.
    let postgres = Infinity;
    let neo4j = Infinity;
    for (let i = 0; i < 3; i++) {
      const before = t.services.db.statementCount;
      let res: Awaited<ReturnType<typeof ask>> | undefined;
      neo4j = Math.min(neo4j, await neo4jStatements(async () => (res = await ask())));
      postgres = Math.min(postgres, t.services.db.statementCount - before);
      expect(res?.data?.enrichContext.warnings).toEqual([]);
      expect(res?.data?.enrichContext.chunks.length).toBeGreaterThan(0);
      expect(res?.data?.enrichContext.entities.length).toBeGreaterThan(0);
    }
    expect(postgres).toBeLessThanOrEqual(POSTGRES_STATEMENTS[run.name] ?? 0);
    // On Neo4j: the graph lane's expansion, then the entities and the relationships among them.
    expect(neo4j).toBe(run.graph ? 2 : 0);
  });
});
