import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { dbTargets } from '../helpers/databases.js';
import { startTestServer, type TestServer } from '../helpers/testServer.js';

const CREATE = `mutation($input: CreateDocumentInput!) {
  createDocument(input: $input) {
    chunkCount embeddedChunkCount changed
    document { id title documentType source tags metadata chunkCount createdAt updatedAt expiresAt
      chunks { id ordinal content charStart charEnd metadata } }
  }
}`;
const SEARCH = `query($input: SearchInput!) {
  search(input: $input) { score chunk { id content ordinal document { id } } document { id title documentType tags } }
}`;
const UPSERT = `mutation($input: [CreateDocumentInput!]!) {
  upsertDocuments(input: $input) { chunkCount embeddedChunkCount changed document { id title content } }
}`;

const paragraph = (topic: string, n: number) =>
  Array.from(
    { length: n },
    (_, i) => `${topic} paragraph ${i}: ${'lorem ipsum dolor sit amet '.repeat(8)}${topic} detail ${i}.`,
  ).join('\n\n');

/** Lets a document's expiry pass without waiting for it: moves it a second into the past (triggers update its chunks). */
async function expire(t: TestServer, id: string): Promise<void> {
  const { rowCount } = await t.services.db.query(
    `UPDATE documents SET expires_at = now() - interval '1 second' WHERE id = $1 AND expires_at > now()`,
    [id],
  );
  expect(rowCount).toBe(1);
}

