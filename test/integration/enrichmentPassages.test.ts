import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { projectShare } from '../helpers/projects.js';
import { serverRuns, startRunServer } from '../helpers/serverRuns.js';
import type { TestServer } from '../helpers/testServer.js';

const ENRICH = `query($input: EnrichContextInput!) { enrichContext(input: $input) {
  context
  chunks { citation why chunk { ordinal } document { id } }
  documents { id }
  citations { number documentId }
} }`;

type Enriched = {
  context: string;
  chunks: { citation: number | null; why: string; chunk: { ordinal: number }; document: { id: string } }[];
  documents: { id: string }[];
  citations: { number: number; documentId: string }[];
};

const TOPICS = [
  'alerting',
  'backups',
  'capacity',
  'dashboards',
  'escalation',
  'firewalls',
  'gateways',
  'hostnames',
  'inventory',
  'journals',
  'keystores',
  'licences',
  'monitoring',
  'notebooks',
  'ownership',
  'patching',
  'quotas',
  'rotation',
  'schedules',
  'tickets',
  'uptime',
  'vendors',
  'warranties',
  'zones',
];

/** A runbook of short sentences, one topic each, with the failover steps in the middle. */
const RUNBOOK = [
  ...TOPICS.slice(0, 12).map((t, i) => `Step ${i + 1} of the routine reviews the ${t} of every cluster in the fleet.`),
  'When the primary database fails, promote the standby replica with the failover command.',
  'After the promotion, point the connection pooler at the new primary and watch replication lag.',
  ...TOPICS.slice(12).map((t, i) => `Step ${i + 13} of the routine reviews the ${t} of every cluster in the fleet.`),
].join(' ');

const LEAVE = 'Employees accrue paid leave monthly. Requests go to your manager at least two weeks ahead.';
/** Matches part of the failover question: a weaker hit. */
const CHECKLIST =
  'Checklist: every replica needs a health check before a failover drill. Keep the on-call rota current. ' +
  'Review disk usage weekly.';
/** A small knowledge base of its own (tag `kb1`): one runbook that answers, and policies that do not. */
const KB1 = [
  {
    id: 'kb1:failover',
    title: 'Database failover',
    content: 'On a database failover, promote the standby replica, then repoint the connection pooler at it.',
  },
  { id: 'kb1:leave', title: 'Leave policy', content: 'Employees accrue paid leave monthly and ask their manager.' },
  {
    id: 'kb1:travel',
    title: 'Travel policy',
    content: 'Book trains for journeys under four hours; flights need approval.',
  },
  {
    id: 'kb1:expenses',
    title: 'Expense policy',
    content: 'Submit receipts within thirty days; meals are capped per day.',
  },
].map((d) => ({ ...d, tags: ['kb1'] }));
const DOCS = [RUNBOOK, LEAVE, CHECKLIST, ...KB1.map((d) => d.content)];

/** enrichContext over the `ops` documents unless `input` names another filter. */
async function ask(t: TestServer, input: Record<string, unknown>): Promise<Enriched> {
  const res = await t.gql<{ enrichContext: Enriched }>(ENRICH, {
    input: { maxEntities: 0, graphShare: 0, filter: { tags: 'ops' }, ...input },
  });
  expect(res.errors).toBeUndefined();
  return res.data!.enrichContext;
}

