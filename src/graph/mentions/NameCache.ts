import { byPosition, foldForMatching, MentionMatcher, type EntityName, type NameMatch } from './MentionMatcher.js';
import { WordIndex, type NameIndex, type TokenizedName } from './queryEntities.js';

/** An entity whose name changed: its current linking name, or undefined when it is gone or no longer links by name. */
export interface NameChange {
  entityId: string;
  name: EntityName | undefined;
}

/** Names changed since the main automaton was built, past which it is built again (bounds the delta's size and cost). */
export const DELTA_LIMIT = 2000;

/** What a name cache holds, for reports. */
export interface NameCacheStats {
  names: number;
  /** Entities changed (or deleted) since the main automaton was built. */
  pending: number;
  /** Times the main automaton was built. */
  builds: number;
}

/**
 * Every linking name, matched like one `MentionMatcher` over all of them but updated by changes: a main automaton
 * built from all names at some point, and a small delta automaton over the names changed since. Matches of the main
 * automaton for changed or deleted entities are dropped; the delta holds their current names. Once more than
 * `deltaLimit` entities changed, the main automaton is built again from the current names, so memory stays one
 * automaton over the names plus at most `deltaLimit` names.
 */
export class NameCache implements NameIndex {
  private readonly index: WordIndex;
  private main: MentionMatcher;
  private delta: MentionMatcher | undefined;
  /** Ids whose entry in the main automaton is out of date: changed or deleted since it was built. */
  private readonly pending = new Set<string>();
  private builds = 1;

  constructor(
    names: Iterable<EntityName>,
    private readonly deltaLimit = DELTA_LIMIT,
  ) {
    this.index = WordIndex.of(names);
    this.main = new MentionMatcher([...this.index.values()]);
  }

  /** Applies changed names (later changes of one entity win). */
  apply(changes: readonly NameChange[]): void {
    let changed = false;
    for (const c of changes) {
      const prior = this.index.nameOf(c.entityId);
      if (c.name === undefined) {
        if (!prior) continue;
        this.index.delete(c.entityId);
      } else {
        if (prior && sameName(prior, c.name)) continue;
        this.index.set(c.name);
      }
      this.pending.add(c.entityId);
      changed = true;
    }
    if (!changed) return;
    if (this.pending.size > this.deltaLimit) this.rebuild();
    else this.delta = new MentionMatcher(this.pendingNames());
  }

  /** Builds the main automaton again from the current names. */
  rebuild(): void {
    this.main = new MentionMatcher([...this.index.values()]);
    this.delta = undefined;
    this.pending.clear();
    this.builds++;
  }

  /** Ids of the entities mentioned in `text`. */
  entitiesIn(text: string): Set<string> {
    return new Set(this.matchesIn(text).map((m) => m.entityId));
  }

  /** Every whole-word occurrence of a name in `text`, as `MentionMatcher.matchesIn` over all current names finds it. */
  matchesIn(text: string): NameMatch[] {
    const folded = foldForMatching(text);
    const found = this.main.matchesInFolded(text, folded);
    const current = this.pending.size === 0 ? found : found.filter((m) => !this.pending.has(m.entityId));
    if (this.delta) current.push(...this.delta.matchesInFolded(text, folded));
    return current.sort(byPosition);
  }

  nameOf(entityId: string): TokenizedName | undefined {
    return this.index.nameOf(entityId);
  }

  idsWithWord(word: string): Iterable<string> {
    return this.index.idsWithWord(word);
  }

  stats(): NameCacheStats {
    return { names: this.index.size, pending: this.pending.size, builds: this.builds };
  }

  private pendingNames(): EntityName[] {
    const out: EntityName[] = [];
    for (const id of this.pending) {
      const n = this.index.nameOf(id);
      if (n) out.push(n);
    }
    return out;
  }
}

function sameName(a: EntityName, b: EntityName): boolean {
  return a.name === b.name && a.aliases.length === b.aliases.length && a.aliases.every((x, i) => x === b.aliases[i]);
}
