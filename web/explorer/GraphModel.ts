// The loaded part of the graph: nodes and links with why each node is on screen, so "Collapse" can undo an expansion.
import type { SimulationLinkDatum, SimulationNodeDatum } from 'd3-force';
import type { EntitySummary, RelationshipSummary } from './api.js';

/** An entity on the canvas; x/y/fx/fy are managed by d3-force. */
export interface GraphNode extends SimulationNodeDatum {
  id: string;
  type: string;
  name: string;
  /** MANUAL, IMPORTED or EXTRACTED: extracted entities are drawn with a dashed outline. */
  origin: string;
  /** Why the node is shown: "root", "path", "gaps" or "expand:<id>"; it leaves when the set empties. */
  owners: Set<string>;
  expanded: boolean;
  /** Neighbour ids the last expansion did not load (the "+N more"). */
  more: string[];
  /** Neighbours that could not be counted (the server lists at most 500). */
  moreCapped: boolean;
  degree: number;
  radius: number;
}

/** A relationship on the canvas; d3-force reads source and target. */
export interface GraphLink extends SimulationLinkDatum<GraphNode> {
  id: string;
  type: string;
  /** MANUAL, IMPORTED or EXTRACTED: extracted relationships are drawn dashed. */
  origin: string;
  source: GraphNode;
  target: GraphNode;
}

/** What a node is made from: an entity, or a document shown beside the entities it mentions. */
export type NodeInput = Pick<EntitySummary, 'id' | 'type' | 'name'> & { origin: string };
/** What a link is made from: a relationship, or a document's link to an entity it mentions. */
export type LinkInput = Pick<RelationshipSummary, 'id' | 'type' | 'from' | 'to'> & { origin: string };

/** Owner token of the nodes an expansion of `id` brought in. */
export function expandOwner(id: string): string {
  return `expand:${id}`;
}

/** Nodes and links currently loaded, with a version that changes on every structural edit. */
export class GraphModel {
  readonly nodes = new Map<string, GraphNode>();
  readonly links = new Map<string, GraphLink>();
  /** Bumped when nodes or links are added or removed. */
  version = 0;
  private adjacency = new Map<string, Set<string>>();
  private adjacencyVersion = -1;

  /** Adds entities (or just the owner, for known ones); new nodes start around `near` when given. Returns how many were new. */
  addEntities<T extends NodeInput>(
    entities: readonly T[],
    owner: (e: T) => string | null,
    near?: { x: number; y: number },
  ): number {
    let added = 0;
    for (const e of entities) {
      const tag = owner(e);
      const known = this.nodes.get(e.id);
      if (known) {
        if (tag) known.owners.add(tag);
        continue;
      }
      const node: GraphNode = {
        id: e.id,
        type: e.type,
        name: e.name,
        origin: e.origin,
        owners: new Set(tag ? [tag] : ['root']),
        expanded: false,
        more: [],
        moreCapped: false,
        degree: 0,
        radius: 5,
      };
      if (near) {
        const angle = Math.random() * 2 * Math.PI;
        node.x = near.x + Math.cos(angle) * (20 + Math.random() * 30);
        node.y = near.y + Math.sin(angle) * (20 + Math.random() * 30);
      }
      this.nodes.set(e.id, node);
      added++;
    }
    if (added) this.changed();
    return added;
  }

  /** Adds the relationships whose two ends are loaded; returns how many were new. */
  addRelationships(relationships: readonly LinkInput[]): number {
    let added = 0;
    for (const r of relationships) {
      if (this.links.has(r.id)) continue;
      const source = this.nodes.get(r.from.id);
      const target = this.nodes.get(r.to.id);
      if (!source || !target) continue;
      this.links.set(r.id, { id: r.id, type: r.type, origin: r.origin, source, target });
      added++;
    }
    if (added) this.changed();
    return added;
  }

  /** Withdraws an owner token; nodes left without owners go, and so do the expansions they had. Returns the removed ids. */
  removeOwner(owner: string): string[] {
    const removed: string[] = [];
    const pending = [owner];
    while (pending.length > 0) {
      const tag = pending.pop() as string;
      for (const node of [...this.nodes.values()]) {
        if (!node.owners.delete(tag) || node.owners.size > 0) continue;
        this.nodes.delete(node.id);
        removed.push(node.id);
        if (node.expanded) pending.push(expandOwner(node.id));
      }
    }
    if (removed.length) {
      for (const [id, link] of this.links)
        if (!this.nodes.has(link.source.id) || !this.nodes.has(link.target.id)) this.links.delete(id);
      this.changed();
    }
    return removed;
  }

  /** Drops a deleted entity and its links. */
  removeEntity(id: string): void {
    if (!this.nodes.delete(id)) return;
    for (const [linkId, link] of this.links)
      if (link.source.id === id || link.target.id === id) this.links.delete(linkId);
    this.changed();
  }

  /** Drops a deleted relationship. */
  removeRelationship(id: string): void {
    if (this.links.delete(id)) this.changed();
  }

  /** Empties the canvas. */
  clear(): void {
    this.nodes.clear();
    this.links.clear();
    this.changed();
  }

  /** Ids of the nodes linked to `id` (loaded links only). */
  neighborsOf(id: string): Set<string> {
    if (this.adjacencyVersion !== this.version) {
      this.adjacency = new Map();
      for (const l of this.links.values()) {
        this.adjacencyOf(l.source.id).add(l.target.id);
        this.adjacencyOf(l.target.id).add(l.source.id);
      }
      this.adjacencyVersion = this.version;
    }
    return this.adjacency.get(id) ?? new Set();
  }

  private adjacencyOf(id: string): Set<string> {
    let s = this.adjacency.get(id);
    if (!s) this.adjacency.set(id, (s = new Set()));
    return s;
  }

  // Degrees size the nodes, so they follow every structural change.
  private changed(): void {
    this.version++;
    for (const n of this.nodes.values()) n.degree = 0;
    for (const l of this.links.values()) {
      l.source.degree++;
      l.target.degree++;
    }
    for (const n of this.nodes.values()) n.radius = 4 + Math.min(10, Math.sqrt(n.degree) * 1.6);
  }
}
