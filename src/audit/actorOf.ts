import type { Principal } from '../auth/roles.js';
import { LOCAL_ACTOR, type Actor } from './actor.js';

/** The actor a request's principal records changes as: its key, or the local user while authentication is off. */
export function actorOf(principal: Principal): Actor {
  return principal.kind === 'key' ? { keyId: principal.keyId, name: principal.name } : LOCAL_ACTOR;
}
