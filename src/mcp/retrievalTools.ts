import { z } from 'zod';
import { ROOT_FIELD_ROLES } from '../graphql/fieldRoles.js';
import { validateDocumentId } from '../documents/validateInput.js';
import type { ChunkRecord } from '../documents/types.js';
import { notFound } from '../errors.js';
import { toEnrichArgs, toFilterSpec } from '../graphql/inputs.js';
import { intIn } from '../shared/intIn.js';
import type { TextBudget } from '../graphql/TextBudget.js';
import { defineTool, jsonOutput, toJson } from './toolDefinition.js';
import { documentFilterSchema, integer, pageArgs, searchModeSchema } from './schemas.js';

const { Query } = ROOT_FIELD_ROLES;

export const enrichContextTool = defineTool({
  name: 'enrich_context',
  title: 'Context for a question',
  description:
    'Call this first for any question the knowledge base may answer. Returns one markdown context block, within a ' +
    'character budget, that merges the best-matching document passages (numbered citations [1], [2], …) with the ' +
    'knowledge-graph entities the question and the passages name and how they relate. Cite the numbers when you use ' +
    'a passage; the structured result lists each citation with its document id, title and URL. `warnings` says when ' +
    'part of the knowledge could not be read (the rest is still returned).',
  role: Query.enrichContext,
  readOnly: true,
  input: z.strictObject({
    query: z.string().describe("The user's question or task in natural language (at most 8000 characters)."),
    topK: integer().optional().describe('Passages to retrieve, 1 up to the server maximum (default 3).'),
    maxEntities: integer()
      .optional()
      .describe('Knowledge-graph entities to include, 0-100 (default 5; 0 leaves the graph out).'),
    graphDepth: integer()
      .optional()
      .describe('Relationship hops to follow around the entities the query names, 1-3 (default 1).'),
    maxChars: integer().optional().describe('Character budget of the context, 200-1000000 (default 6000).'),
    filter: documentFilterSchema.optional(),
    mode: searchModeSchema.optional(),
    minScore: z.number().optional().describe('Drop passages scoring below this, 0-1 (default 0).'),
  }),
  async run(args, { services }) {
    const request = toEnrichArgs(args);
    const result = await services.reads.run(() => services.enricher.enrich(request));
    const structured = toJson({
      context: result.context,
      citations: result.citations,
      entities: result.entities.map((e) => ({ id: e.entity.id, type: e.entity.type, name: e.entity.name, why: e.why })),
      relationships: result.relationships.map((r) => ({ fromId: r.fromId, type: r.type, toId: r.toId })),
      truncated: result.truncated,
      omittedChunks: result.omittedChunks,
      omittedEntities: result.omittedEntities,
      warnings: result.warnings,
    });
    const warnings = result.warnings.length > 0 ? `\n\n> Warnings: ${result.warnings.join('; ')}` : '';
    return { text: `${result.context || 'Nothing in the knowledge base matches this query.'}${warnings}`, structured };
  },
});

const chunkText = (chunk: ChunkRecord, budget: TextBudget) => ({
  position: chunk.ordinal,
  content: budget.take(chunk.content),
});

