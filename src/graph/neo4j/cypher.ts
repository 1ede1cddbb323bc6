import { RELATIONSHIP_TYPE_PATTERN, type Direction } from '../types.js';

// Cypher text for the Neo4j store (needs Neo4j 5.26+: dynamic labels, `CALL (x) {}` scopes). Values always travel
// as parameters; entity writes set labels from parameters too (`:$(...)`). The only identifiers ever put into query
// text are relationship types matching RELATIONSHIP_TYPE_PATTERN (letters, digits and _), and even those are
// backtick-quoted.

/** Relationship type of the mention mirror, from an entity to a `(:Document)`. */
export const MENTIONED_IN = 'MENTIONED_IN';

/**
 * Types that are not added as labels: `Entity` is every entity's label already, and `Document` labels the mirrored
 * documents. Queries go by the `type` property, so such entities work all the same.
 */
export const RESERVED_LABELS: ReadonlySet<string> = new Set(['Entity', 'Document']);

/** Statements of `init()`: all idempotent. */
export const SCHEMA_STATEMENTS = [
  'CREATE CONSTRAINT entity_id IF NOT EXISTS FOR (e:Entity) REQUIRE e.id IS UNIQUE',
  'CREATE INDEX entity_name IF NOT EXISTS FOR (e:Entity) ON (e.name)',
  'CREATE INDEX entity_type IF NOT EXISTS FOR (e:Entity) ON (e.type)',
  'CREATE CONSTRAINT document_id IF NOT EXISTS FOR (d:Document) REQUIRE d.id IS UNIQUE',
];

/** A relationship type, validated and quoted; throws on anything else. */
export function relType(type: string): string {
  if (!RELATIONSHIP_TYPE_PATTERN.test(type)) throw new Error(`refusing to use "${type}" as a Neo4j relationship type`);
  return `\`${type}\``;
}

/** Name of the range index on `id` of one relationship type (validated: letters, digits and _ only). */
export function relationshipIdIndexName(type: string): string {
  relType(type);
  return `rel_id_${type}`;
}

/** Creates the range index on `id` of one relationship type (Community indexes relationship properties per type only). */
export function relationshipIdIndex(type: string): string {
  return `CREATE INDEX \`${relationshipIdIndexName(type)}\` IF NOT EXISTS FOR ()-[r:${relType(type)}]-() ON (r.id)`;
}

/**
 * A type filter for a relationship pattern: '' for all types, `:\`A\`|\`B\`` for some, or null when nothing can
 * match (every requested type is invalid, so none can exist). An empty list means no filter, as in Postgres.
 */
export function typeFilter(types: readonly string[] | undefined): string | null {
  if (!types || types.length === 0) return '';
  const valid = [...new Set(types)].filter((t) => RELATIONSHIP_TYPE_PATTERN.test(t));
  if (valid.length === 0) return null;
  return `:${valid.map(relType).join('|')}`;
}

/**
 * The origin to store on node or relationship `v` from `row.origin` (null when the write gives none): as given, else
 * MANUAL for a new one and for an EXTRACTED one (a person curated it), else the recorded one. Nodes written before
 * origins existed have none: MANUAL.
 */
function originToStore(v: string): string {
  return `coalesce(row.origin, CASE WHEN coalesce(${v}.origin, 'EXTRACTED') = 'EXTRACTED' THEN 'MANUAL' ELSE ${v}.origin END)`;
}

/** Map projection of an entity node bound to `v`. */
export function entityMap(v: string): string {
  return `${v} {.id, .type, .name, .aliases, .description, .properties, .origin, .createdAt, .updatedAt}`;
}

/** Map projection of a relationship bound to `r`. */
export const REL_MAP =
  '{id: r.id, type: type(r), fromId: startNode(r).id, toId: endNode(r).id, properties: r.properties, origin: r.origin, createdAt: r.createdAt}';

/**
 * Writes one chunk of entities, keeping createdAt. Setting updatedAt first takes the node's write lock, so the labels
 * read next are the committed ones: every type label but the new one is removed (dynamic labels, Neo4j 5.26+: values
 * stay parameters) and the new one added. Reserved labels are never added nor removed. Returns only what the
 * caller does not know (createdAt), which keeps bulk loads cheap.
 */
export const UPSERT_ENTITIES = `UNWIND $rows AS row
MERGE (e:Entity {id: row.id})
ON CREATE SET e.createdAt = $now
SET e.updatedAt = $now
WITH e, row, [l IN labels(e) WHERE NOT l IN $reserved AND l <> row.type] AS stale
REMOVE e:$(stale)
SET e:$(CASE WHEN row.type IN $reserved THEN [] ELSE [row.type] END)
SET e.type = row.type, e.name = row.name, e.nameLower = row.nameLower, e.aliases = row.aliases,
    e.aliasesLower = row.aliasesLower, e.description = row.description, e.properties = row.properties,
    e.origin = ${originToStore('e')}
RETURN e.id AS id, e.createdAt AS createdAt, e.origin AS origin`;

