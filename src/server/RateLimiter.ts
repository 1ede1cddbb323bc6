/** The outcome of spending one request. */
export type RateDecision = { ok: true } | { ok: false; retryAfterSeconds: number };

interface Bucket {
  tokens: number;
  at: number;
}

const MAX_BUCKETS = 10_000;

/**
 * Token buckets in this process's memory, one per key (an API key id or a client address): `burst` requests at
 * once, refilled at `perSecond`. Several Cairn processes each keep their own buckets.
 */
export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();

  constructor(
    private readonly perSecond: number,
    private readonly burst: number,
    private readonly now: () => number = () => performance.now() / 1000,
  ) {}

  /** False when either setting is 0. */
  get enabled(): boolean {
    return this.perSecond > 0 && this.burst > 0;
  }

  /** Spends one token of `key`'s bucket, or says how many whole seconds until one is available. */
  take(key: string): RateDecision {
    if (!this.enabled) return { ok: true };
    const now = this.now();
    const bucket = this.buckets.get(key) ?? { tokens: this.burst, at: now };
    bucket.tokens = this.refilled(bucket, now);
    bucket.at = now;
    if (!this.buckets.has(key)) {
      if (this.buckets.size >= MAX_BUCKETS) this.prune(now);
      this.buckets.set(key, bucket);
    }
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return { ok: true };
    }
    return this.refusal(bucket.tokens);
  }

  /** What `take` would answer, without spending a token: for checks made before work that may then spend one. */
  peek(key: string): RateDecision {
    const bucket = this.enabled ? this.buckets.get(key) : undefined;
    if (!bucket) return { ok: true };
    const tokens = this.refilled(bucket, this.now());
    return tokens >= 1 ? { ok: true } : this.refusal(tokens);
  }

  private refilled(bucket: Bucket, now: number): number {
    return Math.min(this.burst, bucket.tokens + (now - bucket.at) * this.perSecond);
  }

  private refusal(tokens: number): RateDecision {
    return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil((1 - tokens) / this.perSecond)) };
  }

  /** Drops buckets that have refilled completely (they behave like new ones), keeping memory bounded. */
  private prune(now: number): void {
    for (const [key, b] of this.buckets) {
      if (b.tokens + (now - b.at) * this.perSecond >= this.burst) this.buckets.delete(key);
    }
    // Under a flood of distinct keys nothing may be full yet: forget the oldest half rather than grow.
    if (this.buckets.size >= MAX_BUCKETS) {
      let drop = this.buckets.size / 2;
      for (const key of this.buckets.keys()) {
        if (drop-- <= 0) break;
        this.buckets.delete(key);
      }
    }
  }
}
