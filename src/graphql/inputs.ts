import { parseTagExpression } from '../documents/tagExpression.js';
import { boundedFilter } from '../documents/filterBounds.js';
import type { DocumentFilterSpec, DocumentTypeName } from '../documents/types.js';
import type { EnrichArgs } from '../enrichment/enrichRequest.js';
import type { DocumentFilter, EnrichContextInput } from './generated/types.js';

// The API's input shapes as the services take them, shared by the GraphQL resolvers and the MCP tools (src/mcp/). The
// bounds and defaults are the services' (listings: src/shared/pageSize.ts; enrichContext: resolveEnrichRequest).

export { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../shared/pageSize.js';
export { MAX_FILTER_VALUES } from '../documents/filterBounds.js';

/** Converts a GraphQL `DocumentFilter` into a filter spec (its sizes checked, its tag expression parsed). */
export function toFilterSpec(filter: DocumentFilter | null | undefined, field = 'filter'): DocumentFilterSpec {
  if (!filter) return {};
  const spec: DocumentFilterSpec = {};
  if (filter.types?.length) spec.types = filter.types.map((t) => t.toLowerCase() as DocumentTypeName);
  if (filter.sources?.length) spec.sources = filter.sources;
  boundedFilter(spec, field); // before the tag expression is parsed, as the fields come
  if (filter.tags !== undefined && filter.tags !== null)
    spec.tagGroups = parseTagExpression(filter.tags, `${field}.tags`);
  if (filter.text !== undefined && filter.text !== null) {
    const text = filter.text.trim();
    if (text !== '') spec.text = text;
    boundedFilter({ text }, field);
  }
  return spec;
}

/** enrichContext's input as the enricher takes it (which checks its bounds and fills in the defaults). */
export function toEnrichArgs(input: EnrichContextInput): EnrichArgs {
  return { ...input, filter: toFilterSpec(input.filter, 'input.filter') };
}