export const searchTool = defineTool({
  name: 'search',
  title: 'Search documents',
  description:
    'Ranked search over document passages (chunks). Use it to find specific passages or documents; prefer ' +
    'enrich_context to answer a question. Each hit has the passage text, its score (0-1, higher is better) and its ' +
    "document's id, title and source; pass the id to get_document for the whole text.",
  role: Query.search,
  readOnly: true,
  input: z.strictObject({
    query: z.string().describe('What to look for, in natural language or keywords (at most 8000 characters).'),
    topK: integer().optional().describe('Hits to return, from 1 (default 3, capped by the server maximum).'),
    minScore: z.number().optional().describe('Drop hits scoring below this, 0-1.'),
    filter: documentFilterSchema.optional(),
    mode: searchModeSchema.optional(),
    fusion: z.enum(['RRF', 'LINEAR']).optional().describe('HYBRID only: how the two rankings merge (default LINEAR).'),
    vectorWeight: z
      .number()
      .optional()
      .describe('HYBRID only: weight of the meaning ranking, 0-1; keywords get the rest.'),
    groupByDocument: z.boolean().optional().describe('At most one hit (its best passage) per document.'),
    expandNeighbors: integer()
      .optional()
      .describe('Also return up to this many neighbouring passages on each side of every hit, 0-10.'),
  }),
  async run(args, { services, budget }) {
    const request = { ...args, filter: toFilterSpec(args.filter, 'input.filter') };
    const hits = await services.reads.run(() => services.search.hits(request));
    return jsonOutput({
      hits: hits.map((h) => ({
        documentId: h.document.id,
        title: h.document.title,
        source: h.document.source,
        score: h.score,
        ...chunkText(h.chunk, budget),
        ...(h.neighbors ? { neighbors: h.neighbors.map((n) => chunkText(n, budget)) } : {}),
      })),
    });
  },
});

/** Characters get_document returns when the call names no budget. */
export const DEFAULT_DOCUMENT_CHARS = 20_000;

export const getDocumentTool = defineTool({
  name: 'get_document',
  title: 'Read a document',
  description:
    'Reads one document by id (ids come from search, enrich_context citations and find_entities results): its title, ' +
    'type, source, tags and text. Long texts come in pieces of at most maxChars characters; when `truncated` is true, ' +
    'call again with offset = nextOffset for the next piece.',
  role: Query.document,
  readOnly: true,
  input: z.strictObject({
    id: z.string().describe('The document id, e.g. "runbook:ach-failures" or a URL.'),
    maxChars: integer()
      .optional()
      .describe(`Most characters of text to return, from 1 (default ${DEFAULT_DOCUMENT_CHARS}).`),
    offset: integer().optional().describe('Character position to start reading from (default 0).'),
  }),
  async run(args, { services, budget }) {
    const id = validateDocumentId(args.id);
    const maxChars = intIn(args.maxChars, DEFAULT_DOCUMENT_CHARS, 1, budget.limit, 'maxChars');
    const offset = intIn(args.offset, 0, 0, Number.MAX_SAFE_INTEGER, 'offset');
    const documents = services.documents;
    const [summary] = await documents.summariesByIds([id]);
    const content = summary ? (await documents.contentByIds([id])).get(id) : undefined;
    if (!summary || content === undefined) throw notFound('document', id);
    const piece = budget.take(content.slice(offset, offset + maxChars));
    const next = offset + piece.length;
    const truncated = next < content.length;
    const structured = toJson({
      ...summary,
      documentType: summary.documentType.toUpperCase(),
      totalChars: content.length,
      offset,
      content: piece,
      truncated,
      nextOffset: truncated ? next : null,
    });
    const more = truncated
      ? `\n\n[… ${content.length - next} more characters: call get_document with offset ${next}]`
      : '';
    return {
      text: `# ${summary.title}\n\nid: ${summary.id}${summary.source ? `\nsource: ${summary.source}` : ''}\n\n${piece}${more}`,
      structured,
    };
  },
});

export const knowledgeGapsTool = defineTool({
  name: 'knowledge_gaps',
  title: 'Unanswered questions',
  description:
    'Lists questions that enrich_context answered poorly (nothing relevant was found), most frequent first, with ' +
    'how often they were asked. Use it to see what documentation is missing.',
  role: Query.knowledgeGaps,
  readOnly: true,
  input: z.strictObject(pageArgs),
  async run(args, { services }) {
    const { edges, hasNextPage, totalCount } = await services.gaps.list(args.first, args.after);
    return jsonOutput({
      gaps: edges.map(({ node }) => ({
        query: node.query,
        count: node.count,
        bestScore: node.bestScore,
        lastSeenAt: node.lastSeenAt,
      })),
      totalCount,
      hasNextPage,
      endCursor: edges.at(-1)?.cursor ?? null,
    });
  },
});
