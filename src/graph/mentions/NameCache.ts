import {
  byPosition,
  foldForMatching,
  matchPatterns,
  MentionMatcher,
  type EntityName,
  type MatchPattern,
  type NameMatch,
} from './MentionMatcher.js';
import { WordIndex, type NameIndex, type TokenizedName } from './queryEntities.js';

/** An entity whose name changed: its current linking name, or undefined when it is gone or no longer links by name. */
export interface NameChange {
  entityId: string;
  name: EntityName | undefined;
}

/**
 * How many changed names each delta automaton holds, oldest level first. The newest is rebuilt on every change (small,
 * so cheap); when it overflows, its names move into the next older level, which is rebuilt then; when the oldest
 * overflows, the main automaton is built again. Each level is rebuilt about cap(newer) / cap(it) as often as the one
 * newer, so the cost per change stays small and a full build happens once per `DELTA_CAPS[0]` changes.
 */
export const DELTA_CAPS: readonly number[] = [8192, 256];

/** What a name cache holds, for reports. */
export interface NameCacheStats {
  names: number;
  /** Entries of the delta automata: entities changed (or deleted) since the main automaton was built, per delta. */
  pending: number;
  /** Times the main automaton was built. */
  builds: number;
}

/** A delta automaton: the current names of the entities in `ids` (deleted ones have none) when it was built. */
interface Delta {
  ids: Set<string>;
  matcher: MentionMatcher | undefined;
}

/**
 * Every linking name, matched like one `MentionMatcher` over all of them but updated by changes: a main automaton
 * built from all names at some point, and small delta automata over the names changed since (see `DELTA_CAPS`). A
 * match counts only from the newest automaton that holds its entity, so renamed and deleted entities stop matching by
 * their old names. Memory: one automaton over all names plus at most the caps' sum of changed names.
 */
export class NameCache implements NameIndex {
  private readonly index: WordIndex;
  /** Each entity's patterns, folded once. */
  private readonly patterns = new Map<string, MatchPattern[]>();
  private main: MentionMatcher;
  /** Oldest first, as `caps`. */
  private readonly deltas: Delta[];
  private builds = 1;

  constructor(
    names: Iterable<EntityName>,
    private readonly caps: readonly number[] = DELTA_CAPS,
  ) {
    this.index = WordIndex.of(names);
    for (const n of this.index.values()) this.patterns.set(n.entityId, matchPatterns(n));
    this.main = this.matcherOf(this.patterns.keys());
    this.deltas = caps.map(() => ({ ids: new Set<string>(), matcher: undefined }));
  }

  /** Applies changed names (later changes of one entity win). */
  apply(changes: readonly NameChange[]): void {
    const changed = new Set<string>();
    for (const c of changes) {
      const prior = this.index.nameOf(c.entityId);
      if (c.name === undefined) {
        if (!prior) continue;
        this.index.delete(c.entityId);
        this.patterns.delete(c.entityId);
      } else {
        if (prior && sameName(prior, c.name)) continue;
        this.index.set(c.name);
        this.patterns.set(c.entityId, matchPatterns(c.name));
      }
      changed.add(c.entityId);
    }
    if (changed.size > 0) this.absorb(changed);
  }

  /** Builds the main automaton again from the current names and empties the deltas. */
  rebuild(): void {
    for (const d of this.deltas) this.empty(d);
    this.main = this.matcherOf(this.patterns.keys());
    this.builds++;
  }

  /** Ids of the entities mentioned in `text`. */
  entitiesIn(text: string): Set<string> {
    return new Set(this.matchesIn(text).map((m) => m.entityId));
  }

  /** Every whole-word occurrence of a name in `text`, as `MentionMatcher.matchesIn` over all current names finds it. */
  matchesIn(text: string): NameMatch[] {
    const folded = foldForMatching(text);
    const out = this.main.matchesInFolded(text, folded).filter((m) => !this.shadowed(m.entityId, -1));
    this.deltas.forEach((d, level) => {
      if (d.matcher)
        for (const m of d.matcher.matchesInFolded(text, folded)) if (!this.shadowed(m.entityId, level)) out.push(m);
    });
    return out.sort(byPosition);
  }

  nameOf(entityId: string): TokenizedName | undefined {
    return this.index.nameOf(entityId);
  }

  idsWithWord(word: string): Iterable<string> {
    return this.index.idsWithWord(word);
  }

  stats(): NameCacheStats {
    return {
      names: this.index.size,
      pending: this.deltas.reduce((sum, d) => sum + d.ids.size, 0),
      builds: this.builds,
    };
  }

  /** Adds changed ids to the newest delta; a delta past its cap hands its ids to the next older one (or to main). */
  private absorb(changed: Set<string>): void {
    let carry = changed;
    for (let level = this.deltas.length - 1; level >= 0; level--) {
      const d = this.deltas[level] as Delta;
      for (const id of carry) d.ids.add(id);
      if (d.ids.size <= (this.caps[level] ?? 0)) {
        d.matcher = this.matcherOf(d.ids);
        return;
      }
      carry = d.ids;
      this.empty(d);
    }
    this.rebuild();
  }

  /** Whether a delta newer than `level` (-1: the main automaton) holds the entity. */
  private shadowed(entityId: string, level: number): boolean {
    for (let newer = level + 1; newer < this.deltas.length; newer++)
      if (this.deltas[newer]?.ids.has(entityId)) return true;
    return false;
  }

  private empty(d: Delta): void {
    d.ids = new Set();
    d.matcher = undefined;
  }

  private matcherOf(ids: Iterable<string>): MentionMatcher {
    const patterns: MatchPattern[] = [];
    for (const id of ids) patterns.push(...(this.patterns.get(id) ?? []));
    return new MentionMatcher([], patterns);
  }
}

function sameName(a: EntityName, b: EntityName): boolean {
  return a.name === b.name && a.aliases.length === b.aliases.length && a.aliases.every((x, i) => x === b.aliases[i]);
}
