import { currentSpaceScope } from '../../db/spaceScope.js';
import type { Queryable } from '../../db/Db.js';
import type { EntityNameRepository } from './EntityNameRepository.js';
import { NameCache, type NameCacheStats } from './NameCache.js';

/** The key of the names of work outside any request, which sees every space (space ids are never empty). */
const ALL_SPACES = '';
/**
 * The spaces a request reads names from (its own, and in a query those it reads: see widenReads): a write's links
 * never come from another space's names, and a revoked read is never served from the cache of the wider set.
 */
const cacheKey = (): string => currentSpaceScope()?.reads.join(',') ?? ALL_SPACES;

/** Past this many changed names, a refresh reads all names instead (and builds the automaton anew). */
const CHANGES_READ_MAX = 20_000;

/** The names and their matcher, as of one version of the names. */
interface CachedNames {
  version: bigint;
  /** True once a change may have made the names out of date: the next query reads the version. */
  stale: boolean;
  names: NameCache;
}

/**
 * The entity names and their matcher per space (`ALL_SPACES` outside any request), kept up to date by version: a
 * space's automaton holds its own names only, so another space's names neither link nor crowd out its matches, and
 * no space pays for another's names.
 */
export class SpaceNames {
  private readonly caches = new Map<string, CachedNames>();

  constructor(private readonly names: EntityNameRepository) {}

  /** The cache of the running request's space. */
  private get cached(): CachedNames | undefined {
    return this.caches.get(cacheKey());
  }

  /**
   * The names a query matches against: the cached ones until a change marks them stale (`forget`, or a `recheck` that
   * finds a newer version), never by the clock, so a query's statements do not depend on time; document writes use
   * `current`, so the mentions they record are never computed from stale names.
   */
  forQuery(q: Queryable): Promise<NameCache> {
    const cached = this.cached;
    if (cached && !cached.stale) return Promise.resolve(cached.names);
    return this.current(q);
  }

  /**
   * The current names as of the version `q` reads: one row read when nothing changed, else only the names changed
   * since the cached version (the whole table on the first load). The version is read before the names, so no change
   * numbered up to it is missed. Callers never wait for each other's reads (a write waiting, inside its transaction,
   * for a read that needs a connection could deadlock the pool, or PGlite's one connection): concurrent ones may read
   * alike, and only a result newer than the cache is applied.
   */
  async current(q: Queryable): Promise<NameCache> {
    const version = await this.names.namesVersion(q);
    const covered = () => {
      const cached = this.cached;
      if (!cached || cached.version < version) return undefined;
      cached.stale = false;
      return cached.names;
    };
    const since = this.cached?.version;
    const changes = since === undefined ? undefined : await this.names.namesChangedSince(q, since, CHANGES_READ_MAX);
    const current = covered();
    if (current) return current;
    if (changes && this.cached) {
      // Changes since `since` or earlier, applied onto a cache at `since` or later: a superset, applied alike.
      this.cached.names.apply(changes);
      this.cached.version = version;
    } else {
      const names = await this.names.allNames(q);
      // Another caller may have finished first: build the automaton only if this is still the newest.
      const latest = covered();
      if (latest) return latest;
      this.caches.set(cacheKey(), { version, stale: false, names: new NameCache(names) });
    }
    const cached = this.cached as CachedNames;
    cached.stale = false;
    return cached.names;
  }

  /** Makes the next query check the names' version instead of trusting the cache (see MentionLinker.forgetNames). */
  forget(): void {
    for (const cached of this.caches.values()) cached.stale = true;
  }

  /**
   * Reads the names' version and marks the caches older than it stale (one row read, in the background): how names
   * changed by another process reach this one's queries.
   */
  async recheck(q: Queryable): Promise<void> {
    if (this.caches.size === 0) return;
    const version = await this.names.namesVersion(q);
    for (const cached of this.caches.values()) if (cached.version < version) cached.stale = true;
  }

  /** The cached names' size and history over every space's cache; undefined before the first load. */
  stats(): NameCacheStats | undefined {
    if (this.caches.size === 0) return undefined;
    const total: NameCacheStats = { names: 0, pending: 0, builds: 0 };
    for (const { names } of this.caches.values()) {
      const s = names.stats();
      total.names += s.names;
      total.pending += s.pending;
      total.builds += s.builds;
    }
    return total;
  }
}
