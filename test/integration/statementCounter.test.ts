import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { loadConfig } from '../../src/config.js';
import type { Db } from '../../src/db/Db.js';
import { openDb } from '../../src/db/openDb.js';
import { dbTargets, edgeTarget, type ScratchDatabase } from '../helpers/databases.js';
import { countStatement, countStatements, uncounted } from '../helpers/statementCounter.js';
import { startTestServer, type TestServer } from '../helpers/testServer.js';

// The statement budgets' counter (test/helpers/statementCounter.ts) counts one call's statements: the statements
// others send meanwhile, as background work and other requests do on a busy machine, must not change its count.
// Each test makes sure the others' statements are sent while the call runs, so a count of every statement fails it.

describe.each(dbTargets())('countStatements on $name', (target) => {
  let scratch: ScratchDatabase;
  let db: Db;
  beforeAll(async () => {
    scratch = await target.createDatabase();
    db = await openDb(loadConfig(scratch.env), { onStatement: countStatement });
  });
  afterAll(async () => {
    await db?.close();
    await scratch?.drop();
  });

  it("counts the call's statements, in transactions and under locks, and none of a concurrent loop's", async () => {
    let others = 0;
    const { statements } = await countStatements(async () => {
      // Started outside the call, as background loops are, and awaited inside it: all its statements fall in the call.
      const loop = uncounted(async () => {
        for (let i = 0; i < 5; i++) {
          await db.query('SELECT 1');
          others++;
        }
      });
      await db.query('SELECT 1');
      await db.transaction(async (tx) => {
        await tx.query('SELECT 2');
      });
      await db.withLock(7, async (conn) => {
        await conn.query('SELECT 3');
      });
      await loop;
    });
    expect(others).toBe(5);
    // One statement; BEGIN, the statement and COMMIT; the statement under the lock, which the server takes and
    // releases with a statement each (PGlite's lock is in this process).
    expect(statements).toBe(1 + 3 + (target.name === 'postgres' ? 3 : 1));
  });

  it('counts the ROLLBACK of a transaction that fails', async () => {
    const { value, statements } = await countStatements(() =>
      db
        .transaction(async (tx) => {
          await tx.query('SELECT 1');
          throw new Error('changed my mind');
        })
        .catch((err: unknown) => err),
    );
    expect(value).toEqual(new Error('changed my mind'));
    // BEGIN, the statement, ROLLBACK.
    expect(statements).toBe(3);
  });

  it('counts the work a call waits for, and not the work an earlier call left running', async () => {
    let release = (): void => undefined;
    const released = new Promise<void>((resolve) => (release = resolve));
    let leftRunning: Promise<unknown> = Promise.resolve();
    const first = await countStatements(async () => {
      leftRunning = released.then(() => db.query('SELECT 1'));
      await Promise.all([db.query('SELECT 1'), db.query('SELECT 2')]);
    });
    const second = await countStatements(async () => {
      release();
      await leftRunning; // the first call's statement, sent while this one runs
      await db.query('SELECT 3');
    });
    expect(first.statements).toBe(2);
    expect(second.statements).toBe(1);
  });
});

describe('countStatements over HTTP', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer(edgeTarget());
    await t.gql(`mutation($input: [CreateDocumentInput!]!) { upsertDocuments(input: $input) { changed } }`, {
      input: [{ id: 'one', title: 'One', content: 'The first document.' }],
    });
  });
  afterAll(async () => {
    await t?.close();
  });

  it("counts its own request's statements, not those of requests sent meanwhile", async () => {
    const list = () => t.gql<{ documents: { edges: unknown[] } }>('{ documents(first: 5) { edges { node { id } } } }');
    const alone = await countStatements(list);
    expect(alone.value.data?.documents.edges).toHaveLength(1);
    expect(alone.statements).toBeGreaterThan(0);
    const { statements } = await countStatements(async () => {
      const others = uncounted(() => Promise.all([list(), list(), list()]));
      await list();
      await others;
    });
    expect(statements).toBe(alone.statements);
  });
});
