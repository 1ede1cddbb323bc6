import { RELATIONSHIP_TYPE_PATTERN, type Direction } from '../types.js';

// Cypher text for the Neo4j store (needs Neo4j 5.26+: dynamic labels, `CALL (x) {}` scopes). Values always travel
// as parameters; entity writes set labels from parameters too (`:$(...)`). The only identifiers ever put into query
// text are relationship types matching RELATIONSHIP_TYPE_PATTERN (letters, digits and _), and even those are
// backtick-quoted.
//
// Spaces: every entity node carries `space`, and every statement that matches entities keeps them to `$spaces` with
// `inSpace` (the request's space and those it reads, or null outside any request: the CLI and the outbox see every
// space), or, where it writes, to `$space` with `inOwnSpace`. Relationships
// never join two spaces (both ends are matched in one space when written), and mirrored documents take their
// entities' space. test/unit/graph/neo4jSpaceScope.test.ts fails on a statement matching entities without it.

/** Relationship type of the mention mirror, from an entity to a `(:Document)`. */
export const MENTIONED_IN = 'MENTIONED_IN';

/**
 * Types that are not added as labels: `Entity` is every entity's label already, and `Document` labels the mirrored
 * documents. Queries go by the `type` property, so such entities work all the same.
 */
export const RESERVED_LABELS: ReadonlySet<string> = new Set(['Entity', 'Document']);

/** The condition keeping node `v` in the spaces the request reads, `$spaces` (its own and those it reads; null: every space). */
export function inSpace(v: string): string {
  return `($spaces IS NULL OR ${v}.space IN $spaces)`;
}

/** The condition keeping node `v` in the request's own space, `$space` (null: every space): for statements that write. */
export function inOwnSpace(v: string): string {
  return `($space IS NULL OR ${v}.space = $space)`;
}

/** Statements of `init()`: all idempotent. */
export const SCHEMA_STATEMENTS = [
  'CREATE CONSTRAINT entity_id IF NOT EXISTS FOR (e:Entity) REQUIRE e.id IS UNIQUE',
  'CREATE INDEX entity_name IF NOT EXISTS FOR (e:Entity) ON (e.name)',
  'CREATE INDEX entity_type IF NOT EXISTS FOR (e:Entity) ON (e.type)',
  'CREATE INDEX entity_space_name IF NOT EXISTS FOR (e:Entity) ON (e.space, e.name)',
  'CREATE CONSTRAINT document_id IF NOT EXISTS FOR (d:Document) REQUIRE d.id IS UNIQUE',
];

/**
 * Gives nodes written before spaces existed their space, in batches (returns how many it set): entities `default`,
 * mirrored documents their entities' space. Idempotent; `init()` runs it until it sets nothing.
 */
export const BACKFILL_SPACES = `CALL () {
  MATCH (e:Entity) WHERE e.space IS NULL WITH e LIMIT 5000 SET e.space = 'default' RETURN count(e) AS n
  UNION ALL
  MATCH (d:Document) WHERE d.space IS NULL WITH d LIMIT 5000
  SET d.space = coalesce(head([(e:Entity)-[:MENTIONED_IN]->(d) | e.space]), 'default') RETURN count(d) AS n
}
RETURN sum(n) AS n`;

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
 * Writes one chunk of entities into `$writeSpace`, keeping createdAt. An id that another space holds is left as it is
 * and returns no row (entity ids are unique across spaces). Setting updatedAt first takes the node's write lock, so
 * the labels read next are the committed ones: every type label but the new one is removed (dynamic labels, Neo4j
 * 5.26+: values stay parameters) and the new one added. Reserved labels are never added nor removed. Returns only
 * what the caller does not know (createdAt), which keeps bulk loads cheap.
 */
export const UPSERT_ENTITIES = `UNWIND $rows AS row
MERGE (e:Entity {id: row.id})
ON CREATE SET e.createdAt = $now, e.space = $writeSpace
WITH e, row WHERE e.space = $writeSpace
SET e.updatedAt = $now
WITH e, row, [l IN labels(e) WHERE NOT l IN $reserved AND l <> row.type] AS stale
REMOVE e:$(stale)
SET e:$(CASE WHEN row.type IN $reserved THEN [] ELSE [row.type] END)
SET e.type = row.type, e.name = row.name, e.nameLower = row.nameLower, e.aliases = row.aliases,
    e.aliasesLower = row.aliasesLower, e.description = row.description, e.properties = row.properties,
    e.origin = ${originToStore('e')}
RETURN e.id AS id, e.createdAt AS createdAt, e.origin AS origin`;

/** Ids among `$ids` that are not entities of the request's own space (a write's endpoints). */
export const MISSING_ENTITIES = `UNWIND $ids AS id
OPTIONAL MATCH (e:Entity {id: id}) WHERE ${inOwnSpace('e')}
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
MATCH (a:Entity {id: row.fromId}) WHERE ${inOwnSpace('a')}
MATCH (b:Entity {id: row.toId}) WHERE b.space = a.space
MERGE (a)-[r:${relType(type)}]->(b)
ON CREATE SET r.id = row.id, r.createdAt = $now
SET r.properties = row.properties, r.origin = ${originToStore('r')}
RETURN row.key AS key, r.id AS id, r.createdAt AS createdAt, r.origin AS origin`;
}

/** The pattern from node `n` along `r` to entity `m` (of `n`'s space) in a direction, with a type filter. */
function step(direction: Direction, types: string): string {
  const pattern =
    direction === 'OUT'
      ? `(n)-[r${types}]->(m:Entity)`
      : direction === 'IN'
        ? `(n)<-[r${types}]-(m:Entity)`
        : `(n)-[r${types}]-(m:Entity)`;
  return `${pattern} WHERE m.space = n.space`;
}

