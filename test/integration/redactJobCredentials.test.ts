import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { loadConfig } from '../../src/config.js';
import type { Db } from '../../src/db/Db.js';
import { loadMigrations, migrate } from '../../src/db/migrate.js';
import { openDb } from '../../src/db/openDb.js';
import { dbTargets, type ScratchDatabase } from '../helpers/databases.js';

// Migration 012 rewrites import jobs stored by a release that kept the password typed into a URL.

describe.each(dbTargets())('migration 012 redacts URL credentials in stored import jobs ($name)', (target) => {
  let scratch: ScratchDatabase;
  let db: Db;
  beforeAll(async () => {
    scratch = await target.createDatabase({ empty: true });
    db = await openDb(loadConfig(scratch.env));
    await migrate(
      db,
      loadMigrations().filter((m) => m.version < 12),
    );
  });
  afterAll(async () => {
    await db?.close();
    await scratch?.drop();
  });

  it('rewrites the request, labels, errors and warnings as http://***@ and leaves other text alone', async () => {
    const secret = 'http://user:s3cret@127.0.0.1:8080/plain.txt';
    const other = 'https://docs.example.com/a@b?c=d@e';
    const request = {
      kind: 'url',
      urls: [secret, other, 'https://admin:pa%22ss@example.com'],
      defaults: { tags: ['x'], metadata: { note: 'say "hi"' } },
    };
    await db.query(
      `INSERT INTO import_jobs (id, kind, status, request, warnings) VALUES ('old', 'url', 'PARTIAL', $1, $2)`,
      [JSON.stringify(request), JSON.stringify([`redirected to ftp://anon:pw@files.example.com/x`, 'plain warning'])],
    );
    await db.query(`INSERT INTO import_jobs (id, kind, status, request) VALUES ('spec', 'openapi', 'FAILED', $1)`, [
      JSON.stringify({ kind: 'openapi', url: 'https://me:hunter2@api.example.com/openapi.yaml', tags: [] }),
    ]);
    await db.query(
      `INSERT INTO import_job_items (job_id, ordinal, label, status, error_code, error) VALUES
         ('old', 0, $1, 'FAILED', 'IMPORT_FETCH_BLOCKED', $2), ('old', 1, $3, 'SUCCEEDED', NULL, NULL),
         ('spec', 0, 'https://me:hunter2@api.example.com/openapi.yaml', 'FAILED', 'IMPORT_FETCH_BLOCKED', 'invalid URL: http://x:y@[::1/ (from a redirect)')`,
      [secret, `fetch of ${secret} blocked: URLs with credentials are not allowed`, other],
    );

    expect(
      await migrate(
        db,
        loadMigrations().filter((m) => m.version <= 12),
      ),
    ).toEqual([12]);

    const jobs = await db.query<{ id: string; request: Record<string, unknown>; warnings: string[] }>(
      `SELECT id, request, warnings FROM import_jobs ORDER BY id`,
    );
    expect(jobs.rows[0]!.request).toEqual({
      ...request,
      urls: ['http://***@127.0.0.1:8080/plain.txt', other, 'https://***@example.com'],
    });
    expect(jobs.rows[0]!.warnings).toEqual(['redirected to ftp://***@files.example.com/x', 'plain warning']);
    expect(jobs.rows[1]!.request).toEqual({
      kind: 'openapi',
      url: 'https://***@api.example.com/openapi.yaml',
      tags: [],
    });
    const items = await db.query<{ label: string; error: string | null }>(
      `SELECT label, error FROM import_job_items ORDER BY job_id, ordinal`,
    );
    expect(items.rows).toEqual([
      {
        label: 'http://***@127.0.0.1:8080/plain.txt',
        error: 'fetch of http://***@127.0.0.1:8080/plain.txt blocked: URLs with credentials are not allowed',
      },
      { label: other, error: null },
      { label: 'https://***@api.example.com/openapi.yaml', error: 'invalid URL: http://***@[::1/ (from a redirect)' },
    ]);
    const everything = await db.query<{ t: string }>(
      `SELECT string_agg(j.request::text || j.warnings::text || i.label || coalesce(i.error, ''), ' ') AS t FROM import_jobs j JOIN import_job_items i ON i.job_id = j.id`,
    );
    expect(everything.rows[0]!.t).not.toMatch(/s3cret|hunter2|pa%22ss|anon:pw/);

    // It also indexes the final URL by which a URL import finds a page stored under a URL that redirected to it.
    const index = await db.query<{ indexdef: string }>(
      `SELECT indexdef FROM pg_indexes WHERE indexname = 'documents_final_url_idx'`,
    );
    expect(index.rows[0]?.indexdef).toContain("(metadata ->> 'finalUrl'::text)");

    // Applying it again (a second server, a re-run by hand) changes nothing.
    await db.exec(loadMigrations().find((m) => m.version === 12)!.sql);
    expect((await db.query(`SELECT request FROM import_jobs WHERE id = 'old'`)).rows[0]).toEqual({
      request: jobs.rows[0]!.request,
    });
  });
});