describe.each(dbTargets())('documents over GraphQL ($name)', (target) => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer(target);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('creates a document and finds it by search as soon as the mutation returns', async () => {
    const content =
      'ACH payment failures happen when the receiving bank rejects a transfer. Retry after verifying the routing number.';
    const res = await t.gql<{
      createDocument: {
        chunkCount: number;
        embeddedChunkCount: number;
        document: { id: string; chunks: unknown[]; documentType: string; metadata: unknown };
      };
    }>(CREATE, {
      input: {
        id: 'runbook:ach-failures',
        title: 'ACH failures runbook',
        content,
        documentType: 'MANUAL',
        source: 'wiki',
        tags: ['payments', 'ach'],
        metadata: { owner: 'payments-team' },
      },
    });
    expect(res.errors).toBeUndefined();
    const created = res.data!.createDocument;
    expect(created.document.id).toBe('runbook:ach-failures');
    expect(created.document.documentType).toBe('MANUAL');
    expect(created.chunkCount).toBe(1);
    expect(created.embeddedChunkCount).toBe(1);
    expect(created.document.chunks).toEqual([
      {
        id: expect.any(String),
        ordinal: 0,
        content,
        charStart: 0,
        charEnd: content.length,
        metadata: { owner: 'payments-team' },
      },
    ]);

    await t.gql(CREATE, {
      input: {
        title: 'Office plants',
        content: 'Water the ficus every Tuesday and keep it out of direct sunlight.',
        tags: ['office'],
      },
    });
    const hits = await t.gql<{ search: { score: number; document: { id: string } }[] }>(SEARCH, {
      input: { query: 'why did the ACH payment fail at the bank?', topK: 2 },
    });
    expect(hits.errors).toBeUndefined();
    expect(hits.data!.search[0]!.document.id).toBe('runbook:ach-failures');
    const scores = hits.data!.search.map((h) => h.score);
    expect(scores[0]!).toBeGreaterThan(scores[1] ?? 0);
    for (const s of scores) expect(s >= 0 && s <= 1).toBe(true);
  });

  it('chunks long content with offsets that slice the original text', async () => {
    const content = paragraph('kafka', 12);
    const res = await t.gql<{
      createDocument: {
        chunkCount: number;
        document: { chunks: { content: string; charStart: number; charEnd: number; ordinal: number }[] };
      };
    }>(CREATE, {
      input: { id: 'kafka-guide', title: 'Kafka guide', content, documentType: 'TUTORIAL' },
    });
    const chunks = res.data!.createDocument.document.chunks;
    expect(chunks.length).toBeGreaterThan(3);
    chunks.forEach((c, i) => {
      expect(c.ordinal).toBe(i);
      expect(content.slice(c.charStart, c.charEnd)).toBe(c.content);
      expect(c.content.length).toBeLessThanOrEqual(500);
    });
  });

  it('serialises concurrent writers of one id: one create wins, the rest get CONFLICT; shuffled batches never deadlock', async () => {
    const creates = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        t.gql<{ createDocument: { document: { title: string } } }>(CREATE, {
          input: { id: 'race:create', title: `writer ${i}`, content: `content of writer ${i}` },
        }),
      ),
    );
    const winners = creates.filter((r) => !r.errors);
    expect(winners).toHaveLength(1);
    expect(creates.filter((r) => r.errors?.[0]?.extensions?.code === 'CONFLICT')).toHaveLength(11);
    const stored = await t.gql<{ document: { title: string } }>(`{ document(id: "race:create") { title } }`);
    expect(stored.data!.document.title).toBe(winners[0]!.data!.createDocument.document.title);

    const ids = Array.from({ length: 20 }, (_, i) => `race:batch-${i}`);
    const shuffled = (seed: number) =>
      [...ids].sort(
        (a, b) =>
          ((a.charCodeAt(a.length - 1) * seed) % 17) - ((b.charCodeAt(b.length - 1) * seed) % 17) || (a < b ? -1 : 1),
      );
    const batches = await Promise.all(
      Array.from({ length: 8 }, (_, k) =>
        t.gql(UPSERT, { input: shuffled(k + 2).map((id) => ({ id, title: id, content: `batch ${k} writes ${id}` })) }),
      ),
    );
    expect(batches.map((b) => b.errors?.[0]?.extensions?.code ?? 'OK')).toEqual(Array(8).fill('OK'));
    const { rows } = await t.services.db.query<{ docs: number; chunks: number }>(
      `SELECT count(DISTINCT d.id)::int AS docs, count(c.id)::int AS chunks FROM documents d JOIN chunks c ON c.document_id = d.id WHERE d.id LIKE 'race:batch-%'`,
    );
    expect(rows[0]).toEqual({ docs: 20, chunks: 20 });
  });

  it('rejects a duplicate id with CONFLICT and writes nothing', async () => {
    const res = await t.gql(CREATE, { input: { id: 'runbook:ach-failures', title: 'dup', content: 'other text' } });
    expect(res.errors?.[0]?.extensions?.code).toBe('CONFLICT');
    const doc = await t.gql<{ document: { title: string } }>(`{ document(id: "runbook:ach-failures") { title } }`);
    expect(doc.data!.document.title).toBe('ACH failures runbook');
  });

  it('upserts in bulk: unchanged content re-embeds nothing, changed content re-embeds only changed chunks', async () => {
    const base = paragraph('postgres', 10);
    const first = await t.gql<{
      upsertDocuments: { chunkCount: number; embeddedChunkCount: number; changed: boolean }[];
    }>(UPSERT, {
      input: [
        { id: 'pg:guide', title: 'Postgres guide', content: base },
        { id: 'pg:faq', title: 'Postgres FAQ', content: 'How do I vacuum? Run VACUUM ANALYZE.', documentType: 'FAQ' },
      ],
    });
    expect(first.errors).toBeUndefined();
    const [guide] = first.data!.upsertDocuments;
    expect(guide!.embeddedChunkCount).toBe(guide!.chunkCount);

    const again = await t.gql<{ upsertDocuments: { embeddedChunkCount: number; changed: boolean }[] }>(UPSERT, {
      input: [
        { id: 'pg:guide', title: 'Postgres guide', content: base },
        { id: 'pg:faq', title: 'Postgres FAQ', content: 'How do I vacuum? Run VACUUM ANALYZE.', documentType: 'FAQ' },
      ],
    });
    expect(again.data!.upsertDocuments.map((r) => [r.embeddedChunkCount, r.changed])).toEqual([
      [0, false],
      [0, false],
    ]);

    // Change only the last paragraph: the leading chunks keep their vectors.
    const edited = base.replace(
      /postgres paragraph 9:.*$/s,
      'postgres paragraph 9: autovacuum tuning is different now.',
    );
    const changed = await t.gql<{
      upsertDocuments: { chunkCount: number; embeddedChunkCount: number; changed: boolean }[];
    }>(UPSERT, {
      input: [{ id: 'pg:guide', title: 'Postgres guide', content: edited }],
    });
    const r = changed.data!.upsertDocuments[0]!;
    expect(r.changed).toBe(true);
    expect(r.embeddedChunkCount).toBeGreaterThan(0);
    expect(r.embeddedChunkCount).toBeLessThan(r.chunkCount);
    const stored = await t.gql<{
      document: { content: string; chunks: { content: string; charStart: number; charEnd: number; ordinal: number }[] };
    }>(`{ document(id: "pg:guide") { content chunks { content charStart charEnd ordinal } } }`);
    const doc = stored.data!.document;
    expect(doc.content).toBe(edited);
    doc.chunks.forEach((c, i) => {
      expect(c.ordinal).toBe(i);
      expect(edited.slice(c.charStart, c.charEnd)).toBe(c.content);
    });
  });

  it('rejects a whole batch when one item is invalid, naming the field', async () => {
    const res = await t.gql(UPSERT, {
      input: [
        { id: 'batch:ok', title: 'fine', content: 'fine content' },
        { id: 'batch:bad', title: 'bad', content: 'x', tags: ['Not Valid'] },
      ],
    });
    expect(res.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    expect(res.errors?.[0]?.message).toContain('input[1].tags');
    const doc = await t.gql<{ document: unknown }>(`{ document(id: "batch:ok") { id } }`);
    expect(doc.data!.document).toBeNull();
  });

  it('updates fields and deletes documents with their chunks', async () => {
    await t.gql(CREATE, {
      input: { id: 'tmp:1', title: 'Temp', content: 'temporary words about zebras', tags: ['tmp'] },
    });
    const upd = await t.gql<{
      updateDocument: {
        embeddedChunkCount: number;
        document: { title: string; tags: string[]; source: string | null };
      };
    }>(
      `mutation { updateDocument(id: "tmp:1", input: { tags: ["tmp", "zoo"], source: "notes" }) { embeddedChunkCount document { title tags source } } }`,
    );
    expect(upd.data!.updateDocument).toEqual({
      embeddedChunkCount: 0,
      document: { title: 'Temp', tags: ['tmp', 'zoo'], source: 'notes' },
    });
    const missing = await t.gql(`mutation { updateDocument(id: "nope", input: { title: "x" }) { chunkCount } }`);
    expect(missing.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');

    const del = await t.gql<{ deleteDocument: { id: string; deleted: boolean } }>(
      `mutation { deleteDocument(id: "tmp:1") { id deleted } }`,
    );
    expect(del.data!.deleteDocument).toEqual({ id: 'tmp:1', deleted: true });
    const again = await t.gql<{ deleteDocument: { deleted: boolean } }>(
      `mutation { deleteDocument(id: "tmp:1") { id deleted } }`,
    );
    expect(again.data!.deleteDocument.deleted).toBe(false);
    const { rows } = await t.services.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM chunks WHERE document_id = 'tmp:1'`,
    );
    expect(rows[0]!.n).toBe(0);
  });

  it('filters by type, source, tag expression and text, with a Relay connection', async () => {
    await t.gql(UPSERT, {
      input: [
        {
          id: 'f:1',
          title: 'Billing ACH',
          content: 'billing ach retries',
          tags: ['billing', 'ach'],
          source: 'wiki',
          documentType: 'POLICY',
        },
        {
          id: 'f:2',
          title: 'Billing cards',
          content: 'card declines',
          tags: ['billing', 'cards'],
          source: 'wiki',
          documentType: 'POLICY',
        },
        {
          id: 'f:3',
          title: 'Payments overview',
          content: 'all payment rails',
          tags: ['payments'],
          source: 'confluence',
          documentType: 'POLICY',
        },
      ],
    });
    const q = `query($f: DocumentFilter, $first: Int, $after: String) { documents(filter: $f, first: $first, after: $after) {
      totalCount nodes { id } pageInfo { hasNextPage endCursor } edges { cursor node { id } } } }`;
    const ids = async (f: Record<string, unknown>) => {
      const r = await t.gql<{ documents: { nodes: { id: string }[] } }>(q, { f, first: 100 });
      expect(r.errors).toBeUndefined();
      return r.data!.documents.nodes.map((n) => n.id).sort();
    };
    expect(await ids({ types: ['POLICY'], tags: 'billing+ach|payments' })).toEqual(['f:1', 'f:3']);
    expect(await ids({ types: ['POLICY'], tags: 'billing' })).toEqual(['f:1', 'f:2']);
    expect(await ids({ types: ['POLICY'], sources: ['confluence'] })).toEqual(['f:3']);
    expect(await ids({ types: ['POLICY'], text: 'DECLINES' })).toEqual(['f:2']);
    expect(await ids({ text: '100%_' })).toEqual([]);

    const page1 = await t.gql<{
      documents: { totalCount: number; nodes: { id: string }[]; pageInfo: { hasNextPage: boolean; endCursor: string } };
    }>(q, { f: { types: ['POLICY'] }, first: 2 });
    expect(page1.data!.documents.totalCount).toBe(3);
    expect(page1.data!.documents.pageInfo.hasNextPage).toBe(true);
    const page2 = await t.gql<{ documents: { nodes: { id: string }[]; pageInfo: { hasNextPage: boolean } } }>(q, {
      f: { types: ['POLICY'] },
      first: 2,
      after: page1.data!.documents.pageInfo.endCursor,
    });
    expect(page2.data!.documents.pageInfo.hasNextPage).toBe(false);
    const all = [...page1.data!.documents.nodes, ...page2.data!.documents.nodes].map((n) => n.id).sort();
    expect(all).toEqual(['f:1', 'f:2', 'f:3']);

    const bad = await t.gql(q, { f: { tags: 'billing+DROP TABLE' } });
    expect(bad.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    expect(bad.errors?.[0]?.message).toContain('DROP TABLE');
    const badCursor = await t.gql(q, { after: 'garbage' });
    expect(badCursor.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    const capped = await t.gql<{ documents: { nodes: unknown[] } }>(q, { first: 100000 });
    expect(capped.errors).toBeUndefined();
    expect(capped.data!.documents.nodes.length).toBeLessThanOrEqual(100);
  });

  it('search respects filters, topK caps and the score floor', async () => {
    const filtered = await t.gql<{ search: { document: { id: string; tags: string[] } }[] }>(SEARCH, {
      input: { query: 'billing', topK: 10, filter: { tags: 'ach' } },
    });
    expect(filtered.data!.search.length).toBeGreaterThan(0);
    for (const h of filtered.data!.search) expect(h.document.tags).toContain('ach');
    const many = await t.gql<{ search: unknown[] }>(SEARCH, {
      input: { query: 'postgres paragraph lorem', topK: 1000 },
    });
    expect(many.data!.search.length).toBeLessThanOrEqual(t.config.rag.maxTopK);
    const strict = await t.gql<{ search: { score: number }[] }>(SEARCH, {
      input: { query: 'postgres', topK: 5, minScore: 0.99 },
    });
    for (const h of strict.data!.search) expect(h.score).toBeGreaterThanOrEqual(0.99);
    const badScore = await t.gql(SEARCH, { input: { query: 'x', minScore: 2 } });
    expect(badScore.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    expect(badScore.errors?.[0]?.message).toContain('minScore');
  });

  it('hides expired documents and the sweep deletes them', async () => {
    await t.gql(CREATE, {
      input: {
        id: 'exp:1',
        title: 'Flash sale',
        content: 'flamingo discount today only',
        expiresAt: new Date(Date.now() + 3_600_000).toISOString(),
      },
    });
    const before = await t.gql<{ document: { id: string } | null }>(`{ document(id: "exp:1") { id } }`);
    expect(before.data!.document).not.toBeNull();
    await expire(t, 'exp:1');
    const after = await t.gql<{ document: unknown; search: { document: { id: string } }[] }>(
      `{ document(id: "exp:1") { id } search(input: { query: "flamingo discount", topK: 50 }) { document { id } } }`,
    );
    expect(after.data!.document).toBeNull();
    expect(after.data!.search.map((h) => h.document.id)).not.toContain('exp:1');
    expect(await t.services.sweeper.sweep()).toBeGreaterThanOrEqual(1);
    const { rows } = await t.services.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM documents WHERE id = 'exp:1'`,
    );
    expect(rows[0]!.n).toBe(0);
    const past = await t.gql(CREATE, { input: { title: 'old', content: 'old', expiresAt: '2000-01-01T00:00:00Z' } });
    expect(past.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
  });

  it('treats an expired document the sweep has not reached as absent: create replaces it, update does not find it', async () => {
    await t.gql(CREATE, {
      input: {
        id: 'exp:2',
        title: 'Old promo',
        content: 'pelican coupon',
        expiresAt: new Date(Date.now() + 3_600_000).toISOString(),
      },
    });
    await expire(t, 'exp:2');
    const update = await t.gql(`mutation { updateDocument(id: "exp:2", input: { title: "x" }) { document { id } } }`);
    expect(update.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
    const created = await t.gql<{
      createDocument: { document: { title: string; expiresAt: string | null; createdAt: string } };
    }>(CREATE, { input: { id: 'exp:2', title: 'New promo', content: 'heron coupon' } });
    expect(created.errors).toBeUndefined();
    expect(created.data!.createDocument.document).toEqual(
      expect.objectContaining({ title: 'New promo', expiresAt: null }),
    );
    expect(Date.now() - Date.parse(created.data!.createDocument.document.createdAt)).toBeLessThan(1000);
    const hits = await t.gql<{ search: { chunk: { content: string }; document: { id: string } }[] }>(SEARCH, {
      input: { query: 'coupon', topK: 10 },
    });
    expect(hits.data!.search.filter((h) => h.document.id === 'exp:2').map((h) => h.chunk.content)).toEqual([
      'heron coupon',
    ]);
  });

  it('reports knowledge stats', async () => {
    const res = await t.gql<{
      knowledgeStats: {
        documentCount: number;
        chunkCount: number;
        byType: { key: string; count: number }[];
        bySource: { key: string }[];
        topTags: { key: string; count: number }[];
        embedder: { provider: string; dimensions: number };
      };
    }>(
      `{ knowledgeStats { documentCount chunkCount byType { key count } bySource { key count } topTags { key count } embedder { provider model dimensions } } }`,
    );
    const s = res.data!.knowledgeStats;
    const { rows } = await t.services.db.query<{ n: number }>('SELECT count(*)::int AS n FROM documents');
    expect(s.documentCount).toBe(rows[0]!.n);
    expect(s.chunkCount).toBeGreaterThan(s.documentCount);
    expect(s.byType.find((b) => b.key === 'POLICY')?.count).toBe(3);
    expect(s.bySource.map((b) => b.key)).toEqual(expect.arrayContaining(['wiki', 'confluence']));
    expect(s.topTags.find((x) => x.key === 'billing')?.count).toBe(2);
    expect(s.embedder).toEqual({ provider: 'hashing', model: 'hashing-v1', dimensions: 256 });
  });

  it('masks unexpected errors and names bad input fields', async () => {
    const res = await t.gql(CREATE, { input: { title: '', content: 'x' } });
    expect(res.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    expect(res.errors?.[0]?.message).toContain('input.title');
    const badType = await t.gql(CREATE, { input: { title: 't', content: 'x', documentType: 'NOVEL' } });
    expect(badType.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    expect(JSON.stringify(badType)).not.toContain('stacktrace');
  });

  it('rejects text Postgres cannot store, naming the field, instead of failing midway or altering it', async () => {
    const before = await t.services.db.query<{ n: number }>('SELECT count(*)::int AS n FROM documents');
    const nul = await t.gql(UPSERT, {
      input: [
        { id: 'ok:1', title: 'fine', content: 'fine' },
        { id: 'nul:1', title: 'a\u0000b', content: 'x' },
      ],
    });
    expect(nul.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    expect(nul.errors?.[0]?.extensions?.field).toBe('input[1].title');
    const surrogate = await t.gql(CREATE, { input: { title: 't', content: 'abc\ud800' } });
    expect(surrogate.errors?.[0]?.extensions?.field).toBe('input.content');
    const metadata = await t.gql(CREATE, {
      input: { title: 't', content: 'x', metadata: { nested: ['ok', 'n\u0000'] } },
    });
    expect(metadata.errors?.[0]?.extensions?.field).toBe('input.metadata.nested[1]');
    const after = await t.services.db.query<{ n: number }>('SELECT count(*)::int AS n FROM documents');
    expect(after.rows[0]!.n).toBe(before.rows[0]!.n);
  });
});
