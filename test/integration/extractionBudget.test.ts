import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { loadConfig } from '../../src/config.js';
import { openDb } from '../../src/db/openDb.js';
import type { Db } from '../../src/db/Db.js';
import { ExtractionCacheRepository } from '../../src/extraction/ExtractionCacheRepository.js';
import { runExtractor } from '../../src/extraction/runExtractors.js';
import type { TokenBudget } from '../../src/extraction/types.js';
import { dbTargets, type ScratchDatabase } from '../helpers/databases.js';
import { TextMarkupExtractor } from '../helpers/TextMarkupExtractor.js';

/** A budget of `cap` tokens. */
function budget(cap: number): TokenBudget & { spent: number } {
  return {
    spent: 0,
    remaining() {
      return Math.max(0, cap - this.spent);
    },
    spend(tokens: number) {
      this.spent += tokens;
    },
    exhausted() {
      return this.spent >= cap;
    },
  };
}

const document = { id: 'doc:b', title: 'Budget', documentType: 'other', source: null, tags: [], metadata: {} };
const chunks = Array.from({ length: 10 }, (_, i) => ({
  id: String(i + 1),
  ordinal: i,
  content: `[[Name ${i}|Concept]]`,
}));

describe.each(dbTargets().slice(0, 1))('extraction under a token budget ($name)', (target) => {
  let scratch: ScratchDatabase;
  let db: Db;
  beforeAll(async () => {
    scratch = await target.createDatabase();
    db = await openDb(loadConfig(scratch.env));
  });
  afterAll(async () => {
    await db?.close();
    await scratch?.drop();
  });

  it('stops between calls once the budget is spent, keeps what it extracted, and never pays for it twice', async () => {
    const cache = new ExtractionCacheRepository(db);
    const model = new TextMarkupExtractor('llm', undefined, 10);
    const first = budget(25);
    const run = await runExtractor(model, document, chunks, cache, { budget: first });
    expect(run.budgetExhausted).toBe(true);
    expect(run.tokens).toBe(40);
    expect(run.results.filter((r) => r !== undefined)).toHaveLength(4);

    const second = budget(1000);
    const rest = await runExtractor(model, document, chunks, cache, { budget: second });
    expect(rest.budgetExhausted).toBe(false);
    expect(second.spent).toBe(60);
    expect(model.calls).toBe(10);
    expect(rest.results.every((r) => r !== undefined)).toBe(true);
  });
});