/**
 * One traversal step: up to `$cap` edges per node, ordered by (type, neighbour id, relationship id); self-loops once.
 * One row per node with its edges as `[neighbourId, id, type, outgoing, properties, createdAt]` lists, in order:
 * decoding a few lists is much cheaper for the driver than thousands of records of maps.
 */
export function expandQuery(direction: Direction, types: string): string {
  return `UNWIND $ids AS id
MATCH (n:Entity {id: id}) WHERE ${inSpace('n')}
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
MATCH (n:Entity {id: id}) WHERE ${inSpace('n')}
MATCH ${step(direction, types)}
WITH DISTINCT r
RETURN ${REL_MAP} AS r ORDER BY r.id`;
}

/** Relationships with both ends in `$ids`, ordered by id. */
export const RELATIONSHIPS_AMONG = `UNWIND $ids AS id
MATCH (a:Entity {id: id})-[r]->(b:Entity)
WHERE b.id IN $ids AND ${inSpace('a')} AND b.space = a.space
WITH DISTINCT r
RETURN ${REL_MAP} AS r ORDER BY r.id`;

/**
 * Entities with ids in `$ids`, and the relationships whose both ends are among them ordered by id, as two lists. The
 * relationships are matched as edges coming *into* each entity: an entity's outgoing edges include every MENTIONED_IN
 * to a document, which a hub has by the thousand, while only relationships come in (a third of the db hits).
 */
export const ENTITIES_AND_RELATIONSHIPS_AMONG = `CALL () {
  UNWIND $ids AS id MATCH (e:Entity {id: id}) WHERE ${inSpace('e')} RETURN collect(e) AS nodes
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

/**
 * Relationships with an id in `$ids`, one index seek per type; `tail` follows the union (e.g. RETURN or DELETE). With
 * `own`, of the request's own space only (for a DELETE tail), else of the spaces it reads.
 */
export function relationshipsByIdQuery(types: readonly string[], tail: string, own = false): string {
  const parts = types.map(
    (t) =>
      `MATCH (a:Entity)-[r:${relType(t)}]->(:Entity) WHERE r.id IN $ids AND ${own ? inOwnSpace('a') : inSpace('a')} RETURN r`,
  );
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
  const where: string[] = [inSpace('e')];
  if (opts.types) where.push('e.type IN $types');
  if (opts.origins) where.push("coalesce(e.origin, 'MANUAL') IN $origins");
  if (opts.q) where.push('(e.nameLower CONTAINS $q OR any(a IN e.aliasesLower WHERE a CONTAINS $q))');
  if (opts.rels !== undefined) where.push(opts.rels ? CONNECTED : `NOT ${CONNECTED}`);
  if (opts.mentioned !== undefined) where.push(opts.mentioned ? 'e.id IN $mentioned' : 'NOT e.id IN $mentioned');
  if (opts.after) where.push('(e.name > $afterName OR (e.name = $afterName AND e.id > $afterId))');
  return `WHERE ${where.join(' AND ')}`;
}

/** Entity, relationship and orphan counts of the space (relationships end at an :Entity: mentions do not count). */
export const COUNTS = `CALL () { MATCH (e:Entity) WHERE ${inSpace('e')} RETURN count(e) AS entities }
CALL () { MATCH (e:Entity)-[r]->(:Entity) WHERE ${inSpace('e')} RETURN count(r) AS relationships }
CALL () { MATCH (e:Entity) WHERE ${inSpace('e')} AND NOT ${CONNECTED} RETURN count(e) AS orphans }
RETURN entities, relationships, orphans`;

/** How many of `$ids` (distinct) are entities of the space. */
export const COUNT_EXISTING = `UNWIND $ids AS id MATCH (e:Entity {id: id}) WHERE ${inSpace('e')} RETURN count(e) AS n`;

/**
 * Relationship counts of the given types in the space (ending at an :Entity leaves out mirrored mentions); the keys
 * travel as parameters `$keys`, in the same order.
 */
export function relationshipCountsQuery(types: readonly string[]): string {
  const parts = types.map(
    (t, i) =>
      `MATCH (a:Entity)-[r:${relType(t)}]->(:Entity) WHERE ${inSpace('a')} WITH count(r) AS count RETURN $keys[${i}] AS key, count`,
  );
  return `CALL () {\n  ${parts.join('\n  UNION ALL\n  ')}\n}\nRETURN key, count`;
}

/** Entity counts per type, most common first. */
export const COUNTS_BY_TYPE = `MATCH (e:Entity) WHERE ${inSpace('e')}
RETURN e.type AS key, count(*) AS count ORDER BY count DESC, key`;

/** Most connected entities (a self-loop counts twice), ties by id. */
export const TOP_DEGREE = `MATCH (e:Entity) WHERE ${inSpace('e')}
WITH e, COUNT { (e)-->(:Entity) } + COUNT { (e)<--(:Entity) } AS degree
ORDER BY degree DESC, e.id LIMIT $limit
RETURN ${entityMap('e')} AS e, degree`;

/**
 * Mirrors mentions: links entities (that exist, in the document's space `row.space`) to documents, creating the
 * documents in that space. Ops queued before spaces carried none: the entity's space then. A document already in
 * another space is never linked.
 */
export const LINK_MENTIONS = `UNWIND $rows AS row
MATCH (e:Entity {id: row.entityId}) WHERE row.space IS NULL OR e.space = row.space
MERGE (d:Document {id: row.documentId})
ON CREATE SET d.space = e.space
WITH e, d, row WHERE d.space = e.space
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
