import { intIn } from '../shared/intIn.js';
import type { NeighborOptions } from './traversal.js';
import type { Direction } from './types.js';
import { validateRelationshipType } from './validateGraphInput.js';

// The limits of graph reads, the same through GraphQL and MCP: GraphService applies them.

/** Most seed ids of one subgraph. */
export const MAX_SUBGRAPH_SEEDS = 100;

/** A neighbourhood query's arguments as callers give them. */
export interface NeighborArgs {
  depth?: number | null;
  direction?: Direction | null;
  relationshipTypes?: readonly string[] | null;
  limit?: number | null;
}

/** Neighbourhood arguments validated, with their defaults (depth 1–3, limit 1–500). */
export function toNeighborOptions(args: NeighborArgs): NeighborOptions {
  return {
    depth: intIn(args.depth, 1, 1, 3, 'depth'),
    direction: args.direction ?? 'BOTH',
    types: args.relationshipTypes?.map((t, i) => validateRelationshipType(t, `relationshipTypes[${i}]`)),
    limit: intIn(args.limit, 50, 1, 500, 'limit'),
  };
}

/** How many documents of an entity one page lists (Entity.documents' `first`): default 20, 1 to 100. */
export function toEntityDocumentsFirst(first: number | null | undefined): number {
  return intIn(first, 20, 1, 100, 'first');
}

/** A shortest path's hops when `maxDepth` is omitted. */
export const DEFAULT_PATH_DEPTH = 4;

/** A shortest path's `maxDepth`, validated (default 4, at most 6). */
export const toPathDepth = (maxDepth: number | null | undefined): number =>
  intIn(maxDepth, DEFAULT_PATH_DEPTH, 1, 6, 'maxDepth');
