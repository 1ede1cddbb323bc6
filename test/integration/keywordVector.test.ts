import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Db } from '../../src/db/Db.js';
import { dbTargets, openScratchDb } from '../helpers/databases.js';

/**
 * identifier_text as migration 013 first wrote it: four regexp_replace calls per identifier. The current function
 * (one call per rule over all of a text's identifiers) must give the same text, and keyword_vector the same vector.
 */
const REFERENCE_IDENTIFIERS = (t: string) => `(SELECT coalesce(string_agg(
      regexp_replace(regexp_replace(regexp_replace(m[1], '([a-z0-9])([A-Z])', '\\1 \\2', 'g'),
                                    '([A-Z]+)([A-Z][a-z])', '\\1 \\2', 'g'), '[^A-Za-z0-9]+', ' ', 'g')
      || ' ' || lower(regexp_replace(m[1], '[^A-Za-z0-9]+', '', 'g')), ' '), '')
    FROM regexp_matches(coalesce(${t}, ''),
                        '([A-Za-z0-9]+(?:[._/:-]+[A-Za-z0-9{}]+)+|[A-Za-z0-9]*[a-z][A-Z][A-Za-z0-9]*)', 'g') AS m)`;

const REFERENCE_VECTOR = `to_tsvector('english', coalesce($1, '')) || to_tsvector('english', $2)
  || to_tsvector('english', ${REFERENCE_IDENTIFIERS('$1')})
  || to_tsvector('english', ${REFERENCE_IDENTIFIERS(`coalesce($1, '') || ' ' || $2`)})`;

/** Titles and texts with every shape the identifier rules treat differently. */
const CASES: [string | null, string][] = [
  [
    'GET /api/v1/namespaces/{namespace}/pods — list or watch objects of kind Pod (listCoreV1NamespacedPod)',
    'Lists pods; see io.k8s.api.core.v1.PodList and the labelSelector, fieldSelector and resourceVersion fields.',
  ],
  [
    'POST /chat.postMessage — Sends a message (chat.postMessage)',
    'HTMLParser and XMLHttpRequest, getHTTPResponseCode.',
  ],
  [null, 'A text without a title: user_id, created_at, x-rate-limit, /v1/chat/completions, a:b:c, 3.14, v1.2.3.'],
  ['Plain title', 'Plain words only, no identifier at all; the end.'],
  ['', 'Paths ending in a brace /users/{user_id} and {id}/x.{y}, then camelCase at the end fooBar'],
  ['ABCDef ab.cd', 'in/to, no-t, and I/O; trailing separators a.b. c-d- e__f__ and --flags=--x.'],
  ['Title only: getPodLogs', ''],
];

describe.each(dbTargets())('keyword vectors of identifiers ($name)', (target) => {
  let scratch: Awaited<ReturnType<typeof openScratchDb>>;
  let db: Db;
  beforeAll(async () => {
    scratch = await openScratchDb(target);
    db = scratch.db;
  });
  afterAll(async () => {
    await scratch?.close();
  });

  it('gives the same identifier text and keyword vector as the per-identifier definition', async () => {
    for (const [title, content] of CASES) {
      const { rows } = await db.query<{ text: boolean; vector: boolean; ids: string }>(
        `SELECT identifier_text(coalesce($1, '') || ' ' || $2) = ${REFERENCE_IDENTIFIERS(`coalesce($1, '') || ' ' || $2`)} AS text,
                keyword_vector($1, $2) = (${REFERENCE_VECTOR}) AS vector,
                identifier_text(coalesce($1, '') || ' ' || $2) AS ids`,
        [title, content],
      );
      expect({ title, content, ...rows[0] }).toMatchObject({ text: true, vector: true });
    }
  });

  it('stores a chunk the vector of its document title and content, and follows a new title', async () => {
    const [title, content] = CASES[0] as [string, string];
    await db.query(`INSERT INTO documents (id, title, content, content_hash) VALUES ('doc:k', $1, $2, 'h')`, [
      title,
      content,
    ]);
    await db.query(
      `INSERT INTO chunks (document_id, ordinal, content, char_start, char_end, content_hash)
       VALUES ('doc:k', 0, $1, 0, length($1), 'c')`,
      [content],
    );
    const same = async (t: string | null) =>
      (
        await db.query<{ ok: boolean }>(
          `SELECT c.keyword_tsv = (${REFERENCE_VECTOR}) AS ok FROM chunks c WHERE c.document_id = 'doc:k'`,
          [t, content],
        )
      ).rows[0]?.ok;
    expect(await same(title)).toBe(true);
    await db.query(`UPDATE documents SET title = $1 WHERE id = 'doc:k'`, [CASES[1]![0]]);
    expect(await same(CASES[1]![0])).toBe(true);
  });
});
