// The explorer's GraphQL operations, typed; all go through the shared client.
import { gql } from '../shared/graphql.js';

/** What the canvas needs of an entity. */
export interface EntitySummary {
  id: string;
  type: string;
  name: string;
}

/** What the canvas needs of a relationship. */
export interface RelationshipSummary {
  id: string;
  type: string;
  from: { id: string };
  to: { id: string };
}

/** A document that mentions an entity. */
export interface DocumentSummary {
  id: string;
  title: string;
  documentType: string;
  source: string | null;
}

/** Everything the side panel shows about an entity. */
export interface EntityDetail extends EntitySummary {
  aliases: string[];
  description: string | null;
  properties: unknown;
  relationships: { id: string; type: string; from: EntitySummary; to: EntitySummary }[];
  documents: DocumentSummary[];
}

/** A piece of the graph to merge into the canvas. */
export interface GraphPiece {
  entities: EntitySummary[];
  relationships: RelationshipSummary[];
  truncated: boolean;
}

/** Graph-wide counts for the legend and the overview. */
export interface GraphStatsSummary {
  entityCount: number;
  relationshipCount: number;
  orphanCount: number;
  byType: { key: string; count: number }[];
  relationshipsByType: { key: string; count: number }[];
  topDegree: { degree: number; entity: EntitySummary }[];
}

const PIECE = `truncated entities { id type name } relationships { id type from { id } to { id } }`;

/** Entities whose name or an alias contains `text`. */
export async function searchEntities(text: string, first = 10): Promise<{ total: number; hits: (EntitySummary & { aliases: string[] })[] }> {
  const data = await gql<{ entities: { totalCount: number; nodes: (EntitySummary & { aliases: string[] })[] } }>(
    `query ExplorerSearch($text: String!, $first: Int) { entities(filter: { nameContains: $text }, first: $first) { totalCount nodes { id type name aliases } } }`,
    { text, first },
  );
  return { total: data.entities.totalCount, hits: data.entities.nodes };
}

/** The side panel's data for one entity, or null when it does not exist. */
export async function entityDetail(id: string): Promise<EntityDetail | null> {
  const data = await gql<{ entity: EntityDetail | null }>(
    `query ExplorerEntity($id: ID!) { entity(id: $id) { id type name aliases description properties
       relationships { id type from { id type name } to { id type name } }
       documents(first: 50) { id title documentType source } } }`,
    { id },
  );
  return data.entity;
}

/** The seeds and their neighbourhood (`depth` hops, at most `limit` entities) with the relationships among them. */
export async function subgraph(entityIds: string[], depth: number, limit: number): Promise<GraphPiece> {
  const data = await gql<{ subgraph: GraphPiece }>(
    `query ExplorerSubgraph($ids: [ID!]!, $depth: Int, $limit: Int) { subgraph(input: { entityIds: $ids, depth: $depth, limit: $limit }) { ${PIECE} } }`,
    { ids: entityIds, depth, limit },
  );
  return data.subgraph;
}

/** Ids of an entity's direct neighbours in the server's order (depth, name, id), at most 500. */
export async function neighborIds(id: string): Promise<string[]> {
  const data = await gql<{ entity: { neighbors: { entity: { id: string } }[] } | null }>(
    `query ExplorerNeighborIds($id: ID!) { entity(id: $id) { neighbors(limit: 500) { entity { id } } } }`,
    { id },
  );
  return data.entity?.neighbors.map((n) => n.entity.id) ?? [];
}

/** A shortest path (ignoring direction), or null when there is none within 6 hops. */
export async function shortestPath(fromId: string, toId: string): Promise<{ entities: EntitySummary[]; relationships: RelationshipSummary[] } | null> {
  const data = await gql<{ shortestPath: { entities: EntitySummary[]; relationships: RelationshipSummary[] } | null }>(
    `query ExplorerPath($from: ID!, $to: ID!) { shortestPath(fromId: $from, toId: $to, maxDepth: 6) {
       entities { id type name } relationships { id type from { id } to { id } } } }`,
    { from: fromId, to: toId },
  );
  return data.shortestPath;
}

/** Graph counts: totals, entities and relationships by type, orphans and the most connected entities. */
export async function graphStats(): Promise<GraphStatsSummary> {
  const data = await gql<{ graphStats: GraphStatsSummary }>(
    `query ExplorerStats { graphStats { entityCount relationshipCount orphanCount byType { key count } relationshipsByType { key count }
       topDegree { degree entity { id type name } } } }`,
  );
  return data.graphStats;
}

/** Which gap a list of the gaps view shows: entities with no relationship, or that no document mentions. */
export type GapKind = 'orphans' | 'unmentioned';

const GAP_FILTERS: Record<GapKind, { hasRelationships?: boolean; hasDocuments?: boolean }> = {
  orphans: { hasRelationships: false },
  unmentioned: { hasDocuments: false },
};

/** One page (by name) of the entities with a gap, with how many there are in all. */
export async function gapPage(kind: GapKind, after: string | null, first = 100): Promise<{
  total: number;
  endCursor: string | null;
  hasNextPage: boolean;
  nodes: EntitySummary[];
}> {
  const data = await gql<{
    entities: { totalCount: number; pageInfo: { hasNextPage: boolean; endCursor: string | null }; nodes: EntitySummary[] };
  }>(
    `query ExplorerGaps($filter: EntityFilter, $first: Int, $after: String) { entities(filter: $filter, first: $first, after: $after) {
       totalCount pageInfo { hasNextPage endCursor } nodes { id type name } } }`,
    { filter: GAP_FILTERS[kind], first, after },
  );
  return { total: data.entities.totalCount, ...data.entities.pageInfo, nodes: data.entities.nodes };
}
