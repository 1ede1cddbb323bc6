import { announceChange } from '../db/changeFeed.js';
import type { Queryable } from '../db/Db.js';
import { AppError, ErrorCode, badInput, notFound } from '../errors.js';
import { OwnContext } from '../shared/ownContext.js';
import { apiKeyId, apiKeyMatches, generateApiKey, hashApiKey } from './apiKey.js';
import { ApiKeyRepository, type ApiKeyRecord } from './ApiKeyRepository.js';
import type { Role } from './roles.js';
import { DEFAULT_SPACE } from '../db/spaceScope.js';
import { SpaceService, validateSpaceId } from './SpaceService.js';

/** Timing knobs of the key service (tests shorten them). */
export interface ApiKeyServiceOptions {
  /** At most one `last_used_at` write per key in this interval (default 60 s). */
  touchIntervalMs?: number;
  /** Called when recording `last_used_at` fails (the request still succeeds). */
  onTouchError?: (err: unknown) => void;
  /** Milliseconds on a monotonic clock, for the touch interval (tests pass their own). */
  now?: () => number;
}

/** A key just created: `key` is the only time the secret is available. */
export interface CreatedApiKeyRecord {
  apiKey: ApiKeyRecord;
  key: string;
}

const MAX_NAME = 100;
/** Most keys `acceptedRecently` remembers; the oldest are forgotten first. */
const MAX_ACCEPTED = 10_000;

/** Creates, lists, revokes and verifies API keys; shared by the server, GraphQL and the CLI. */
export class ApiKeyService {
  private readonly repository: ApiKeyRepository;
  private readonly touchIntervalMs: number;
  private readonly onTouchError: (err: unknown) => void;
  private readonly now: () => number;
  // Whether any key exists: kept until a change here drops it or a recheck replaces it, never expired by the clock.
  private active: boolean | undefined;
  private activePending: Promise<boolean> | undefined;
  // Bumped by every local create/revoke, so an answer read before the change is not cached after it.
  private generation = 0;
  private readonly lastTouched = new Map<string, number>();
  // Key uses being written: outside any request, so no request waits for one or counts its statement.
  private readonly touches = new Set<Promise<void>>();
  private readonly context = new OwnContext();
  // SHA-256 of keys verify accepted (never the keys), oldest first: lets a known key past an address's failure limit.
  private readonly accepted = new Set<string>();

  constructor(
    private readonly db: Queryable,
    options: ApiKeyServiceOptions = {},
  ) {
    this.repository = new ApiKeyRepository(db);
    this.touchIntervalMs = options.touchIntervalMs ?? 60_000;
    this.onTouchError = options.onTouchError ?? (() => undefined);
    this.now = options.now ?? (() => performance.now());
  }

  /**
   * Creates a key with a validated name and role; the returned `key` is never stored. Through the API
   * (`keepAnAdmin`) the first key must be an admin key: it turns authentication on, and without an admin key no one
   * could manage keys over the API again.
   */
  async create(
    name: string,
    role: Role,
    options: { keepAnAdmin?: boolean; spaces?: readonly string[] | null } = {},
  ): Promise<CreatedApiKeyRecord> {
    const clean = name.trim();
    if (clean === '' || clean.length > MAX_NAME) throw badInput('name', `must be 1 to ${MAX_NAME} characters`);
    // Control and format characters (bidirectional overrides, zero-width ones) make a name display as another.
    if (/[\p{Cc}\p{Cf}]/u.test(clean))
      throw badInput('name', 'must not contain control or invisible formatting characters');
    if (options.keepAnAdmin && role !== 'admin' && !(await this.repository.anyActive())) {
      throw badInput(
        'role',
        'the first API key must be an ADMIN key: creating it turns authentication on, and only an admin can manage keys afterwards',
      );
    }
    const spaces = await this.spacesFor(role, options.spaces);
    const generated = generateApiKey();
    const apiKey = await this.repository.insert({
      id: generated.id,
      name: clean,
      role,
      keyHash: generated.keyHash,
      spaces,
    });
    await this.changed(); // authentication may have just turned on
    return { apiKey, key: generated.key };
  }

  /**
   * The spaces a new key is bound to: those given (which must exist), else every space for an admin key and
   * `default` for the others, so a key nobody binds never reads a space created later.
   */
  private async spacesFor(role: Role, given: readonly string[] | null | undefined): Promise<string[] | null> {
    if (given === undefined || given === null) return role === 'admin' ? null : [DEFAULT_SPACE];
    const ids = [...new Set(given.map((s) => validateSpaceId(s, 'spaces')))].sort();
    if (ids.length === 0) throw badInput('spaces', 'name at least one space, or leave spaces out');
    const missing = await new SpaceService(this.db).missing(ids);
    if (missing.length > 0)
      throw badInput(
        'spaces',
        `no space "${missing[0]}" exists; an admin creates it first (createSpace, or cairn spaces create)`,
      );
    return ids;
  }

  /** Every key, revoked ones included. */
  list(): Promise<ApiKeyRecord[]> {
    return this.repository.list();
  }

