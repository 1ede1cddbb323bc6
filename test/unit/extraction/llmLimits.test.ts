import { describe, expect, it } from '@jest/globals';
import { loadConfig } from '../../../src/config.js';
import {
  estimateExtraction,
  RequestRateLimiter,
  SimpleTokenBudget,
  type Wait,
} from '../../../src/extraction/llm/index.js';
import { systemPrompt, userPrompt } from '../../../src/extraction/llm/prompt.js';
import { OpenAiStub } from '../../helpers/openAiStub.js';

/** A clock that only moves when the limiter waits: every wait is recorded, nothing sleeps. */
function fakeTime(start = 1_000_000) {
  const state = { now: start, waits: [] as number[] };
  const wait: Wait = async (ms) => {
    state.waits.push(ms);
    state.now += ms;
  };
  return { state, clock: () => state.now, wait };
}

describe('RequestRateLimiter', () => {
  it('lets requestsPerMinute requests through, then waits until the oldest is a minute old', async () => {
    const time = fakeTime();
    const limiter = new RequestRateLimiter(2, time.clock, time.wait);
    await limiter.acquire();
    time.state.now += 10_000;
    await limiter.acquire();
    expect(time.state.waits).toEqual([]);
    await limiter.acquire();
    // The first request was sent 10 s before the second: the third waits the remaining 50 s.
    expect(time.state.waits).toEqual([50_000]);
    await limiter.acquire();
    expect(time.state.waits).toEqual([50_000, 10_000]);
  });

  it('serves concurrent callers in turn without exceeding the budget', async () => {
    const time = fakeTime();
    const limiter = new RequestRateLimiter(3, time.clock, time.wait);
    const granted: number[] = [];
    await Promise.all(Array.from({ length: 7 }, () => limiter.acquire().then(() => granted.push(time.state.now))));
    const start = 1_000_000;
    expect(granted).toEqual([start, start, start, start + 60_000, start + 60_000, start + 60_000, start + 120_000]);
  });

  it('stops waiting when aborted', async () => {
    const time = fakeTime();
    const limiter = new RequestRateLimiter(1, time.clock, time.wait);
    await limiter.acquire();
    const controller = new AbortController();
    controller.abort();
    await expect(limiter.acquire(controller.signal)).rejects.toThrow();
    expect(time.state.waits).toEqual([]);
  });
});

describe('SimpleTokenBudget', () => {
  it('counts down to exhaustion', () => {
    const budget = new SimpleTokenBudget(100);
    expect(budget.remaining()).toBe(100);
    budget.spend(60);
    expect(budget.exhausted()).toBe(false);
    budget.spend(60);
    expect(budget.remaining()).toBe(0);
    expect(budget.exhausted()).toBe(true);
    expect(budget.spent).toBe(120);
  });

  it('has no cap at 0', () => {
    const budget = new SimpleTokenBudget(0);
    budget.spend(1e9);
    expect(budget.remaining()).toBeUndefined();
    expect(budget.exhausted()).toBe(false);
  });
});

describe('estimateExtraction', () => {
  const base = loadConfig({}).extraction.llm;
  const chunks = [
    { documentId: 'a', title: 'Guide', content: 'x'.repeat(400) },
    { documentId: 'a', title: 'Guide', content: 'y'.repeat(800) },
    { documentId: 'b', title: 'API', content: 'z'.repeat(40) },
  ];

  it('estimates tokens from characters and sends nothing', async () => {
    const stub = await OpenAiStub.start();
    try {
      // Pointed at the stub: any request the estimate sent would be recorded there.
      const config = { ...base, baseUrl: stub.baseUrl, model: 'stub-model' };
      const estimate = estimateExtraction(chunks, config, 5);
      const system = Math.ceil(systemPrompt(base).length / 4);
      const input = chunks.reduce((sum, c) => sum + system + Math.ceil(userPrompt(c.title, c.content).length / 4), 0);
      expect(estimate).toEqual({
        documents: 2,
        chunks: 8,
        cachedChunks: 5,
        estimatedInputTokens: input,
        // Half the passage's tokens plus 20 each: 100/2+20, 200/2+20, 10/2+20.
        estimatedOutputTokens: 70 + 120 + 25,
        estimatedCostUsd: null,
      });
      expect(stub.requests).toHaveLength(0);
    } finally {
      await stub.close();
    }
  });

  it('prices the tokens when prices are set, and caps output at max_tokens', () => {
    const config = { ...base, priceInputPerMillion: 2, priceOutputPerMillion: 10, maxOutputTokens: 64 };
    const estimate = estimateExtraction(chunks, config);
    expect(estimate.estimatedOutputTokens).toBe(64 + 64 + 25);
    expect(estimate.estimatedCostUsd).toBeCloseTo((estimate.estimatedInputTokens * 2 + 153 * 10) / 1e6, 12);
  });
});
