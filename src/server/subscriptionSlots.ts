import { AppError, ErrorCode } from '../errors.js';

/** How many subscriptions may be open at once. */
export interface SlotLimits {
  perConnection: number;
  perKey: number;
}

/**
 * Counts the open subscriptions of each connection and each API key (or keyless client address), so that no
 * connection and no key holds more than its share: each one polls the database until it ends.
 */
export class SubscriptionSlots {
  private readonly byConnection = new Map<object, { key: string; ids: Set<string> }>();
  private readonly byKey = new Map<string, number>();

  constructor(private readonly limits: SlotLimits) {}

  /** Takes a slot for subscription `id` of `connection` on behalf of `key`, or says which limit it would pass. */
  take(connection: object, key: string, id: string): AppError | undefined {
    const held = this.byConnection.get(connection) ?? { key, ids: new Set<string>() };
    if (held.ids.size >= this.limits.perConnection) {
      return tooMany(
        `This connection has ${held.ids.size} subscriptions open`,
        this.limits.perConnection,
        'CAIRN_SUBSCRIPTIONS_PER_CONNECTION',
      );
    }
    const forKey = this.byKey.get(key) ?? 0;
    if (forKey >= this.limits.perKey) {
      return tooMany(
        `This ${key.startsWith('key:') ? 'API key' : 'client address'} has ${forKey} subscriptions open`,
        this.limits.perKey,
        'CAIRN_SUBSCRIPTIONS_PER_KEY',
      );
    }
    held.ids.add(id);
    this.byConnection.set(connection, held);
    this.byKey.set(key, forKey + 1);
    return undefined;
  }

  /** Frees the slot of a subscription that ended; a second call for it does nothing. */
  release(connection: object, id: string): void {
    const held = this.byConnection.get(connection);
    if (!held?.ids.delete(id)) return;
    const left = (this.byKey.get(held.key) ?? 1) - 1;
    if (left > 0) this.byKey.set(held.key, left);
    else this.byKey.delete(held.key);
    if (held.ids.size === 0) this.byConnection.delete(connection);
  }

  /** Frees every slot of a connection that closed. */
  releaseAll(connection: object): void {
    for (const id of [...(this.byConnection.get(connection)?.ids ?? [])]) this.release(connection, id);
  }

  /** Open subscriptions of a key, for tests and diagnostics. */
  openFor(key: string): number {
    return this.byKey.get(key) ?? 0;
  }
}

function tooMany(what: string, max: number, setting: string): AppError {
  return new AppError(ErrorCode.RATE_LIMITED, `${what}; at most ${max} may be (${setting}). Complete one first.`, {
    max,
    setting,
  });
}
