// The polling engine behind GraphQL subscriptions (importJobUpdated, sourceUpdated): what changed, read again and again.

/**
 * How often a subscription looks at the database: jobs may run in another process, so changes are read, not pushed.
 */
export const POLL_MS = 250;

/** Resolves after `ms`, or at once when `signal` fires. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
  });
}

/**
 * Yields each new state of what `read` returns (one whose `key` differs from the last one sent), until `done` says the
 * last one sent was final or the subscriber leaves. An async generator alone would not notice a subscriber leaving:
 * its `return()` waits for the next `yield`, and a source that never changes never yields, so it would poll the
 * database forever. `return()` here stops the polling at once.
 */
export function pollChanges<T>(
  read: () => Promise<T[]>,
  key: (value: T) => string,
  id: (value: T) => string,
  done: (value: T) => boolean = () => false,
): AsyncIterableIterator<T> {
  const left = new AbortController();
  async function* poll(): AsyncGenerator<T> {
    const sent = new Map<string, string>();
    while (!left.signal.aborted) {
      for (const value of await read()) {
        const k = key(value);
        if (sent.get(id(value)) === k) continue;
        sent.set(id(value), k);
        yield value;
        if (done(value)) return;
      }
      await pause(POLL_MS, left.signal);
    }
  }
  const values = poll();
  return {
    next: () => values.next(),
    return: async () => {
      left.abort();
      return values.return(undefined);
    },
    throw: async (err: unknown) => {
      left.abort();
      return values.throw(err);
    },
    [Symbol.asyncIterator]() {
      return this;
    },
  };
}
