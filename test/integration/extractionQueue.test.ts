import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { loadConfig } from '../../src/config.js';
import { openDb } from '../../src/db/openDb.js';
import type { Db } from '../../src/db/Db.js';
import { ExtractionQueueRepository } from '../../src/extraction/ExtractionQueueRepository.js';
import { dbTargets, type ScratchDatabase } from '../helpers/databases.js';

const at = (s: number) => new Date(Date.UTC(2030, 0, 1, 0, 0, s));

describe.each(dbTargets())('extraction queue ($name)', (target) => {
  let scratch: ScratchDatabase;
  let db: Db;
  let queue: ExtractionQueueRepository;
  beforeAll(async () => {
    scratch = await target.createDatabase();
    db = await openDb(loadConfig(scratch.env));
    queue = new ExtractionQueueRepository(db);
  });
  afterAll(async () => {
    await db?.close();
    await scratch?.drop();
  });

  it('hands each queued document to one claimer, and takes it over when the lease runs out', async () => {
    await queue.enqueue(db, ['q:1', 'q:2']);
    const first = await queue.claim(at(0), at(10), 1, 3);
    const second = await queue.claim(at(0), at(10), 5, 3);
    expect([...first, ...second].map((c) => c.documentId).sort()).toEqual(['q:1', 'q:2']);
    expect(await queue.claim(at(5), at(15), 5, 3)).toEqual([]);
    expect(await queue.renew(['q:1', 'q:2'], at(20))).toHaveLength(2);
    expect(await queue.claim(at(15), at(25), 5, 3)).toEqual([]);
    const takenOver = await queue.claim(at(21), at(31), 5, 3);
    expect(takenOver.map((c) => [c.documentId, c.attempts])).toEqual([
      ['q:1', 2],
      ['q:2', 2],
    ]);
    for (const c of takenOver) await queue.finish(c, { status: 'DONE', warnings: [], entities: 1, relationships: 0 });
    expect(await queue.statusCounts()).toEqual({ pending: 0, running: 0, done: 2, failed: 0 });
  });

  it('keeps a request made while the document was being extracted', async () => {
    await queue.enqueue(db, ['q:3']);
    const [claim] = await queue.claim(at(40), at(50), 1, 3);
    await queue.enqueue(db, ['q:3']);
    await queue.finish(claim!, { status: 'DONE', warnings: [], entities: 0, relationships: 0 });
    expect((await queue.state('q:3'))?.status).toBe('PENDING');
    const [again] = await queue.claim(at(41), at(51), 5, 3);
    expect(again?.documentId).toBe('q:3');
    await queue.finish(again!, { status: 'DONE', warnings: [], entities: 0, relationships: 0 });
  });

  it('marks a document FAILED after its claims ran out max-attempts times', async () => {
    await queue.enqueue(db, ['q:4']);
    for (let i = 0; i < 2; i++) expect(await queue.claim(at(100 + i * 20), at(110 + i * 20), 5, 2)).toHaveLength(1);
    expect(await queue.claim(at(200), at(210), 5, 2)).toEqual([]);
    const state = await queue.state('q:4');
    expect(state?.status).toBe('FAILED');
    expect(state?.error).toMatch(/stopped 2 times/);
  });

  it('queues the clean-up of a deleted document and forgets it when done', async () => {
    await queue.markRemoved(db, 'q:5');
    const claims = await queue.claim(at(300), at(310), 5, 3);
    expect(claims.map((c) => [c.documentId, c.removed])).toEqual([['q:5', true]]);
    await queue.finish(claims[0]!, { status: 'DONE', warnings: [], entities: 0, relationships: 0 });
    expect(await queue.state('q:5')).toBeUndefined();
  });
});
