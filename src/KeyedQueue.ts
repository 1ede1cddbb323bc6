/** Runs work one at a time per key within this process: each key's calls wait for the one before (failed or not). */
export class KeyedQueue {
  private readonly tails = new Map<string, Promise<unknown>>();

  /** Runs `fn` once every earlier call for `key` has settled. */
  async run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const current = (this.tails.get(key) ?? Promise.resolve()).catch(() => undefined).then(fn);
    this.tails.set(key, current);
    try {
      return await current;
    } finally {
      if (this.tails.get(key) === current) this.tails.delete(key);
    }
  }
}
