import pLimit, { type LimitFunction } from 'p-limit';
import { AppError, ErrorCode } from '../errors.js';
import type { Logger } from '../logger.js';

/** Bounds of the read admission (CAIRN_READ_CONCURRENCY, CAIRN_READ_QUEUE). */
export interface ReadAdmissionOptions {
  /** Reads (enrichContext, search) that run at once; 0 turns admission control off. */
  concurrency: number;
  /** Reads that may wait for a turn; one more is refused with RATE_LIMITED. */
  queue: number;
  logger?: Logger;
}

/** What the readiness check reports. */
export interface ReadAdmissionStats {
  running: number;
  waiting: number;
  /** Reads refused since the process started. */
  rejected: number;
}

/** Seconds a refused client is told to wait: the queue is short, so a turn frees up within about a second. */
const RETRY_AFTER_SECONDS = 1;

/**
 * Admission control for the expensive reads: at most `concurrency` run at once and `queue` wait, so that a read storm
 * leaves the rest of the database pool (and CPU) to writes and import jobs, which are never held here. A read past the
 * queue fails at once with RATE_LIMITED and `retryAfterSeconds`, which HTTP answers with 429 and Retry-After.
 */
export class ReadAdmission {
  private readonly limit: LimitFunction | undefined;
  private rejectedCount = 0;
  /** True from a refusal until a read is admitted with nobody waiting: one warning per overload, not one per refusal. */
  private overloaded = false;

  constructor(private readonly options: ReadAdmissionOptions) {
    this.limit = options.concurrency > 0 ? pLimit(options.concurrency) : undefined;
  }

  /** Runs `read` when a turn is free; throws RATE_LIMITED at once when the queue is full. */
  run<T>(read: () => Promise<T>): Promise<T> {
    const limit = this.limit;
    if (!limit) return read();
    // Both counts include reads admitted in this same tick that p-limit has not started yet.
    if (limit.activeCount + limit.pendingCount >= this.options.concurrency + this.options.queue) {
      return Promise.reject(this.refuse());
    }
    if (limit.pendingCount === 0) this.overloaded = false;
    return limit(read);
  }

  get stats(): ReadAdmissionStats {
    return {
      running: this.limit?.activeCount ?? 0,
      waiting: this.limit?.pendingCount ?? 0,
      rejected: this.rejectedCount,
    };
  }

  private refuse(): AppError {
    this.rejectedCount++;
    const { concurrency, queue } = this.options;
    if (!this.overloaded) {
      this.overloaded = true;
      this.options.logger?.warn(
        { concurrency, queue, rejected: this.rejectedCount },
        'read queue full: refusing enrichContext and search calls with RATE_LIMITED until a turn frees up',
      );
    }
    return new AppError(
      ErrorCode.RATE_LIMITED,
      `This instance is busy: ${concurrency} reads are running and ${queue} waiting; retry in ${RETRY_AFTER_SECONDS} s ` +
        '(CAIRN_READ_CONCURRENCY, CAIRN_READ_QUEUE; or run more instances).',
      { retryAfterSeconds: RETRY_AFTER_SECONDS, reason: 'READ_QUEUE_FULL' },
    );
  }
}
