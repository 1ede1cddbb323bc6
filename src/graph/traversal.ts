import type { GraphStore } from './GraphStore.js';
import type { Direction, Edge, EntityRecord, NeighborRecord, RelationshipRecord } from './types.js';

// Traversals are level-synchronous breadth-first searches over GraphStore.expand, one query per level. Both stores
// share this code, so depth, caps and tie-breaks mean exactly the same thing on Postgres and on Neo4j.

/** Options of a neighbourhood query. */
export interface NeighborOptions {
  /** 1..3 */
  depth: number;
  direction: Direction;
  types?: readonly string[] | undefined;
  /** Neighbours returned per seed. */
  limit: number;
}

/** Edges followed from any one node per level: one supernode cannot swamp a traversal. */
export const EXPANSION_CAP_PER_NODE = 200;
/** Nodes expanded per seed and level. */
export const FRONTIER_CAP = 500;

function byRelationshipOrder(a: Edge, b: Edge): number {
  return a.relationship.id < b.relationship.id ? -1 : a.relationship.id > b.relationship.id ? 1 : 0;
}

/**
 * Neighbours of each seed up to `depth`, each at its smallest depth with the relationship that first reached it
 * (smallest relationship id among those at that depth). Results are ordered by (depth, name, id) and cut to `limit`.
 */
export async function neighbors(
  store: GraphStore,
  seedIds: readonly string[],
  options: NeighborOptions,
): Promise<Map<string, NeighborRecord[]>> {
  const { seeds, found } = await explore(store, seedIds, options);
  const entities = new Map(
    (await store.getEntities([...new Set([...found.values()].flatMap((m) => [...m.keys()]))])).map((e) => [e.id, e]),
  );
  // Entities deleted since the traversal are dropped before the cut, so they take no place.
  const refs = nearest(seeds, found, options.limit, (id) => entities.has(id));
  return new Map(
    [...refs].map(([seed, list]) => [
      seed,
      list.map((n) => ({ entity: entities.get(n.id) as EntityRecord, depth: n.depth, relationship: n.relationship })),
    ]),
  );
}

/** A neighbour as `nearestNeighbors` finds it: its id and name, not its record. */
export interface NeighborRef {
  id: string;
  name: string;
  depth: number;
  relationship: RelationshipRecord;
}

/**
 * `neighbors` without reading the neighbours' records (one store read fewer): ordered by the names the edges carry.
 * An entity deleted meanwhile may still be listed; callers that read the records afterwards drop it then.
 */
export async function nearestNeighbors(
  store: GraphStore,
  seedIds: readonly string[],
  options: NeighborOptions,
): Promise<Map<string, NeighborRef[]>> {
  const { seeds, found } = await explore(store, seedIds, options);
  return nearest(seeds, found, options.limit, () => true);
}

/** Per seed, the reached entities that `keep` accepts, ordered by (depth, name, id) and cut to `limit`. */
function nearest(
  seeds: readonly string[],
  found: Map<string, Map<string, Reach>>,
  limit: number,
  keep: (id: string) => boolean,
): Map<string, NeighborRef[]> {
  const result = new Map<string, NeighborRef[]>();
  for (const seed of seeds) {
    const list = [...(found.get(seed) ?? [])]
      .filter(([id]) => keep(id))
      .map(([id, v]) => ({ id, name: v.name, depth: v.depth, relationship: v.relationship }));
    list.sort((a, b) => a.depth - b.depth || compareText(a.name, b.name) || compareText(a.id, b.id));
    result.set(seed, list.slice(0, limit));
  }
  return result;
}

/** How a traversal first reached an entity. */
interface Reach {
  depth: number;
  name: string;
  relationship: RelationshipRecord;
}

/** The breadth-first search itself: per seed, every entity reached (at most `depth` levels), with its first reach. */
async function explore(
  store: GraphStore,
  seedIds: readonly string[],
  options: NeighborOptions,
): Promise<{ seeds: string[]; found: Map<string, Map<string, Reach>> }> {
  const seeds = [...new Set(seedIds)];
  const found = new Map<string, Map<string, Reach>>(seeds.map((s) => [s, new Map()]));
  let frontiers = new Map<string, string[]>(seeds.map((s) => [s, [s]]));
  for (let depth = 1; depth <= options.depth; depth++) {
    const all = [...new Set([...frontiers.values()].flat())];
    if (all.length === 0) break;
    const edges = await store.expand(all, options.direction, options.types, EXPANSION_CAP_PER_NODE);
    const byFrom = new Map<string, Edge[]>();
    for (const e of edges) {
      const list = byFrom.get(e.fromId);
      if (list) list.push(e);
      else byFrom.set(e.fromId, [e]);
    }
    const next = new Map<string, string[]>();
    for (const seed of seeds) {
      const seen = found.get(seed) as Map<string, Reach>;
      const candidates = (frontiers.get(seed) ?? []).flatMap((id) => byFrom.get(id) ?? []).sort(byRelationshipOrder);
      const reached: string[] = [];
      for (const e of candidates) {
        if (e.neighborId === seed || seen.has(e.neighborId)) continue;
        seen.set(e.neighborId, { depth, name: e.neighborName, relationship: e.relationship });
        reached.push(e.neighborId);
      }
      next.set(seed, reached.sort().slice(0, FRONTIER_CAP));
    }
    frontiers = next;
  }
  return { seeds, found };
}

