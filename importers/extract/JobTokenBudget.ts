import type { TokenBudget } from '../../src/importerPort.js';

/** The model tokens one extractGraph job may spend (CAIRN_EXTRACTION_MAX_TOKENS_PER_JOB; 0: no cap). */
export class JobTokenBudget implements TokenBudget {
  /** Tokens recorded so far. */
  spent = 0;

  constructor(private readonly cap: number) {}

  remaining(): number | undefined {
    return this.cap > 0 ? Math.max(0, this.cap - this.spent) : undefined;
  }

  spend(tokens: number): void {
    this.spent += Math.max(0, tokens);
  }

  exhausted(): boolean {
    return this.cap > 0 && this.spent >= this.cap;
  }
}
