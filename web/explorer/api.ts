// The explorer's GraphQL operations (operations.graphql), typed by `npm run codegen`; all go through the shared client.
import {
  ExplorerEntityDocument,
  ExplorerGapsDocument,
  ExplorerNeighborIdsDocument,
  ExplorerPathDocument,
  ExplorerSearchDocument,
  ExplorerStatsDocument,
  ExplorerSubgraphDocument,
  type EntityFilter,
  type EntitySummaryFragment,
  type ExplorerEntityQuery,
  type ExplorerPathQuery,
  type ExplorerSearchQuery,
  type ExplorerStatsQuery,
  type ExplorerSubgraphQuery,
  type RelationshipSummaryFragment,
} from '../shared/generated/graphql.js';
import { gql } from '../shared/graphql.js';

/** What the canvas needs of an entity. */
export type EntitySummary = EntitySummaryFragment;
/** What the canvas needs of a relationship. */
export type RelationshipSummary = RelationshipSummaryFragment;
/** Everything the side panel shows about an entity. */
export type EntityDetail = NonNullable<ExplorerEntityQuery['entity']>;
/** A piece of the graph to merge into the canvas. */
export type GraphPiece = ExplorerSubgraphQuery['subgraph'];
/** Graph-wide counts for the legend and the overview. */
export type GraphStatsSummary = ExplorerStatsQuery['graphStats'];
/** An entity found by name, with its aliases. */
export type EntityHit = ExplorerSearchQuery['entities']['nodes'][number];
/** A shortest path's entities and relationships. */
export type PathPiece = NonNullable<ExplorerPathQuery['shortestPath']>;

/** Entities whose name or an alias contains `text`. */
export async function searchEntities(text: string, first = 10): Promise<{ total: number; hits: EntityHit[] }> {
  const data = await gql(ExplorerSearchDocument, { text, first });
  return { total: data.entities.totalCount, hits: data.entities.nodes };
}

/** The side panel's data for one entity, or null when it does not exist. */
export async function entityDetail(id: string): Promise<EntityDetail | null> {
  return (await gql(ExplorerEntityDocument, { id })).entity;
}

/** The seeds and their neighbourhood (`depth` hops, at most `limit` entities) with the relationships among them. */
export async function subgraph(entityIds: string[], depth: number, limit: number): Promise<GraphPiece> {
  return (await gql(ExplorerSubgraphDocument, { ids: entityIds, depth, limit })).subgraph;
}

/** Ids of an entity's direct neighbours in the server's order (depth, name, id), at most 500. */
export async function neighborIds(id: string): Promise<string[]> {
  const data = await gql(ExplorerNeighborIdsDocument, { id });
  return data.entity?.neighbors.map((n) => n.entity.id) ?? [];
}

/** A shortest path (ignoring direction), or null when there is none within 6 hops. */
export async function shortestPath(fromId: string, toId: string): Promise<PathPiece | null> {
  return (await gql(ExplorerPathDocument, { from: fromId, to: toId })).shortestPath;
}

/** Graph counts: totals, entities and relationships by type, orphans and the most connected entities. */
export async function graphStats(): Promise<GraphStatsSummary> {
  return (await gql(ExplorerStatsDocument)).graphStats;
}

/** Which gap a list of the gaps view shows: entities with no relationship, or that no document mentions. */
export type GapKind = 'orphans' | 'unmentioned';

const GAP_FILTERS: Record<GapKind, EntityFilter> = {
  orphans: { hasRelationships: false },
  unmentioned: { hasDocuments: false },
};

/** One page (by name) of the entities with a gap, with how many there are in all. */
export async function gapPage(
  kind: GapKind,
  after: string | null,
  first = 100,
): Promise<{ total: number; endCursor: string | null; hasNextPage: boolean; nodes: EntitySummary[] }> {
  const data = await gql(ExplorerGapsDocument, { filter: GAP_FILTERS[kind], first, after });
  return { total: data.entities.totalCount, ...data.entities.pageInfo, nodes: data.entities.nodes };
}
