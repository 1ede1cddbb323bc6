import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { loadConfig } from '../../src/config.js';
import type { Queryable } from '../../src/db/Db.js';
import { loadMigrations, migrate } from '../../src/db/migrate.js';
import { openDb } from '../../src/db/openDb.js';
import type { DocumentInput } from '../../src/documents/types.js';
import { dbTargets } from '../helpers/databases.js';
import { startTestServer, type TestServer } from '../helpers/testServer.js';
import { countStatements } from '../helpers/statementCounter.js';

const SEARCH = `query($input: SearchInput!) {
  search(input: $input) {
    score vectorScore keywordScore keywordRank vectorRank
    chunk { id ordinal content } document { id title }
    neighbors { id ordinal content document { id } }
  }
}`;

interface Hit {
  score: number;
  vectorScore: number | null;
  keywordScore: number | null;
  keywordRank: number | null;
  vectorRank: number | null;
  chunk: { id: string; ordinal: number; content: string };
  document: { id: string; title: string };
  neighbors: { id: string; ordinal: number; content: string; document: { id: string } }[];
}

const doc = (id: string, title: string, content: string, tags: string[] = []): DocumentInput => ({
  id,
  title,
  content,
  documentType: 'other',
  source: null,
  tags,
  metadata: {},
  expiresAt: null,
});
const filler = (i: number) =>
  `Weekly status note ${i}: the team reviewed the backlog, planned work and closed tickets.`;