  /**
   * Revokes a key (idempotent); NOT_FOUND for an unknown id. Through the API (`keepAnAdmin`) the last unrevoked
   * admin key is kept (CONFLICT): revoking it would leave no one able to manage keys, except from the server's shell.
   */
  async revoke(id: string, options: { keepAnAdmin?: boolean } = {}): Promise<ApiKeyRecord> {
    const clean = id.trim();
    // An admin pasting the whole key must not get its secret echoed back in the error.
    if (apiKeyId(clean) !== null)
      throw badInput('id', "is a whole API key; give the key's id (as apiKeys lists it), never the key itself");
    if (!options.keepAnAdmin) {
      const record = await this.repository.revoke(clean);
      if (!record) throw notFound('API key', clean);
      await this.changed();
      return record;
    }
    const result = await this.repository.revokeKeepingAnAdmin(clean);
    if (result.outcome === 'missing') throw notFound('API key', clean);
    if (result.outcome !== 'revoked') {
      throw new AppError(
        ErrorCode.CONFLICT,
        `API key "${clean}" is the last active admin key; create another admin key before revoking it`,
        { id: clean },
      );
    }
    await this.changed();
    return result.record;
  }

  /** The unrevoked key matching `key`, or null; records its use (in the background) at most once per touch interval. */
  async verify(key: string): Promise<ApiKeyRecord | null> {
    const id = apiKeyId(key);
    if (!id) return null;
    const found = await this.repository.findWithHash(id);
    const hash = hashApiKey(key);
    if (!found || !apiKeyMatches(key, found.keyHash) || found.revokedAt) {
      this.accepted.delete(hash); // revoked since: it must count as a failure again
      return null;
    }
    this.accepted.delete(hash);
    this.accepted.add(hash);
    if (this.accepted.size > MAX_ACCEPTED) this.accepted.delete(this.accepted.values().next().value!);
    const { keyHash: _hash, ...record } = found;
    const now = this.now();
    if (now - (this.lastTouched.get(id) ?? -Infinity) >= this.touchIntervalMs) {
      this.lastTouched.set(id, now);
      this.recordUse(id);
    }
    return record;
  }

  /** Writes a key's `last_used_at` in the background; `settle` waits for the writes under way. */
  private recordUse(id: string): void {
    const write: Promise<void> = this.context
      .run(() => this.repository.touch(id))
      .catch(this.onTouchError)
      .finally(() => this.touches.delete(write));
    this.touches.add(write);
  }

  /** Waits for the key uses being written (the services' close does, so none is lost at shutdown). */
  async settle(): Promise<void> {
    await Promise.all([...this.touches]);
  }

  /**
   * True when this process's `verify` accepted `key` (and has not refused it since), answered from memory: a client
   * address that sent too many unknown keys is refused before any lookup, except with a key known to be good.
   */
  acceptedRecently(key: string): boolean {
    return this.accepted.has(hashApiKey(key));
  }

  /**
   * True when any unrevoked key exists. Answered from memory once read: this process's creates and revokes drop the
   * answer, and `recheckActive` (run in the background, never by a request) replaces it with the database's, so a
   * request's statements never depend on the clock.
   */
  async anyActive(): Promise<boolean> {
    if (this.active !== undefined) return this.active;
    this.activePending ??= this.readActive().finally(() => {
      this.activePending = undefined;
    });
    return this.activePending;
  }

  /**
   * Reads whether any key exists and keeps the answer, unless a change here came in between: how a key created or
   * revoked by another process takes effect (on its notification, or the periodic recheck if that was missed).
   */
  async recheckActive(): Promise<void> {
    await this.readActive();
  }

  private async readActive(): Promise<boolean> {
    const generation = this.generation;
    const value = await this.repository.anyActive();
    if (generation === this.generation) this.active = value;
    return value;
  }

  /** Takes a space being deleted off every key (a key bound to it alone is revoked); returns how many lost it. */
  async unbindSpace(space: string): Promise<number> {
    const unbound = await this.repository.unbindSpace(space);
    await this.changed();
    return unbound;
  }

  /** Forgets the cached answer here and tells the other processes on the database to do the same. */
  private async changed(): Promise<void> {
    this.forgetActive();
    // The change is committed; a lost announcement only leaves other processes on their brief cache.
    await announceChange(this.db, 'keys').catch(() => undefined);
  }

  /** Forgets whether any key exists (a key was created or revoked here): the next request reads it. */
  private forgetActive(): void {
    this.generation++;
    this.active = undefined;
    this.activePending = undefined;
  }
}

/** The UNAUTHENTICATED error, with the same message for missing, malformed, unknown and revoked keys. */
export function unauthenticated(reason: 'missing' | 'invalid' | 'proxied' | 'host'): AppError {
  const messages = {
    // Names the admin key: a first key of another role would lock its creator out of managing keys.
    missing:
      'This Cairn server requires an API key: send "Authorization: Bearer <key>". An admin creates keys with the createApiKey mutation ' +
      'or `npm run cairn -- keys create --role <role> --name <name> --api-key <admin key>`; with no key at all, create an admin key first ' +
      '(`npm run cairn -- keys create --role admin --name <name>`).',
    invalid: 'The API key is unknown, malformed or revoked.',
    proxied:
      'Authentication is off (no API key exists), so Cairn only answers direct local requests, not ones relayed by a proxy. ' +
      'Create a key first: with the createApiKey mutation sent straight to the server from this machine, ' +
      'or with `npm run cairn -- keys create --role admin --name <name>` on this machine (it works through a running server).',
    host: 'Authentication is off (no API key exists), so Cairn only answers requests addressed to localhost, 127.0.0.1 or [::1].',
  } as const;
  return new AppError(ErrorCode.UNAUTHENTICATED, messages[reason], { reason });
}
