import type { ListResourcesResult, ReadResourceResult, ResourceTemplate } from '@modelcontextprotocol/sdk/types.js';
import { ROOT_FIELD_ROLES } from '../graphql/fieldRoles.js';
import { requireRole, type Principal } from '../auth/roles.js';
import { validateDocumentId } from '../documents/validateInput.js';
import { allowReplicaReads } from '../db/readRoute.js';
import { currentSpaceScope } from '../db/spaceScope.js';
import { badInput, notFound } from '../errors.js';
import { TextBudget } from '../graphql/TextBudget.js';
import { validateEntityId } from '../graph/validateGraphInput.js';
import type { Services } from '../services.js';

const DOCUMENTS = 'cairn://documents/';
const ENTITIES = 'cairn://entities/';
/** Resources per listing page. */
export const RESOURCE_PAGE_SIZE = 50;
/** Relationships an entity resource shows. */
const ENTITY_RELATIONSHIPS = 100;

export const RESOURCE_TEMPLATES: ResourceTemplate[] = [
  {
    uriTemplate: `${DOCUMENTS}{id}`,
    name: 'document',
    title: 'Cairn document',
    description: 'A document of the knowledge base: its text (markdown).',
    mimeType: 'text/markdown',
  },
  {
    uriTemplate: `${ENTITIES}{id}`,
    name: 'entity',
    title: 'Cairn entity',
    description: 'A knowledge-graph entity with its relationships (JSON).',
    mimeType: 'application/json',
  },
];

/**
 * Resources only read, so they read what the reading tools read: the request's space and the spaces it may read
 * (docs/security.md#reading-other-spaces), from a replica when one may answer.
 */
async function widenAsTools(services: Services): Promise<void> {
  allowReplicaReads();
  await services.spaceReads.widen();
}

/** ` (space: <id>)` for a resource of a space the request only reads, else ''. */
function readSpaceNote(space: string | undefined): string {
  const own = currentSpaceScope()?.space;
  return space !== undefined && own !== undefined && space !== own ? ` (space: ${space})` : '';
}

/** Where a listing continues: documents (newest first), then entities (by name). */
interface ListPosition {
  kind: 'documents' | 'entities';
  after: string | null;
}

const encodePosition = (p: ListPosition): string => Buffer.from(JSON.stringify(p)).toString('base64url');

function decodePosition(cursor: string | undefined): ListPosition {
  if (cursor === undefined) return { kind: 'documents', after: null };
  try {
    const p = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as Partial<ListPosition>;
    if ((p.kind === 'documents' || p.kind === 'entities') && (p.after === null || typeof p.after === 'string'))
      return { kind: p.kind, after: p.after };
  } catch {
    // falls through to the error
  }
  throw badInput('cursor', 'not a cursor returned by resources/list; pass its nextCursor');
}

/** One page of resources: every document, then every entity, RESOURCE_PAGE_SIZE at a time. */
export async function listResources(
  services: Services,
  principal: Principal,
  cursor: string | undefined,
): Promise<ListResourcesResult> {
  requireRole(principal, ROOT_FIELD_ROLES.Query.documents, 'Listing resources');
  const position = decodePosition(cursor);
  await widenAsTools(services);
  if (position.kind === 'documents') {
    const page = await services.documents.list(
      {},
      {
        first: RESOURCE_PAGE_SIZE,
        after: position.after,
        afterField: 'cursor',
      },
    );
    const resources = page.rows.map(({ document: d }) => ({
      uri: `${DOCUMENTS}${encodeURIComponent(d.id)}`,
      name: d.title,
      mimeType: 'text/markdown',
      description: `${d.documentType.toUpperCase()} document${d.source ? ` from ${d.source}` : ''}${readSpaceNote(d.space)}`,
    }));
    const last = page.rows.at(-1)?.cursor;
    if (page.hasNextPage && last) return { resources, nextCursor: encodePosition({ kind: 'documents', after: last }) };
    // The entities follow only if there is one: a cursor to an empty page would make clients ask for nothing.
    const anyEntity = (await services.graph.findEntities({}, { first: 1 }, '')).edges.length > 0;
    return anyEntity ? { resources, nextCursor: encodePosition({ kind: 'entities', after: null }) } : { resources };
  }
  const page = await services.graph.findEntities({}, { first: RESOURCE_PAGE_SIZE, after: position.after }, '');
  const spaces = await entitySpaces(
    services,
    page.edges.map((edge) => edge.node.id),
  );
  const resources = page.edges.map(({ node: e }) => ({
    uri: `${ENTITIES}${encodeURIComponent(e.id)}`,
    name: e.name,
    mimeType: 'application/json',
    description: `${e.type}${e.description ? `: ${e.description.slice(0, 200)}` : ''}${readSpaceNote(spaces.get(e.id))}`,
  }));
  const last = page.edges.at(-1)?.cursor;
  return {
    resources,
    ...(page.hasNextPage && last ? { nextCursor: encodePosition({ kind: 'entities', after: last }) } : {}),
  };
}

/** The space of each entity, looked up only when the request reads spaces other than its own. */
async function entitySpaces(services: Services, ids: string[]): Promise<Map<string, string>> {
  const reads = currentSpaceScope()?.reads ?? [];
  return reads.length > 1 && ids.length > 0 ? services.graph.entitySpaces(ids) : new Map();
}

/** The id after `prefix` in a resource URI (percent-decoded), or BAD_USER_INPUT. */
function idIn(uri: string, prefix: string): string {
  try {
    return decodeURIComponent(uri.slice(prefix.length));
  } catch {
    throw badInput('uri', 'the id in the URI is not valid percent-encoding');
  }
}

/** Reads `cairn://documents/{id}` (the text, within the response text budget) or `cairn://entities/{id}`. */
export async function readResource(services: Services, principal: Principal, uri: string): Promise<ReadResourceResult> {
  await widenAsTools(services);
  if (uri.startsWith(DOCUMENTS)) {
    requireRole(principal, ROOT_FIELD_ROLES.Query.document, 'Reading a document');
    const id = validateDocumentId(idIn(uri, DOCUMENTS), 'uri');
    const content = (await services.documents.contentByIds([id])).get(id);
    if (content === undefined) throw notFound('document', id);
    const budget = new TextBudget(services.config.maxResponseTextChars);
    return { contents: [{ uri, mimeType: 'text/markdown', text: budget.take(content) }] };
  }
  if (uri.startsWith(ENTITIES)) {
    requireRole(principal, ROOT_FIELD_ROLES.Query.entity, 'Reading an entity');
    const id = validateEntityId(idIn(uri, ENTITIES), 'uri');
    const [entity] = await services.graph.getEntities([id]);
    if (!entity) throw notFound('Entity', id);
    const relationships = (await services.graph.relationshipsOf(id, 'BOTH')).slice(0, ENTITY_RELATIONSHIPS);
    const space = (await entitySpaces(services, [id])).get(id);
    const body = {
      ...entity,
      ...(space !== undefined && space !== currentSpaceScope()?.space ? { space } : {}),
      relationships: relationships.map((r) => ({
        id: r.id,
        fromId: r.fromId,
        type: r.type,
        toId: r.toId,
        properties: r.properties,
      })),
    };
    return { contents: [{ uri, mimeType: 'application/json', text: JSON.stringify(body, null, 2) }] };
  }
  throw badInput('uri', `Cairn's resources are ${DOCUMENTS}{id} and ${ENTITIES}{id}`);
}
