// The subscriptions' polling engine: each new state once, in order, until the last is final or the subscriber leaves.
import { describe, expect, it } from '@jest/globals';
import { pollChanges } from '../../../src/shared/pollChanges.js';

interface Job {
  id: string;
  status: string;
}

describe('pollChanges', () => {
  it('yields each new state once and ends after a final one', async () => {
    const states: Job[][] = [
      [{ id: 'a', status: 'QUEUED' }],
      [{ id: 'a', status: 'QUEUED' }],
      [{ id: 'a', status: 'RUNNING' }],
      [{ id: 'a', status: 'DONE' }],
    ];
    let reads = 0;
    const read = async () => states[Math.min(reads++, states.length - 1)] ?? [];
    const seen: string[] = [];
    for await (const job of pollChanges(
      read,
      (j) => j.status,
      (j) => j.id,
      (j) => j.status === 'DONE',
    ))
      seen.push(job.status);
    expect(seen).toEqual(['QUEUED', 'RUNNING', 'DONE']);
    expect(reads).toBe(4);
  });

  it('stops reading as soon as the subscriber leaves, though nothing changes', async () => {
    let reads = 0;
    const stream = pollChanges(
      async () => {
        reads += 1;
        return [{ id: 'a', status: 'QUEUED' }];
      },
      (j) => j.status,
      (j) => j.id,
    );
    expect((await stream.next()).value).toEqual({ id: 'a', status: 'QUEUED' });
    // The next call waits for a change that never comes; leaving ends it at once instead of after the next poll.
    const waiting = stream.next();
    await stream.return?.(undefined);
    expect(await waiting).toEqual({ done: true, value: undefined });
    const readsWhenLeft = reads;
    expect(await stream.next()).toEqual({ done: true, value: undefined });
    expect(reads).toBe(readsWhenLeft);
  });
});
