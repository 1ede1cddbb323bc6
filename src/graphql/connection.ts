/** A Relay-style connection as the schema's `*Connection` types expect. */
export interface Connection<T> {
  edges: { cursor: string; node: T }[];
  nodes: T[];
  totalCount: number;
  pageInfo: { hasNextPage: boolean; hasPreviousPage: boolean; startCursor: string | null; endCursor: string | null };
}

/** Builds a connection from one page of (cursor, node) pairs. */
export function toConnection<T>(
  edges: { cursor: string; node: T }[],
  page: { hasNextPage: boolean; hasPreviousPage: boolean; totalCount: number },
): Connection<T> {
  return {
    edges,
    nodes: edges.map((e) => e.node),
    totalCount: page.totalCount,
    pageInfo: {
      hasNextPage: page.hasNextPage,
      hasPreviousPage: page.hasPreviousPage,
      startCursor: edges[0]?.cursor ?? null,
      endCursor: edges.at(-1)?.cursor ?? null,
    },
  };
}