/** The passages of `context` (each cited document's text, split at ellipsis lines). */
function passages(context: string): string[] {
  return context
    .replace(/^## Relevant knowledge\n/, '')
    .split(/\n\n(?=\[\d+\] )/)
    .flatMap((entry) => entry.replace(/^\[\d+\] [^\n]*\n/, '').split('\n…\n'))
    .map((p) => p.trim())
    .filter((p) => p !== '');
}

/** Whether `passage` is part of a document and begins and ends at sentence edges of it. */
function wholeSentences(passage: string): boolean {
  const doc = DOCS.find((d) => d.includes(passage));
  if (doc === undefined) return false;
  const at = doc.indexOf(passage);
  const before = doc.slice(0, at).trimEnd();
  const after = doc.slice(at + passage.length).trimStart();
  const startOk = before === '' || /[.!?]$/.test(before);
  const endOk = after === '' || (/[.!?]$/.test(passage) && /^[A-Z]/.test(after));
  return startOk && endOk && /^[A-Z]/.test(passage);
}

describe.each(projectShare(serverRuns()))('enrichContext passages ($name)', (run) => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startRunServer(run);
    const res = await t.gql(
      `mutation($input: [CreateDocumentInput!]!) { upsertDocuments(input: $input) { changed } }`,
      {
        input: [
          { id: 'rb:failover', title: 'Database failover runbook', content: RUNBOOK, tags: ['ops'] },
          { id: 'hr:leave', title: 'Leave policy', content: LEAVE, tags: ['ops'] },
          { id: 'rb:checklist', title: 'Replica checklist', content: CHECKLIST, tags: ['ops'] },
          ...KB1,
        ],
      },
    );
    expect(res.errors).toBeUndefined();
  });
  afterAll(async () => {
    await t?.close();
  });

  it('starts and ends every passage at a sentence edge, neighbouring chunks joined without their overlap', async () => {
    const e = await ask(t, {
      query: 'promote the standby replica failover command',
      topK: 1,
      maxChars: 6000,
      expandNeighbors: 2,
    });
    const shown = passages(e.context);
    expect(shown.length).toBeGreaterThan(0);
    for (const p of shown) expect(wholeSentences(p)).toBe(true);
    // The matched chunk and its neighbours, as one contiguous stretch of the document (no overlap repeated).
    const main = shown[0] as string;
    expect(RUNBOOK.includes(main)).toBe(true);
    expect(main).toContain('promote the standby replica');
    expect(main.length).toBeGreaterThan(1000);
  });

  it('cuts passages to whole sentences with the expansion turned off too', async () => {
    const e = await ask(t, { query: 'promote the standby replica failover command', topK: 2, expandNeighbors: 0 });
    for (const p of passages(e.context)) expect(wholeSentences(p)).toBe(true);
  });

  it('fills the budget with the neighbouring chunks before a weaker hit', async () => {
    const query = 'promote the standby replica with the failover command';
    const small = await ask(t, { query, topK: 1, maxChars: 1200, expandNeighbors: 2 });
    // The matched chunk grows with its neighbours (more than one 500-character chunk) before anything else joins.
    const runbook = passages(small.context).find((p) => p.includes('promote the standby replica')) ?? '';
    expect(runbook.length).toBeGreaterThan(800);
    const large = await ask(t, { query, topK: 1, maxChars: 6000, expandNeighbors: 2 });
    // The weaker hit comes once the runbook's neighbourhood is in.
    expect(large.context).toContain('Replica checklist');
    expect(large.context.indexOf('Replica checklist')).toBeGreaterThan(large.context.indexOf('Step 10 of'));
  });

  it('leaves an unrelated page out when one document answers, and cites only what the context holds', async () => {
    const e = await ask(t, { query: 'What do I do when the database fails over?', topK: 3, filter: { tags: 'kb1' } });
    expect(e.context).toContain('promote the standby replica');
    expect(e.context).not.toContain('policy');
    expect(e.documents.map((d) => d.id)).toEqual(['kb1:failover']);
    expect(e.citations.map((c) => c.documentId)).toEqual(['kb1:failover']);
    for (const c of e.chunks) if (c.document.id !== 'kb1:failover') expect(c.citation).toBeNull();
    for (const c of e.chunks) if (c.citation !== null) expect(e.context).toContain(`[${c.citation}] `);
  });

  it('records an unanswered question as a knowledge gap, not one a low-scoring passage answers', async () => {
    // "fails over" is the runbook's "failover": answered, although half the question's words are not in it verbatim.
    await ask(t, { query: 'What do I do when the database fails over?', filter: { tags: 'kb1' } });
    await ask(t, { query: 'How do I renew my passport abroad?', filter: { tags: 'kb1' } });
    const res = await t.gql<{ knowledgeGaps: { nodes: { query: string }[] } }>(
      `{ knowledgeGaps(first: 20) { nodes { query } } }`,
    );
    const gaps = res.data!.knowledgeGaps.nodes.map((g) => g.query);
    expect(gaps).toContain('How do I renew my passport abroad?');
    expect(gaps).not.toContain('What do I do when the database fails over?');
  });
});
