import { loadConfig } from '../../src/config.js';
import type { Db } from '../../src/db/Db.js';
import { openDb } from '../../src/db/openDb.js';
import { KnowledgeGapRepository } from '../../src/enrichment/KnowledgeGapRepository.js';
import { dbTargets, type ScratchDatabase } from '../helpers/databases.js';
import { NO_BACKGROUND_EXTRACTION } from '../helpers/backgroundWork.js';
import { countStatement, countStatements } from '../helpers/statementCounter.js';

// Weak enrichContext calls record their gaps in memory; one INSERT writes them (the primary's cost per call).
describe.each(dbTargets())('knowledge gaps are written in batches ($name)', (target) => {
  let scratch: ScratchDatabase;
  let db: Db;

  beforeAll(async () => {
    scratch = await target.createDatabase();
    db = await openDb(loadConfig({ ...NO_BACKGROUND_EXTRACTION, ...scratch.env }), { onStatement: countStatement });
  });
  afterAll(async () => {
    await db?.close();
    await scratch?.drop();
  });

  it('records many gaps without a statement each, and lists every one of them', async () => {
    const gaps = new KnowledgeGapRepository(db);
    const recorded = await countStatements(async () => {
      for (let i = 0; i < 20; i++) await gaps.record(`unanswered question ${i % 5}?`, 0.01, {});
    });
    expect(recorded.statements).toBe(0);
    const { value: listed, statements } = await countStatements(() => gaps.list(10, new Date(Date.now() + 60_000)));
    // One INSERT of the 20 pending gaps, then the page and the count.
    expect(statements).toBe(3);
    expect(listed.totalCount).toBe(5);
    expect(listed.gaps.map((g) => g.count)).toEqual([4, 4, 4, 4, 4]);
  });

  it('writes what is pending when it closes', async () => {
    const gaps = new KnowledgeGapRepository(db);
    await gaps.record('asked right before shutdown', 0.02, {});
    await gaps.close();
    const { rows } = await db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM knowledge_gaps WHERE query = 'asked right before shutdown'",
    );
    expect(rows[0]?.n).toBe(1);
  });
});
