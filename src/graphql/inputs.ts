import type { Config } from '../config.js';
import { decodeCursor, decodePair, encodePair, type KeysetCursor } from '../shared/cursor.js';
import { parseTagExpression } from '../documents/tagExpression.js';
import type { DocumentFilterSpec, DocumentTypeName } from '../documents/types.js';
import type { EnrichRequest } from '../enrichment/types.js';
import { badInput } from '../errors.js';
import type { GraphService } from '../graph/GraphService.js';
import type { EntityRecord } from '../graph/types.js';
import { validateEntityType } from '../graph/validateGraphInput.js';
import { intIn } from '../shared/intIn.js';
import { pageSize } from '../shared/pageSize.js';
import { validateMinScore, validateQueryText } from '../retrieval/SearchService.js';
import type { DocumentFilter, EnrichContextInput, EntityFilter } from './generated/types.js';

// Validation shared by the GraphQL resolvers and the MCP tools (src/mcp/), so both enforce the same limits and codes.

export { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../shared/pageSize.js';

/** Most values a filter list (types, sources) may hold. */
export const MAX_FILTER_VALUES = 100;

/** Converts a GraphQL `DocumentFilter` into a validated filter spec. */
export function toFilterSpec(filter: DocumentFilter | null | undefined, field = 'filter'): DocumentFilterSpec {
  if (!filter) return {};
  if ((filter.types?.length ?? 0) > MAX_FILTER_VALUES)
    throw badInput(`${field}.types`, `give at most ${MAX_FILTER_VALUES} types`);
  if ((filter.sources?.length ?? 0) > MAX_FILTER_VALUES)
    throw badInput(`${field}.sources`, `give at most ${MAX_FILTER_VALUES} sources`);
  const spec: DocumentFilterSpec = {};
  if (filter.types?.length) spec.types = filter.types.map((t) => t.toLowerCase() as DocumentTypeName);
  if (filter.sources?.length) spec.sources = filter.sources;
  if (filter.tags !== undefined && filter.tags !== null)
    spec.tagGroups = parseTagExpression(filter.tags, `${field}.tags`);
  if (filter.text !== undefined && filter.text !== null) {
    const text = filter.text.trim();
    if (text.length > 1000) throw badInput(`${field}.text`, 'must be at most 1000 characters');
    if (text !== '') spec.text = text;
  }
  return spec;
}

/** Validates `first` (capped at MAX_PAGE_SIZE) and decodes `after`. */
export function toPage(
  first: number | null | undefined,
  after: string | null | undefined,
): { first: number; after: KeysetCursor | undefined } {
  return { first: pageSize(first), after: after ? decodeCursor(after) : undefined };
}

/** enrichContext's input validated, with the configured defaults and caps. */
export function toEnrichRequest(input: EnrichContextInput, config: Pick<Config, 'rag' | 'enrich'>): EnrichRequest {
  const { rag, enrich } = config;
  return {
    query: validateQueryText(input.query),
    topK: Math.min(intIn(input.topK, rag.topK, 1, 1000, 'input.topK'), rag.maxTopK),
    maxEntities: intIn(input.maxEntities, enrich.maxEntities, 0, 100, 'input.maxEntities'),
    graphDepth: intIn(input.graphDepth, 1, 1, 3, 'input.graphDepth'),
    maxChars: intIn(input.maxChars, enrich.maxChars, 200, 1_000_000, 'input.maxChars'),
    filter: toFilterSpec(input.filter, 'input.filter'),
    mode: input.mode ?? undefined,
    minScore: input.minScore == null ? undefined : validateMinScore(input.minScore),
    graphShare: input.graphShare == null ? enrich.graphShare : shareIn(input.graphShare, 'input.graphShare'),
    expandNeighbors: intIn(input.expandNeighbors, enrich.expandNeighbors, 0, 10, 'input.expandNeighbors'),
  };
}

/** A share (0..1) given by a caller. */
function shareIn(value: number, field: string): number {
  if (!Number.isFinite(value) || value < 0 || value > 1) throw badInput(field, 'must be between 0 and 1');
  return value;
}

/**
 * One page of the `entities` query: validated filter, name order, opaque cursors. `filterField` names the filter in
 * errors ('' when its fields are arguments of their own).
 */
export async function findEntityPage(
  graph: GraphService,
  filter: EntityFilter | null | undefined,
  first: number | null | undefined,
  after: string | null | undefined,
  filterField = 'filter.',
) {
  const page = toPage(first, null);
  const position = after ? decodePair(after) : undefined;
  if ((filter?.types?.length ?? 0) > MAX_FILTER_VALUES)
    throw badInput(`${filterField}types`, `give at most ${MAX_FILTER_VALUES} types`);
  const types = filter?.types?.map((t, i) => validateEntityType(t, `${filterField}types[${i}]`));
  const nameContains = filter?.nameContains?.trim() || undefined;
  const spec = {
    types,
    nameContains,
    hasRelationships: filter?.hasRelationships ?? undefined,
    hasDocuments: filter?.hasDocuments ?? undefined,
    origin: filter?.origin?.length ? [...filter.origin] : undefined,
  };
  const result = await graph.findEntities(spec, page.first, position && { name: position[0], id: position[1] });
  const edges = result.entities.map((node: EntityRecord) => ({ cursor: encodePair(node.name, node.id), node }));
  return { edges, hasNextPage: result.hasNextPage, hasPreviousPage: Boolean(after), totalCount: result.totalCount };
}
