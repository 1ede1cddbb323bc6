import { MAX_FILTER_VALUES } from '../documents/filterBounds.js';
import { badInput } from '../errors.js';
import { decodePair, encodePair } from '../shared/cursor.js';
import { pageSize, type PageArgs } from '../shared/pageSize.js';
import type { GraphStore } from './GraphStore.js';
import type { EntityRecord, Origin } from './types.js';
import { validateEntityType } from './validateGraphInput.js';

/** The entity listing's filter as a caller gives it (GraphQL's `EntityFilter`, MCP's find_entities), unchecked. */
export interface EntityFilterArgs {
  types?: readonly string[] | null;
  nameContains?: string | null;
  hasRelationships?: boolean | null;
  hasDocuments?: boolean | null;
  origin?: readonly Origin[] | null;
}

/** One page of entities by (name, id), with opaque cursors. */
export interface EntityConnectionPage {
  edges: { cursor: string; node: EntityRecord }[];
  hasNextPage: boolean;
  hasPreviousPage: boolean;
  totalCount: number;
}

/**
 * One page of entities: `first` by `pageSize` (default 20, at most 100), `after` a cursor of an earlier page, the
 * filter checked. `filterField` prefixes the filter's fields in errors ('' when they are arguments of their own).
 */
export async function entityPage(
  store: Pick<GraphStore, 'findEntities'>,
  filter: EntityFilterArgs | null | undefined,
  page: PageArgs,
  filterField = 'filter.',
): Promise<EntityConnectionPage> {
  const first = pageSize(page.first);
  const position = page.after ? decodePair(page.after, page.afterField) : undefined;
  if ((filter?.types?.length ?? 0) > MAX_FILTER_VALUES)
    throw badInput(`${filterField}types`, `give at most ${MAX_FILTER_VALUES} types`);
  const spec = {
    types: filter?.types?.map((t, i) => validateEntityType(t, `${filterField}types[${i}]`)),
    nameContains: filter?.nameContains?.trim() || undefined,
    hasRelationships: filter?.hasRelationships ?? undefined,
    hasDocuments: filter?.hasDocuments ?? undefined,
    origin: filter?.origin?.length ? [...filter.origin] : undefined,
  };
  const result = await store.findEntities(spec, first, position && { name: position[0], id: position[1] });
  return {
    edges: result.entities.map((node) => ({ cursor: encodePair(node.name, node.id), node })),
    hasNextPage: result.hasNextPage,
    hasPreviousPage: Boolean(page.after),
    totalCount: result.totalCount,
  };
}
