import { AsyncLocalStorage } from 'node:async_hooks';

/** Who a change is recorded against: an API key, or a named local actor (the CLI, the scheduler). */
export interface Actor {
  keyId: string | null;
  name: string;
}

/** Work that no request started (the CLI, tests, a process with authentication off) is the local user's. */
export const LOCAL_ACTOR: Actor = Object.freeze({ keyId: null, name: 'local' });

/** The scheduler's own syncs. */
export const SCHEDULER_ACTOR: Actor = Object.freeze({ keyId: null, name: 'scheduler' });

/** The expiry sweep's deletes. */
export const SWEEPER_ACTOR: Actor = Object.freeze({ keyId: null, name: 'expiry sweep' });

const storage = new AsyncLocalStorage<Actor>();

/**
 * Runs `work` as `actor`: every change it makes, including background work it starts (an async import job),
 * is recorded against that actor. The actor travels with the async context, so no service signature carries it.
 */
export function runAs<T>(actor: Actor, work: () => T): T {
  return storage.run(actor, work);
}

/** The actor of the current async context. */
export function currentActor(): Actor {
  return storage.getStore() ?? LOCAL_ACTOR;
}
