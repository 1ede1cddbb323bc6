import type { TokenBudget } from '../types.js';

/** The per-job token cap (CAIRN_EXTRACTION_MAX_TOKENS_PER_JOB); a cap of 0 means none. */
export class SimpleTokenBudget implements TokenBudget {
  readonly #cap: number;
  #spent = 0;

  constructor(cap: number) {
    if (!Number.isFinite(cap) || cap < 0) throw new RangeError(`a token cap must be 0 (none) or more, got ${cap}`);
    this.#cap = cap;
  }

  /** Tokens spent so far. */
  get spent(): number {
    return this.#spent;
  }

  remaining(): number | undefined {
    return this.#cap === 0 ? undefined : Math.max(0, this.#cap - this.#spent);
  }

  spend(tokens: number): void {
    if (Number.isFinite(tokens) && tokens > 0) this.#spent += tokens;
  }

  exhausted(): boolean {
    return this.#cap !== 0 && this.#spent >= this.#cap;
  }
}
