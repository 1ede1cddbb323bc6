import type { Logger } from '../logger.js';

/** Periodically deletes expired documents; reads already hide them, so the sweep only reclaims space. */
export class ExpirySweeper {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<number> | undefined;

  constructor(
    private readonly documents: { deleteExpired(): Promise<number> },
    private readonly intervalMs: number,
    private readonly logger: Logger,
  ) {}

  /** Starts sweeping every interval (0 disables it). */
  start(): void {
    if (this.intervalMs <= 0 || this.timer) return;
    this.timer = setInterval(() => void this.sweep(), this.intervalMs);
    this.timer.unref();
  }

  /** Runs one sweep now (never two at once); resolves to the number of documents deleted. */
  sweep(): Promise<number> {
    this.running ??= this.documents
      .deleteExpired()
      .then((n) => {
        if (n > 0) this.logger.info({ deleted: n }, 'expired documents deleted');
        return n;
      })
      .catch((err: unknown) => {
        this.logger.warn({ err }, 'expiry sweep failed; will retry');
        return 0;
      })
      .finally(() => {
        this.running = undefined;
      });
    return this.running;
  }

  /** Stops the timer and waits for a sweep in progress. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }
}