/** A connected piece of the graph around some entities. */
export interface SubgraphRecord {
  entities: EntityRecord[];
  relationships: RelationshipRecord[];
  /** True when `limit` cut entities off. */
  truncated: boolean;
}

/**
 * The seeds plus their neighbours up to `depth` (both directions), at most `limit` entities, with the relationships
 * among them. With `keep`, only the neighbours it accepts are returned (the traversal passes through all).
 */
export async function subgraph(
  store: GraphStore,
  seedIds: readonly string[],
  depth: number,
  limit: number,
  keep?: (entity: EntityRecord) => boolean,
): Promise<SubgraphRecord> {
  const seeds = (await store.getEntities(seedIds)).sort((a, b) => compareText(a.id, b.id));
  const around = await neighbors(
    store,
    seeds.map((s) => s.id),
    { depth, direction: 'BOTH', limit: Number.MAX_SAFE_INTEGER },
  );
  const ordered = new Map<string, EntityRecord>(seeds.map((s) => [s.id, s]));
  const rest = [...around.values()]
    .flat()
    .sort(
      (a, b) => a.depth - b.depth || compareText(a.entity.name, b.entity.name) || compareText(a.entity.id, b.entity.id),
    );
  for (const n of rest) if (!ordered.has(n.entity.id) && (!keep || keep(n.entity))) ordered.set(n.entity.id, n.entity);
  const all = [...ordered.values()];
  const entities = all.slice(0, limit);
  const relationships = await store.relationshipsAmong(entities.map((e) => e.id));
  relationships.sort((a, b) => compareText(a.id, b.id));
  return { entities, relationships, truncated: all.length > limit };
}

/** A path between two entities. */
export interface PathRecord {
  entities: EntityRecord[];
  relationships: RelationshipRecord[];
}

/** A shortest path ignoring direction, or null when none exists within `maxDepth` hops; ties go to smaller relationship ids. */
export async function shortestPath(
  store: GraphStore,
  fromId: string,
  toId: string,
  maxDepth: number,
): Promise<PathRecord | null> {
  const ends = await store.getEntities([fromId, toId]);
  const byId = new Map(ends.map((e) => [e.id, e]));
  if (!byId.has(fromId) || !byId.has(toId)) return null;
  if (fromId === toId) return { entities: [byId.get(fromId) as EntityRecord], relationships: [] };
  const parent = new Map<string, { prev: string; relationship: RelationshipRecord }>();
  const visited = new Set([fromId]);
  let frontier = [fromId];
  for (let depth = 1; depth <= maxDepth && frontier.length > 0; depth++) {
    const edges = (await store.expand(frontier, 'BOTH', undefined, EXPANSION_CAP_PER_NODE)).sort(byRelationshipOrder);
    const next: string[] = [];
    for (const e of edges) {
      if (visited.has(e.neighborId)) continue;
      visited.add(e.neighborId);
      parent.set(e.neighborId, { prev: e.fromId, relationship: e.relationship });
      next.push(e.neighborId);
    }
    if (visited.has(toId)) break;
    frontier = next.sort().slice(0, FRONTIER_CAP * 4);
  }
  if (!parent.has(toId)) return null;
  const ids = [toId];
  const relationships: RelationshipRecord[] = [];
  for (let cur = toId; cur !== fromId;) {
    const step = parent.get(cur) as { prev: string; relationship: RelationshipRecord };
    relationships.unshift(step.relationship);
    ids.unshift(step.prev);
    cur = step.prev;
  }
  const found = new Map((await store.getEntities(ids)).map((e) => [e.id, e]));
  return { entities: ids.map((id) => found.get(id)).filter((e): e is EntityRecord => e !== undefined), relationships };
}

/** UTF-16 code-unit order (JavaScript string order), identical whatever the store or locale. */
export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
