import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { projectShare } from '../helpers/projects.js';
import { serverRuns, startRunServer } from '../helpers/serverRuns.js';
import { countStatements } from '../helpers/statementCounter.js';
import type { TestServer } from '../helpers/testServer.js';

const ENRICH = `query($input: EnrichContextInput!) { enrichContext(input: $input) {
  context truncated omittedChunks omittedEntities warnings
  chunks { score vectorScore keywordRank citation why chunk { id content } document { id title } }
  entities { why depth score entity { id name } }
  relationships { type from { id } to { id } }
  documents { id title }
  citations { number documentId title source url }
  timings { retrievalMs graphMs totalMs }
} }`;

type Enriched = {
  context: string;
  truncated: boolean;
  omittedChunks: number;
  omittedEntities: number;
  warnings: string[];
  chunks: { score: number; citation: number | null; why: string; document: { id: string } }[];
  entities: { why: string; depth: number; score: number; entity: { id: string } }[];
  relationships: { type: string; from: { id: string }; to: { id: string } }[];
  documents: { id: string }[];
  citations: { number: number; documentId: string; url: string | null }[];
  timings: { retrievalMs: number; graphMs: number; totalMs: number };
};

async function seed(t: TestServer): Promise<void> {
  await t.gql(`mutation($input: UpsertGraphInput!) { upsertGraph(input: $input) { entities { id } } }`, {
    input: {
      entities: [
        { id: 'svc:payments', type: 'Service', name: 'Payment Service', description: 'Moves money between accounts.' },
        { id: 'sys:ledger', type: 'System', name: 'Ledger' },
        { id: 'team:core', type: 'Team', name: 'Core Banking Team' },
        { id: 'proc:ach', type: 'Process', name: 'ACH Processing', aliases: ['ACH'] },
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
        id: 'rb:ach',
        title: 'ACH failures runbook',
        content: 'ACH returns happen when the receiving bank rejects a transfer. Check the return code, then retry.',
        source: 'wiki',
        metadata: { url: 'https://wiki.example.com/ach' },
      },
      {
        id: 'rb:payments',
        title: 'Payment Service runbook',
        content:
          'When the payment service is slow, check ledger latency first. Payment service retries are idempotent.',
      },
      { id: 'misc:lunch', title: 'Lunch menu', content: 'Tacos on Tuesday, pizza on Friday.' },
    ],
  });
}

const everyDatabaseRuns = projectShare(serverRuns({ everyDatabase: true }));