describe.each(dbTargets())('search modes ($name)', (target) => {
  let t: TestServer;
  const search = async (input: Record<string, unknown>): Promise<Hit[]> => {
    const res = await t.gql<{ search: Hit[] }>(SEARCH, { input });
    expect(res.errors).toBeUndefined();
    return res.data!.search;
  };

  beforeAll(async () => {
    t = await startTestServer(target);
    await t.services.documents.upsertMany([
      doc('zebra', 'Field notes', 'A zebra crossed the system boundary at dawn.'),
      doc('system', 'Operations', 'The system restarted. The system logged a failure. The system recovered.'),
      doc('failure', 'Postmortem', 'Root cause of the failure was a full disk.'),
      doc('ocelot-short', 'Cats', 'The ocelot sleeps.'),
      doc(
        'ocelot-long',
        'Cats at length',
        `The ocelot sleeps. ${'Rain fell on the quiet valley while travellers walked home slowly. '.repeat(4)}`,
      ),
      doc('kinkajou', 'Kinkajou care guide', 'Feed fruit twice a day and keep the enclosure warm.'),
      doc(
        'narwhal',
        'Narwhal atlas',
        Array.from(
          { length: 10 },
          (_, i) => `Narwhal section ${i}: ${'tusks, pods and arctic migration routes. '.repeat(10)}`,
        ).join('\n\n'),
      ),
      ...Array.from({ length: 20 }, (_, i) => doc(`filler:${i}`, `Status ${i}`, filler(i))),
    ]);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('KEYWORD matches any query word, weighs rare words more and reports keyword scores only', async () => {
    const some = await search({ query: 'zebra system failure', mode: 'KEYWORD', topK: 10 });
    expect(some.map((h) => h.document.id).sort()).toEqual(['failure', 'system', 'zebra']);
    const hits = await search({ query: 'zebra team', mode: 'KEYWORD', topK: 10 });
    expect(hits[0]!.document.id).toBe('zebra'); // one chunk has "zebra", twenty have "team"
    expect(hits.slice(1).every((h) => h.document.id.startsWith('filler:'))).toBe(true);
    expect(hits).toHaveLength(10);
    hits.forEach((h, i) => {
      expect(h.keywordRank).toBe(i + 1);
      expect(h.keywordScore).toBe(h.score);
      expect(h.score > 0 && h.score < 1).toBe(true);
      expect(h.vectorScore).toBeNull();
      expect(h.vectorRank).toBeNull();
      if (i > 0) expect(hits[i - 1]!.score).toBeGreaterThanOrEqual(h.score);
    });
  });

  it('KEYWORD normalises by length and indexes the title', async () => {
    const ocelot = await search({ query: 'ocelot', mode: 'KEYWORD', topK: 5 });
    expect(ocelot.map((h) => h.document.id)).toEqual(['ocelot-short', 'ocelot-long']);
    const title = await search({ query: 'kinkajou', mode: 'KEYWORD', topK: 5 });
    expect(title.map((h) => h.document.id)).toEqual(['kinkajou']);
    expect(await search({ query: 'the and of', mode: 'KEYWORD' })).toEqual([]); // stop words only
  });

  it("LINEAR fusion weighs the hashing embedder's vector lane 0.2 unless asked otherwise", async () => {
    const scores = async (weight?: number) =>
      (
        await search({
          query: 'system failure zebra',
          topK: 5,
          fusion: 'LINEAR',
          ...(weight === undefined ? {} : { vectorWeight: weight }),
        })
      ).map((h) => [h.chunk.id, h.score]);
    expect(await scores()).toEqual(await scores(0.2));
    expect(await scores()).not.toEqual(await scores(0.5));
  });

  it('VECTOR reports cosine similarity only', async () => {
    const hits = await search({ query: 'ocelot sleeps', mode: 'VECTOR', topK: 3 });
    expect(hits).toHaveLength(3);
    hits.forEach((h, i) => {
      expect(h.vectorRank).toBe(i + 1);
      expect(h.vectorScore).toBe(h.score);
      expect(h.keywordScore).toBeNull();
      expect(h.keywordRank).toBeNull();
    });
  });

  it('HYBRID is the default and fuses both lanes, by LINEAR or RRF, with scores in 0..1', async () => {
    for (const fusion of [undefined, 'LINEAR', 'RRF']) {
      const hits = await search({ query: 'ocelot sleeps', topK: 5, ...(fusion ? { fusion } : {}) });
      expect(hits[0]!.document.id).toBe('ocelot-short');
      expect(hits[0]!.vectorRank).not.toBeNull();
      expect(hits[0]!.keywordRank).toBe(1);
      for (const h of hits) expect(h.score >= 0 && h.score <= 1).toBe(true);
    }
    const [top] = await search({ query: 'ocelot sleeps', topK: 1, fusion: 'RRF', vectorWeight: 0.5 });
    if (top!.vectorRank === 1) expect(top!.score).toBeCloseTo(Math.max(top!.vectorScore ?? 0, top!.keywordScore ?? 0));
    // All weight on one lane reproduces that lane's order.
    const vectorOnly = await search({ query: 'narwhal tusks', topK: 5, fusion: 'RRF', vectorWeight: 1 });
    const vector = await search({ query: 'narwhal tusks', topK: 5, mode: 'VECTOR' });
    expect(vectorOnly.map((h) => h.chunk.id)).toEqual(vector.map((h) => h.chunk.id));
    const strict = await search({ query: 'ocelot sleeps', topK: 5, minScore: 0.5 });
    for (const h of strict) expect(h.score).toBeGreaterThanOrEqual(0.5);
  });

  it('HYBRID scores follow how well anything matched, so minScore drops hits for an unrelated query', async () => {
    const unrelated = await search({ query: 'banana smoothie recipe weather', topK: 5 });
    const best = Math.max(0, ...unrelated.map((h) => Math.max(h.vectorScore ?? 0, h.keywordScore ?? 0)));
    for (const h of unrelated) expect(h.score).toBeLessThanOrEqual(best + 1e-9);
    expect(
      await search({ query: 'banana smoothie recipe weather', topK: 5, minScore: Math.min(0.9, best + 0.01) }),
    ).toEqual([]);
    const related = await search({ query: 'ocelot sleeps', topK: 1 });
    expect(related[0]!.score).toBeGreaterThan(best);
  });

  it('groupByDocument returns one hit per document; expandNeighbors adds the chunks around each hit', async () => {
    const { rows } = await t.services.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM chunks WHERE document_id = 'narwhal'`,
    );
    expect(rows[0]!.n).toBeGreaterThanOrEqual(10);
    const flat = await search({ query: 'narwhal migration', mode: 'KEYWORD', topK: 4 });
    expect(flat.every((h) => h.document.id === 'narwhal')).toBe(true);
    const grouped = await search({ query: 'narwhal migration zebra', mode: 'KEYWORD', topK: 4, groupByDocument: true });
    const ids = grouped.map((h) => h.document.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual(expect.arrayContaining(['narwhal', 'zebra']));
    // The narwhal document's ten chunks fill the first lane ranking: grouping looks deeper for a second document.
    const deeper = await search({ query: 'narwhal team', mode: 'KEYWORD', topK: 2, groupByDocument: true });
    expect(deeper.map((h) => h.document.id)).toEqual(['narwhal', expect.stringMatching(/^filler:/)]);

    const withContext = await search({ query: 'narwhal migration', mode: 'KEYWORD', topK: 3, expandNeighbors: 1 });
    for (const h of withContext) {
      const expected = [h.chunk.ordinal - 1, h.chunk.ordinal + 1].filter((o) => o >= 0 && o < rows[0]!.n);
      expect(h.neighbors.map((n) => n.ordinal)).toEqual(expected);
      for (const n of h.neighbors) expect(n.document.id).toBe('narwhal');
    }
    expect((await search({ query: 'narwhal', topK: 1 }))[0]!.neighbors).toEqual([]);
  });

  it('hits and listings carry no document content; GraphQL reads it only when selected, in one batched query', async () => {
    const hits = await t.services.search.hits({ query: 'narwhal ocelot', topK: 10, filter: {} });
    expect(hits.length).toBeGreaterThan(2);
    for (const h of hits) expect(h.document).not.toHaveProperty('content');

    const query = (fields: string) =>
      `query($input: SearchInput!) { search(input: $input) { document { id ${fields} } } }`;
    const input = { query: 'narwhal ocelot', topK: 10 };
    const { statements: bareStatements, value: bare } = await countStatements(() =>
      t.gql<{ search: { document: { id: string } }[] }>(query(''), { input }),
    );
    const { statements: fullStatements, value: full } = await countStatements(() =>
      t.gql<{ search: { document: { id: string; content: string } }[] }>(query('content'), { input }),
    );
    // Selecting content adds one batched read of the hits' documents, whatever their number.
    expect(fullStatements).toBe(bareStatements + 1);
    expect(full.errors).toBeUndefined();
    expect(full.data!.search.map((h) => h.document.id)).toEqual(bare.data!.search.map((h) => h.document.id));
    const stored = await t.services.documents.findByIds([...new Set(hits.map((h) => h.document.id)), 'narwhal']);
    expect(stored.find((d) => d.id === 'narwhal')?.content.length).toBeGreaterThan(3000);
    for (const h of full.data!.search)
      expect(h.document.content).toBe(
        stored.find((d) => d.id === h.document.id)?.content ?? `${h.document.id} not stored`,
      );

    const page = await t.gql<{ documents: { edges: { node: { id: string; content: string } }[] } }>(
      '{ documents(first: 100) { edges { node { id content } } } }',
    );
    expect(page.errors).toBeUndefined();
    const narwhal = page.data!.documents.edges.find((e) => e.node.id === 'narwhal');
    expect(narwhal?.node.content).toBe(stored.find((d) => d.id === 'narwhal')?.content);
  });

  it('rejects bad mode, weight and neighbour values naming the field', async () => {
    const badMode = await t.gql(SEARCH, { input: { query: 'x', mode: 'FUZZY' } });
    expect(badMode.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    const badWeight = await t.gql(SEARCH, { input: { query: 'x', vectorWeight: 2 } });
    expect(badWeight.errors?.[0]?.message).toContain('vectorWeight');
    const badNeighbors = await t.gql(SEARCH, { input: { query: 'x', expandNeighbors: 99 } });
    expect(badNeighbors.errors?.[0]?.message).toContain('expandNeighbors');
  });

  it('keeps term statistics exact through creates, edits, title changes and deletes', async () => {
    const docs = t.services.documents;
    await docs.upsertMany([doc('stats:1', 'Alpha beta', 'gamma delta epsilon'), doc('stats:2', 'Beta', 'delta zeta')]);
    await docs.update('stats:1', { content: 'gamma eta theta' });
    await docs.update('stats:2', { title: 'Iota kappa' });
    await t.services.db.query(`UPDATE documents SET title = 'Lambda mu' WHERE id = 'stats:1'`); // outside DocumentService
    await t.services.db.query(`UPDATE chunks SET content = 'nu xi omicron' WHERE document_id = 'stats:2'`);
    await docs.delete('zebra');
    await expectExactStatistics(t.services.db);
    const hits = await search({ query: 'lambda omicron', mode: 'KEYWORD', topK: 5 });
    expect(hits.map((h) => h.document.id).sort()).toEqual(['stats:1', 'stats:2']);
    expect(await search({ query: 'zebra', mode: 'KEYWORD' })).toEqual([]);
  });

  it('stays consistent under concurrent writers', async () => {
    const batch = (n: number) =>
      Array.from({ length: 5 }, (_, i) =>
        doc(`conc:${n}:${i}`, `Shared title ${n}`, `shared words alpha omega ${n} item ${i} ${filler(i)}`),
      );
    await Promise.all([0, 1, 2, 3].map((n) => t.services.documents.upsertMany(batch(n))));
    await Promise.all([0, 1].map((n) => t.services.documents.delete(`conc:${n}:0`)));
    await expectExactStatistics(t.services.db);
  });
});

describe.each(dbTargets())('keyword migration ($name)', (target) => {
  it('backfills vectors and statistics for chunks written before it', async () => {
    const scratch = await target.createDatabase({ empty: true });
    const db = await openDb(loadConfig(scratch.env));
    try {
      const all = loadMigrations();
      await migrate(
        db,
        all.filter((m) => m.version < 3),
      );
      await db.exec(`INSERT INTO documents (id, title, content, content_hash) VALUES ('a', 'Old title', 'x', 'h'), ('b', 'Other', 'y', 'h');
        INSERT INTO chunks (document_id, ordinal, content, char_start, char_end, content_hash)
        VALUES ('a', 0, 'alpha beta beta', 0, 15, 'h1'), ('a', 1, 'gamma', 16, 21, 'h2'), ('b', 0, 'beta delta', 0, 10, 'h3');`);
      await migrate(db, all);
      await expectExactStatistics(db);
      const { rows } = await db.query<{ n: number }>('SELECT sum(chunk_count)::int AS n FROM keyword_stats');
      expect(rows[0]!.n).toBe(3);
    } finally {
      await db.close();
      await scratch.drop();
    }
  });
});

/** Term statistics and vectors equal what a full recount of the chunks gives. */
async function expectExactStatistics(db: Queryable): Promise<void> {
  const drift = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n
       FROM (SELECT space_id, lexeme, sum(df) AS df FROM keyword_terms GROUP BY 1, 2 HAVING sum(df) <> 0) a
       FULL JOIN (SELECT space_id, l AS lexeme, count(*) AS df
                    FROM chunks, unnest(tsvector_to_array(keyword_tsv)) AS l GROUP BY 1, 2) b USING (space_id, lexeme)
      WHERE a.df IS DISTINCT FROM b.df`,
  );
  expect(drift.rows[0]!.n).toBe(0);
  // Per space: a space's statistics count its own chunks only.
  const totals = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n
       FROM (SELECT space_id, sum(chunk_count) AS chunks, sum(total_length) AS length FROM keyword_stats GROUP BY 1
             HAVING sum(chunk_count) <> 0) a
       FULL JOIN (SELECT space_id, count(*) AS chunks, sum(keyword_length) AS length FROM chunks GROUP BY 1) b
       USING (space_id)
      WHERE a.chunks IS DISTINCT FROM b.chunks OR a.length IS DISTINCT FROM b.length`,
  );
  expect(totals.rows[0]!.n).toBe(0);
  const stale = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM chunks c JOIN documents d ON d.id = c.document_id
      WHERE c.keyword_tsv IS DISTINCT FROM keyword_vector(d.title, c.content) OR c.keyword_length IS DISTINCT FROM keyword_length(c.keyword_tsv)`,
  );
  expect(stale.rows[0]!.n).toBe(0);
}
