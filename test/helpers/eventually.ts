/** How `eventually` waits: the deadline, how often it looks, and what the failure names. */
export interface EventuallyOptions {
  /** Gives up after this many milliseconds (default 30 s: a bound on a hang, not a measure of speed). */
  within?: number;
  /** Looks again after this many milliseconds (default 25). */
  every?: number;
  /** What was awaited, for the error when the deadline passes. */
  what?: string;
}

/** A probe's answer: anything but `undefined` or `false` means the awaited state is here. */
type Probe<T> = () => T | undefined | false | Promise<T | undefined | false>;

/**
 * Resolves with the first answer of `probe` other than `undefined` or `false`, looking every `every` ms; throws once
 * `within` ms pass, naming `what` and the last answer. The one way tests wait for something another process or a
 * background task does: no test sleeps for a fixed time, and none depends on how fast the machine is, since the
 * deadline only bounds a hang. Where the code under test can tell when it is done (an event, a promise, an injected
 * clock), wait on that instead.
 */
export async function eventually<T>(probe: Probe<T>, options: EventuallyOptions = {}): Promise<T> {
  const { within = 30_000, every = 25, what = 'the awaited condition' } = options;
  const deadline = Date.now() + within;
  for (;;) {
    const answer = await probe();
    if (answer !== undefined && answer !== false) return answer;
    if (Date.now() > deadline)
      throw new Error(`${what} did not happen within ${within} ms (last answer: ${String(answer)})`);
    await new Promise((resolve) => setTimeout(resolve, every));
  }
}