describe.each(everyDatabaseRuns)('enrichContext ($name)', (run) => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startRunServer(run);
    await seed(t);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('merges cited chunks and explained entities into a prompt-ready context', async () => {
    const res = await t.gql<{ enrichContext: Enriched }>(ENRICH, {
      input: { query: 'Why is the payment service slow?', topK: 3, maxEntities: 5 },
    });
    expect(res.errors).toBeUndefined();
    const e = res.data!.enrichContext;
    expect(e.chunks[0]!.document.id).toBe('rb:payments');
    expect(e.chunks[0]!.citation).toBe(1);
    expect(e.context).toMatch(/^## Relevant knowledge\n\[1\] Payment Service runbook\n/);
    expect(e.context).toContain('## Related entities');
    expect(e.context).toContain('Payment Service -[DEPENDS_ON]-> Ledger');
    const why = Object.fromEntries(e.entities.map((x) => [x.entity.id, x.why]));
    expect({ why: why['svc:payments'], warnings: e.warnings }).toEqual({ why: 'matched in the query', warnings: [] });
    expect(why['sys:ledger']).toMatch(/neighbour of Payment Service through DEPENDS_ON at depth 1|mentioned by chunk/);
    expect(why['team:core']).toMatch(/neighbour of Payment Service through OWNS at depth 1/);
    // Each entity's graph score, relative to the first: 1 first, then never rising, never below 0.
    const scores = e.entities.map((x) => x.score);
    expect(scores[0]).toBe(1);
    expect(scores.every((v, i) => v >= 0 && v <= (scores[i - 1] ?? 1))).toBe(true);
    expect(scores.some((v) => v < 1)).toBe(true);
    expect(e.relationships.map((r) => `${r.from.id} ${r.type} ${r.to.id}`)).toEqual(
      expect.arrayContaining(['svc:payments DEPENDS_ON sys:ledger', 'team:core OWNS svc:payments']),
    );
    expect(e.citations[0]).toEqual(expect.objectContaining({ number: 1, documentId: 'rb:payments' }));
    expect(e.documents.map((d) => d.id)).toContain('rb:payments');
    expect(e.timings.totalMs).toBeGreaterThanOrEqual(0);
    expect(e.warnings).toEqual([]);
  });

  it('adds entities the top chunks mention, and cites urls from metadata', async () => {
    const res = await t.gql<{ enrichContext: Enriched }>(ENRICH, {
      input: { query: 'receiving bank rejects a transfer return code', topK: 1, maxEntities: 5 },
    });
    const e = res.data!.enrichContext;
    expect(e.chunks[0]!.document.id).toBe('rb:ach');
    expect(e.entities.find((x) => x.entity.id === 'proc:ach')?.why).toMatch(/mentioned by chunk 1/);
    expect(e.citations[0]!.url).toBe('https://wiki.example.com/ach');
  });

  it('relates entities that only the chunks mention (the query names none of them)', async () => {
    await t.gql(`mutation($input: UpsertGraphInput!) { upsertGraph(input: $input) { entities { id } } }`, {
      input: {
        entities: [
          { id: 'svc:broker', type: 'Service', name: 'Key Broker' },
          { id: 'db:vault', type: 'Store', name: 'Vault Store' },
        ],
        relationships: [{ fromId: 'svc:broker', toId: 'db:vault', type: 'WRITES_TO' }],
      },
    });
    await t.gql(`mutation($input: [CreateDocumentInput!]!) { upsertDocuments(input: $input) { changed } }`, {
      input: [
        {
          id: 'rb:secrets',
          title: 'Secret rotation',
          content: 'Every night the Key Broker rotates secrets and writes them to the Vault Store.',
        },
      ],
    });
    const res = await t.gql<{ enrichContext: Enriched }>(ENRICH, {
      input: { query: 'where do rotated secrets go every night', topK: 1, maxEntities: 5 },
    });
    const e = res.data!.enrichContext;
    expect(e.chunks[0]!.document.id).toBe('rb:secrets');
    expect(e.entities.map((x) => x.entity.id).sort()).toEqual(['db:vault', 'svc:broker']);
    expect(e.relationships.map((r) => `${r.from.id} ${r.type} ${r.to.id}`)).toEqual(['svc:broker WRITES_TO db:vault']);
    expect(e.context).toContain('Key Broker -[WRITES_TO]-> Vault Store');
  });

  it('keeps within the character and entity budgets and says what it cut', async () => {
    const res = await t.gql<{ enrichContext: Enriched }>(ENRICH, {
      input: { query: 'payment service ledger ACH', topK: 3, maxEntities: 1, maxChars: 200 },
    });
    const e = res.data!.enrichContext;
    expect(e.context.length).toBeLessThanOrEqual(200);
    expect(e.truncated).toBe(true);
    expect(e.omittedChunks + e.omittedEntities).toBeGreaterThan(0);
    expect(e.entities).toHaveLength(1);
    const bad = await t.gql(ENRICH, { input: { query: 'x', graphDepth: 4 } });
    expect(bad.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
  });

  it('rejects bad query text and minScore outright, and minScore keeps weak chunks out of the context', async () => {
    const nul = await t.gql(ENRICH, { input: { query: 'ach\u0000' } });
    expect(nul.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    expect(nul.errors?.[0]?.extensions?.field).toBe('input.query');
    const range = await t.gql(ENRICH, { input: { query: 'ach', minScore: 1.5 } });
    expect(range.errors?.[0]?.extensions?.field).toBe('input.minScore');
    const all = await t.gql<{ enrichContext: Enriched }>(ENRICH, { input: { query: 'tacos pizza ledger', topK: 5 } });
    const scores = all.data!.enrichContext.chunks.map((c) => c.score);
    expect(scores.length).toBeGreaterThan(1);
    const cut = (Math.max(...scores) + Math.min(...scores)) / 2;
    const strict = await t.gql<{ enrichContext: Enriched }>(ENRICH, {
      input: { query: 'tacos pizza ledger', topK: 5, minScore: cut },
    });
    expect(strict.data!.enrichContext.chunks.length).toBeGreaterThan(0);
    expect(strict.data!.enrichContext.chunks.length).toBeLessThan(scores.length);
    for (const c of strict.data!.enrichContext.chunks) expect(c.score).toBeGreaterThanOrEqual(cut);
  });

  it('records queries it could not answer as knowledge gaps, grouped', async () => {
    await t.gql(`mutation($input: [CreateDocumentInput!]!) { upsertDocuments(input: $input) { changed } }`, {
      input: [
        {
          id: 'hr:policy',
          title: 'Expense policy',
          content: 'The policy: submit receipts within 30 days; the policy applies to every team.',
        },
      ],
    });
    for (const q of [
      'How do I file expenses?',
      'how do I file EXPENSES',
      'quantum chromodynamics lattice',
      'what is the vacation policy',
      'what is the expense policy',
    ])
      await t.gql(ENRICH, { input: { query: q } });
    const res = await t.gql<{
      knowledgeGaps: { totalCount: number; nodes: { query: string; count: number; bestScore: number }[] };
    }>(`{ knowledgeGaps(first: 10) { totalCount nodes { query count bestScore lastSeenAt } } }`);
    const gaps = res.data!.knowledgeGaps;
    expect(gaps.nodes[0]).toEqual(expect.objectContaining({ query: 'how do I file EXPENSES', count: 2 }));
    expect(gaps.nodes.map((g) => g.query)).toContain('quantum chromodynamics lattice');
    expect(gaps.nodes.map((g) => g.query)).not.toContain('Why is the payment service slow?');
    // A page matching only "policy" scores well but speaks to half the question: a gap. The expense policy is not.
    expect(gaps.nodes.map((g) => g.query)).toContain('what is the vacation policy');
    expect(gaps.nodes.map((g) => g.query)).not.toContain('what is the expense policy');
  });

  it('pages knowledge gaps from one snapshot: gaps recorded meanwhile neither repeat nor skip a group', async () => {
    for (let i = 0; i < 9; i++)
      for (let k = 0; k <= i % 3; k++) await t.services.gaps.recordReported(`paging gap ${i}`, 0.01);
    const q = `query($after: String) { knowledgeGaps(first: 4, after: $after) { totalCount pageInfo { hasNextPage endCursor } nodes { query count } } }`;
    type Page = {
      knowledgeGaps: {
        totalCount: number;
        pageInfo: { hasNextPage: boolean; endCursor: string | null };
        nodes: { query: string; count: number }[];
      };
    };
    const seen: string[] = [];
    const totals: number[] = [];
    let after: string | null = null;
    for (let round = 0; round < 10; round++) {
      const res = await t.gql<Page>(q, { after });
      if (!res.data) throw new Error(JSON.stringify(res.errors));
      const page: Page = res.data;
      seen.push(...page.knowledgeGaps.nodes.map((n) => n.query));
      totals.push(page.knowledgeGaps.totalCount);
      // Agents keep asking: new gaps, and repeats that would move groups up the order.
      await t.services.gaps.recordReported(`paging gap ${round}`, 0.01);
      await t.services.gaps.recordReported(`brand new gap ${round}`, 0.01);
      if (!page.knowledgeGaps.pageInfo.hasNextPage) break;
      after = page.knowledgeGaps.pageInfo.endCursor;
    }
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen.filter((s) => s.startsWith('paging gap')).sort()).toEqual(
      Array.from({ length: 9 }, (_, i) => `paging gap ${i}`),
    );
    expect(seen.some((s) => s.startsWith('brand new gap'))).toBe(false);
    expect(new Set(totals).size).toBe(1);
    expect(seen.length).toBe(totals[0]);
    const bad = await t.gql(q, { after: 'bm90IGEgY3Vyc29y' });
    expect(bad.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
  });

  it('makes a bounded number of database round trips', async () => {
    const { statements } = await countStatements(() =>
      t.gql(ENRICH, { input: { query: 'payment service ledger ACH bank transfer', topK: 10, maxEntities: 5 } }),
    );
    // A ceiling, not a count (enrichRoundTrips counts each statement): the call sends 13 on Neo4j and 17 on the
    // Postgres graph store, 2 more when the name cache checks its version; a statement per hit (topK 10) exceeds it.
    expect(statements).toBeLessThanOrEqual(25);
  });

  it('scopes the graph to the filter: only entities that a passing document mentions take part', async () => {
    await t.gql(`mutation($input: [CreateDocumentInput!]!) { upsertDocuments(input: $input) { changed } }`, {
      input: [
        {
          id: 'ops:owners',
          title: 'Service owners',
          source: 'ops',
          content: 'The Core Banking Team is on call for the Payment Service.',
        },
      ],
    });
    const ids = (e: Enriched) => e.entities.map((x) => x.entity.id).sort();
    const rels = (e: Enriched) => e.relationships.map((r) => `${r.from.id} ${r.type} ${r.to.id}`);
    // Unfiltered, the query's Payment Service brings both its neighbours.
    const open = (
      await t.gql<{ enrichContext: Enriched }>(ENRICH, {
        input: { query: 'payment service', topK: 1, maxEntities: 10 },
      })
    ).data!.enrichContext;
    expect(ids(open)).toEqual(expect.arrayContaining(['svc:payments', 'sys:ledger', 'team:core']));
    // Only the ops document passes: it names the service and the team, never the Ledger (only rb:payments does).
    const ops = (
      await t.gql<{ enrichContext: Enriched }>(ENRICH, {
        input: { query: 'payment service', topK: 1, maxEntities: 10, filter: { sources: ['ops'] } },
      })
    ).data!.enrichContext;
    expect(ops.chunks.map((c) => c.document.id)).toEqual(['ops:owners']);
    expect(ids(ops)).toEqual(['svc:payments', 'team:core']);
    expect(rels(ops)).toEqual(['team:core OWNS svc:payments']);
    expect(ops.context).not.toContain('Ledger');
    // The wiki runbook names ACH only: the query's Payment Service is out of scope, and so are its neighbours.
    const wiki = (
      await t.gql<{ enrichContext: Enriched }>(ENRICH, {
        input: { query: 'payment service ACH', topK: 3, maxEntities: 10, filter: { sources: ['wiki'] } },
      })
    ).data!.enrichContext;
    expect(wiki.chunks.map((c) => c.document.id)).toEqual(['rb:ach']);
    expect(ids(wiki)).toEqual(['proc:ach']);
    expect(wiki.relationships).toEqual([]);
    expect(wiki.warnings).toEqual([]);
  });
});