/** Ids among `$ids` that are not entities. */
export const MISSING_ENTITIES = `UNWIND $ids AS id
OPTIONAL MATCH (e:Entity {id: id})
WITH id, e WHERE e IS NULL
RETURN collect(id) AS missing`;

/**
 * Writes one chunk of relationships of one type. A static type keeps the plan an Expand(Into) between the two bound
 * nodes: a dynamic type, or merging on `{id}`, let the planner cache relationship (index) scans planned on an empty
 * graph, quadratic during bulk loads. MERGE locks both endpoints, so (from, type, to) stays unique under concurrency.
 * Rows with a missing endpoint write nothing (and return nothing); the others return their key, id and createdAt.
 */
export function upsertRelationshipsQuery(type: string): string {
  return `UNWIND $rows AS row
MATCH (a:Entity {id: row.fromId})
MATCH (b:Entity {id: row.toId})
MERGE (a)-[r:${relType(type)}]->(b)
ON CREATE SET r.id = row.id, r.createdAt = $now
SET r.properties = row.properties, r.origin = ${originToStore('r')}
RETURN row.key AS key, r.id AS id, r.createdAt AS createdAt, r.origin AS origin`;
}

/** The pattern from node `n` along `r` to entity `m` in a direction, with a type filter. */
function step(direction: Direction, types: string): string {
  if (direction === 'OUT') return `(n)-[r${types}]->(m:Entity)`;
  if (direction === 'IN') return `(n)<-[r${types}]-(m:Entity)`;
  return `(n)-[r${types}]-(m:Entity)`;
}

/**
 * One traversal step: up to `$cap` edges per node, ordered by (type, neighbour id, relationship id); self-loops once.
 * One row per node with its edges as `[neighbourId, id, type, outgoing, properties, createdAt]` lists, in order:
 * decoding a few lists is much cheaper for the driver than thousands of records of maps.
 */
export function expandQuery(direction: Direction, types: string): string {
  return `UNWIND $ids AS id
MATCH (n:Entity {id: id})
CALL (n) {
  MATCH ${step(direction, types)}
  ${direction === 'BOTH' ? 'WITH DISTINCT r, m' : 'WITH r, m'}
  RETURN r, m ORDER BY type(r), m.id, r.id LIMIT $cap
}
RETURN n.id AS fromId, collect([m.id, r.id, type(r), startNode(r) = n, r.properties, r.createdAt, m.name, r.origin]) AS edges`;
}

/** Relationships touching entities in `$ids`, in a direction, ordered by id. */
export function relationshipsOfQuery(direction: Direction, types: string): string {
  return `UNWIND $ids AS id
MATCH (n:Entity {id: id})
MATCH ${step(direction, types)}
WITH DISTINCT r
RETURN ${REL_MAP} AS r ORDER BY r.id`;
}

/** Relationships with both ends in `$ids`, ordered by id. */
export const RELATIONSHIPS_AMONG = `UNWIND $ids AS id
MATCH (a:Entity {id: id})-[r]->(b:Entity)
WHERE b.id IN $ids
WITH DISTINCT r
RETURN ${REL_MAP} AS r ORDER BY r.id`;

/**
 * Entities with ids in `$ids`, and the relationships whose both ends are among them ordered by id, as two lists. The
 * relationships are matched as edges coming *into* each entity: an entity's outgoing edges include every MENTIONED_IN
 * to a document, which a hub has by the thousand, while only relationships come in (a third of the db hits).
 */
export const ENTITIES_AND_RELATIONSHIPS_AMONG = `CALL () {
  UNWIND $ids AS id MATCH (e:Entity {id: id}) RETURN collect(e) AS nodes
}
CALL (nodes) {
  UNWIND nodes AS b
  MATCH (b)<-[r]-(a:Entity)
  WHERE a IN nodes
  WITH DISTINCT r ORDER BY r.id
  RETURN collect(${REL_MAP}) AS relationships
}
RETURN [e IN nodes | ${entityMap('e')}] AS entities, relationships`;

/** Relationship types in the database (to look relationships up by id through the per-type indexes). */
export const RELATIONSHIP_TYPES =
  'CALL db.relationshipTypes() YIELD relationshipType RETURN collect(relationshipType) AS types';

