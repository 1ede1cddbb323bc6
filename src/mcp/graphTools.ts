import { z } from 'zod';
import { ROOT_FIELD_ROLES } from '../graphql/fieldRoles.js';
import { DEFAULT_PATH_DEPTH } from '../graph/readLimits.js';
import type { EntityRecord, RelationshipRecord } from '../graph/types.js';
import { defineTool, jsonOutput } from './toolDefinition.js';
import { integer, pageArgs } from './schemas.js';

const { Query } = ROOT_FIELD_ROLES;

/** An entity as MCP tools return it. */
export const entityJson = (e: EntityRecord) => ({
  id: e.id,
  type: e.type,
  name: e.name,
  aliases: e.aliases,
  description: e.description,
  properties: e.properties,
  origin: e.origin,
});
const relationshipJson = (r: RelationshipRecord) => ({
  id: r.id,
  fromId: r.fromId,
  type: r.type,
  toId: r.toId,
  properties: r.properties,
  origin: r.origin,
});

export const findEntitiesTool = defineTool({
  name: 'find_entities',
  title: 'Find entities',
  description:
    'Looks up knowledge-graph entities (services, teams, APIs, concepts, …) by name and type, ordered by name. Use it ' +
    'to turn a name into an entity id for entity_neighbors or shortest_path. Each entity has an id, a type, a name, ' +
    'aliases, a description, properties and an origin: MANUAL (written by a person), IMPORTED (by an importer) or ' +
    'EXTRACTED (built from document text, less certain).',
  role: Query.entities,
  readOnly: true,
  input: z.strictObject({
    nameContains: z.string().optional().describe('Case-insensitive text contained in the name or an alias.'),
    types: z
      .array(z.string())
      .optional()
      .describe('Only entities of any of these types (e.g. "Service", "Team"; at most 100).'),
    hasRelationships: z
      .boolean()
      .optional()
      .describe('true: only entities with a relationship; false: only entities without.'),
    hasDocuments: z
      .boolean()
      .optional()
      .describe('true: only entities some document mentions; false: only entities none mentions.'),
    origin: z
      .array(z.enum(['MANUAL', 'IMPORTED', 'EXTRACTED']))
      .optional()
      .describe('Only entities of any of these origins (e.g. ["MANUAL", "IMPORTED"] to leave extracted ones out).'),
    ...pageArgs,
  }),
  async run({ first, after, ...filter }, { services }) {
    const page = await services.graph.findEntities(filter, { first, after }, '');
    return jsonOutput({
      entities: page.edges.map(({ node }) => entityJson(node)),
      totalCount: page.totalCount,
      hasNextPage: page.hasNextPage,
      endCursor: page.edges.at(-1)?.cursor ?? null,
    });
  },
});

export const entityNeighborsTool = defineTool({
  name: 'entity_neighbors',
  title: 'Entities around an entity',
  description:
    'Lists the entities related to one entity within `depth` relationship hops, nearest first, each with the ' +
    'relationship that reached it (e.g. payments -[DEPENDS_ON]-> ledger). Use it to explore what an entity depends ' +
    'on, who owns it, or what it affects. Entities and relationships carry their origin (MANUAL, IMPORTED or ' +
    'EXTRACTED: built from document text, less certain).',
  role: Query.entity,
  readOnly: true,
  input: z.strictObject({
    id: z.string().describe('The entity id (from find_entities or enrich_context).'),
    depth: integer().optional().describe('Hops to follow, 1-3 (default 1).'),
    direction: z
      .enum(['OUT', 'IN', 'BOTH'])
      .optional()
      .describe('OUT: relationships from the entity; IN: to it; BOTH (default).'),
    relationshipTypes: z
      .array(z.string())
      .optional()
      .describe('Only follow these relationship types (UPPER_SNAKE, e.g. DEPENDS_ON).'),
    limit: integer().optional().describe('Most neighbours to return, 1-500 (default 50).'),
  }),
  async run({ id, ...args }, { services }) {
    const found = await services.graph.neighbors(id, args, { mustExist: true });
    return jsonOutput({
      neighbors: found.map((n) => ({ ...entityJson(n.entity), depth: n.depth, via: relationshipJson(n.relationship) })),
    });
  },
});

export const shortestPathTool = defineTool({
  name: 'shortest_path',
  title: 'How two entities connect',
  description:
    'Finds a shortest chain of relationships (in either direction) between two entities, to explain how they are ' +
    'connected. Returns the entities along the path in order and the relationships between them, or found: false ' +
    'when they are not connected within maxDepth hops.',
  role: Query.shortestPath,
  readOnly: true,
  input: z.strictObject({
    fromId: z.string().describe('Id of the entity to start from.'),
    toId: z.string().describe('Id of the entity to reach.'),
    maxDepth: integer().optional().describe('Most hops, 1-6 (default 4).'),
  }),
  async run({ fromId, toId, maxDepth }, { services }) {
    const path = await services.graph.shortestPath(fromId, toId, maxDepth, { mustExist: true });
    if (!path)
      return jsonOutput({ found: false, maxDepth: maxDepth ?? DEFAULT_PATH_DEPTH, entities: [], relationships: [] });
    return jsonOutput({
      found: true,
      hops: path.relationships.length,
      entities: path.entities.map(entityJson),
      relationships: path.relationships.map(relationshipJson),
    });
  },
});
