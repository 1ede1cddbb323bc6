import { describe, expect, it } from '@jest/globals';
import { validateExtractGraph, validateExtractors } from '../../../importers/extract/validateExtractGraph.js';
import { JobTokenBudget } from '../../../importers/extract/JobTokenBudget.js';
import { capMessage } from '../../../importers/extract/runExtractJob.js';

const settings = { configured: ['structural', 'offline'] as const, llmModel: false };

describe('extractGraph input', () => {
  it('takes exactly one of documentIds and filter', () => {
    expect(() => validateExtractGraph({}, settings)).toThrow(/input: give exactly one of documentIds and filter/);
    expect(() => validateExtractGraph({ documentIds: ['a'], filter: {} }, settings)).toThrow(/exactly one/);
    expect(validateExtractGraph({ filter: {} }, settings)).toEqual({
      target: { filter: {} },
      extractors: null,
      dryRun: false,
    });
    expect(validateExtractGraph({ documentIds: ['a', 'b', 'a'], dryRun: true }, settings)).toEqual({
      target: { ids: ['a', 'b'] },
      extractors: null,
      dryRun: true,
    });
  });

  it('bounds the ids and checks each', () => {
    expect(() => validateExtractGraph({ documentIds: [] }, settings)).toThrow(/at least one document id/);
    const many = Array.from({ length: 1001 }, (_, i) => `d${i}`);
    expect(() => validateExtractGraph({ documentIds: many }, settings)).toThrow(/at most 1000 ids \(got 1001\)/);
    expect(() => validateExtractGraph({ documentIds: ['ok', ' bad id'] }, settings)).toThrow(/input\.documentIds\[1\]/);
  });

  it('checks extractors, and the model for llm', () => {
    expect(validateExtractors(['OFFLINE', 'structural', 'offline'], 'f', settings)).toEqual(['structural', 'offline']);
    expect(validateExtractors(null, 'f', settings)).toBeNull();
    expect(() => validateExtractors([], 'f', settings)).toThrow(/f: name at least one extractor/);
    expect(() => validateExtractors(['magic'], 'f', settings)).toThrow(/unknown extractor "magic"/);
    expect(() => validateExtractors(['llm'], 'f', settings)).toThrow(/CAIRN_EXTRACTION_LLM_MODEL/);
    expect(validateExtractors(['llm'], 'f', { llmModel: true })).toEqual(['llm']);
    expect(() => validateExtractGraph({ filter: {} }, { configured: [], llmModel: true })).toThrow(
      /CAIRN_EXTRACTION_EXTRACTORS=none/,
    );
  });
});

describe('the per-job token budget', () => {
  it('has no cap at 0 and is spent once the cap is reached', () => {
    const free = new JobTokenBudget(0);
    free.spend(1_000_000);
    expect([free.remaining(), free.exhausted()]).toEqual([undefined, false]);
    const capped = new JobTokenBudget(100);
    capped.spend(60);
    capped.spend(-5);
    expect([capped.remaining(), capped.exhausted()]).toEqual([40, false]);
    capped.spend(40);
    expect([capped.remaining(), capped.exhausted()]).toEqual([0, true]);
    expect(capMessage(100, 100, 3)).toMatch(/CAIRN_EXTRACTION_MAX_TOKENS_PER_JOB.*3 document\(s\) not extracted yet/);
  });
});