/** Relationships with an id in `$ids`, one index seek per type; `tail` follows the union (e.g. RETURN or DELETE). */
export function relationshipsByIdQuery(types: readonly string[], tail: string): string {
  const parts = types.map((t) => `MATCH (:Entity)-[r:${relType(t)}]->(:Entity) WHERE r.id IN $ids RETURN r`);
  return `CALL () {\n  ${parts.join('\n  UNION ALL\n  ')}\n}\n${tail}`;
}

/** An entity `e` with a relationship to or from an entity (mirrored mentions end at a :Document, so they don't count). */
const CONNECTED = 'EXISTS { (e)--(:Entity) }';

/**
 * Finds entities: WHERE text assembled from fixed fragments; values in `$types`, `$origins`, `$q`, `$mentioned` (ids of mentioned
 * entities, from Postgres), `$afterName`, `$afterId`. `rels` and `mentioned` are undefined when they don't matter.
 */
export function entityFilterWhere(opts: {
  types: boolean;
  origins: boolean;
  q: boolean;
  rels?: boolean;
  mentioned?: boolean;
  after: boolean;
}): string {
  const where: string[] = [];
  if (opts.types) where.push('e.type IN $types');
  if (opts.origins) where.push("coalesce(e.origin, 'MANUAL') IN $origins");
  if (opts.q) where.push('(e.nameLower CONTAINS $q OR any(a IN e.aliasesLower WHERE a CONTAINS $q))');
  if (opts.rels !== undefined) where.push(opts.rels ? CONNECTED : `NOT ${CONNECTED}`);
  if (opts.mentioned !== undefined) where.push(opts.mentioned ? 'e.id IN $mentioned' : 'NOT e.id IN $mentioned');
  if (opts.after) where.push('(e.name > $afterName OR (e.name = $afterName AND e.id > $afterId))');
  return where.length > 0 ? `WHERE ${where.join(' AND ')}` : '';
}

/** Counts that the count store answers, plus orphans. */
export const COUNTS = `CALL () { MATCH (e:Entity) RETURN count(e) AS entities }
CALL () { MATCH (:Entity)-[r]->() RETURN count(r) AS fromEntities }
CALL () { MATCH ()-[r:${MENTIONED_IN}]->(:Document) RETURN count(r) AS mentions }
CALL () { MATCH (e:Entity) WHERE NOT ${CONNECTED} RETURN count(e) AS orphans }
RETURN entities, fromEntities - mentions AS relationships, orphans`;

/** How many of `$ids` (distinct) are entities. */
export const COUNT_EXISTING = 'UNWIND $ids AS id MATCH (e:Entity {id: id}) RETURN count(e) AS n';

/**
 * Relationship counts of the given types, one count-store lookup each (ending at an :Entity leaves out mirrored
 * mentions); the keys travel as parameters `$keys`, in the same order. The count must be aggregated alone (`WITH`)
 * for the planner to answer it from the count store instead of scanning the relationships.
 */
export function relationshipCountsQuery(types: readonly string[]): string {
  const parts = types.map(
    (t, i) => `MATCH ()-[r:${relType(t)}]->(:Entity) WITH count(r) AS count RETURN $keys[${i}] AS key, count`,
  );
  return `CALL () {\n  ${parts.join('\n  UNION ALL\n  ')}\n}\nRETURN key, count`;
}

/** Entity counts per type, most common first. */
export const COUNTS_BY_TYPE = 'MATCH (e:Entity) RETURN e.type AS key, count(*) AS count ORDER BY count DESC, key';

/** Most connected entities (a self-loop counts twice), ties by id. */
export const TOP_DEGREE = `MATCH (e:Entity)
WITH e, COUNT { (e)-->(:Entity) } + COUNT { (e)<--(:Entity) } AS degree
ORDER BY degree DESC, e.id LIMIT $limit
RETURN ${entityMap('e')} AS e, degree`;

/** Mirrors mentions: links entities (that exist) to documents, creating the documents. */
export const LINK_MENTIONS = `UNWIND $rows AS row
MATCH (e:Entity {id: row.entityId})
MERGE (d:Document {id: row.documentId})
SET d.title = row.documentTitle
MERGE (e)-[:${MENTIONED_IN}]->(d)`;

/** Drops documents with all their mentions. */
export const UNLINK_DOCUMENTS = `UNWIND $ids AS id
MATCH (d:Document {id: id})
DETACH DELETE d`;

/** Drops single mentions, and documents left without any. */
export const UNLINK_MENTIONS = `UNWIND $rows AS row
MATCH (e:Entity {id: row.entityId})-[m:${MENTIONED_IN}]->(d:Document {id: row.documentId})
DELETE m
WITH DISTINCT d
WHERE NOT EXISTS { (d)<-[:${MENTIONED_IN}]-() }
DELETE d`;
