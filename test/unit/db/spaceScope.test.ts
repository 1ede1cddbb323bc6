import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from '@jest/globals';
import ts from 'typescript';
import { SqlParams } from '../../../src/db/SqlParams.js';
import {
  readSpaceSql,
  readSpaceSqlFor,
  runInSpace,
  spaceSql,
  spaceSqlFor,
  widenReads,
  writeSpace,
} from '../../../src/db/spaceScope.js';

// Spaces are enforced in one place (src/db/spaceScope.ts): every statement that reads a spaced table applies
// `spaceSql` (or `spaceSqlFor`), unless it is listed below with the reason it may not. A new query that skips the
// scope fails here until it applies it or states why not.

const root = path.resolve(import.meta.dirname, '../../..');
const SPACED = [
  'documents',
  'chunks',
  'graph_entities',
  'graph_relationships',
  'mentions',
  'entity_names',
  'knowledge_gaps',
  'import_jobs',
  'sources',
  'uploads',
  'audit_log',
  'entity_merges',
  'extraction_rejections',
  'extraction_documents',
  'keyword_terms',
  'keyword_stats',
];
const NAMES_SPACED = new RegExp(
  `\\b(?:FROM|JOIN)\\s+(?:${SPACED.join('|')})\\b|\\$\\{(?:documentsRelation|chunksRelation)\\(`,
);
const APPLIES_SCOPE = /[sS]paceSql|inSpace\(|space_id/;
/** The tables whose plain reads may widen to the spaces a request reads (`readSpaceSql`): knowledge, not operations. */
const READABLE = [
  'documents',
  'chunks',
  'graph_entities',
  'graph_relationships',
  'mentions',
  'entity_names',
  'keyword_terms',
  'keyword_stats',
];
const WRITES_OR_LOCKS = /\b(INSERT|UPDATE|DELETE|MERGE)\b|\bFOR\s+(NO\s+KEY\s+)?(UPDATE|SHARE|KEY\s+SHARE)\b/i;

/** `file#function` → why its statements on spaced tables need no space condition. */
const SCOPED_BY_FILTER = 'its conditions come from documentFilterSql, which applies readSpaceSql';
const BACKGROUND = 'background work over every space (reindex, the memory index, the expiry sweep, the Neo4j outbox)';
const SOURCES_AND_IMPORTS =
  "by the ids of sources and jobs read in the request's space (or, run by a job, in the job's space)";
const WRITE_PATH = "the write path, on ids it found or locked in the request's space";
const SAME_SPACE =
  "follows rows already read in the request's space; the triggers of migration 022 keep their links in it";
const JOB_QUEUE = "the job queue's background work over every space (each job then runs in its own space)";
const UNSCOPED: Record<string, string> = {
  'importers/jobs/ImportJobRepository.ts#claimNext': JOB_QUEUE,
  'importers/sources/SourceRepository.ts#due': `${JOB_QUEUE}: the scheduler runs each due sync in its source's space`,
  'importers/sources/SourceRepository.ts#withStatus': `${JOB_QUEUE}: settling syncs whose process died`,
  'importers/uploads/UploadRepository.ts#deleteExpired': BACKGROUND,
  'src/documents/ChunkRepository.ts#deleteByIds': WRITE_PATH,
  'src/documents/ChunkRepository.ts#summariesByDocumentIds': WRITE_PATH,
  'src/documents/DocumentRepository.ts#countOwnedBy': SOURCES_AND_IMPORTS,
  'src/documents/DocumentRepository.ts#deleteOwned': SOURCES_AND_IMPORTS,
  'src/documents/DocumentRepository.ts#idsOwnedBy': SOURCES_AND_IMPORTS,
  'src/documents/DocumentRepository.ts#ownersOf': SOURCES_AND_IMPORTS,
  'src/documents/DocumentRepository.ts#idsWithPrefix': SOURCES_AND_IMPORTS,
  'src/documents/DocumentRepository.ts#lockOldestByMetadataValue': SOURCES_AND_IMPORTS,
  'src/documents/DocumentRepository.ts#expiredIds': BACKGROUND,
  'src/documents/DocumentRepository.ts#list': SCOPED_BY_FILTER,
  'src/documents/filterSql.ts#searchableChunksSql': SCOPED_BY_FILTER,
  'src/documents/statsRepository.ts#knowledgeCounts': 'its LIVE condition applies inSpace (readSpaceSqlFor)',
  'src/documents/chunkEmbeddings.ts#chunkEmbeddingPage': BACKGROUND,
  'src/documents/chunkEmbeddings.ts#chunkEmbeddingsByIds': BACKGROUND,
  'src/documents/chunkEmbeddings.ts#chunksWithoutEmbedding': BACKGROUND,
  'src/documents/chunkEmbeddings.ts#countChunksByEmbedding': BACKGROUND,
  'src/documents/relations.ts#lockChunksAfter':
    "the deferred backfill reading chunks for new names: the mentions trigger drops chunks of other spaces than the entity's",
  'src/graph/mentions/MentionBackfill.ts#pending': BACKGROUND,
  'src/documents/relations.ts#lockChunksMatchingPhrases':
    "linking a new name to chunks that name it: the mentions trigger drops chunks of other spaces than the entity's",
  'src/graph/mentions/MentionRepository.ts#linksOf': BACKGROUND,
  'src/graph/mentions/MentionRepository.ts#ofEntity': `merges, ${SAME_SPACE}`,
  'src/graph/mentions/MentionRepository.ts#remove': `merges, ${SAME_SPACE}`,
  'src/extraction/ExtractionQueueRepository.ts#finishMany': JOB_QUEUE,
  'src/extraction/ExtractionQueueRepository.ts#requestToken': `${JOB_QUEUE}: one document by its id, which the job resolved in its space`,
  'src/audit/AuditRepository.ts#list': 'its first condition is spaceSql',
  'src/audit/AuditRepository.ts#deleteOlderThan': `${BACKGROUND}: the audit log's retention`,
  'src/graph/mentions/MentionRepository.ts#mentionCounts': 'its inSpace condition applies readSpaceSql',
  'src/graph/mentions/MentionRepository.ts#entityIdsMentionedWithin': SCOPED_BY_FILTER,
  'src/graph/mentions/MentionRepository.ts#evidence': `${SCOPED_BY_FILTER}; mention counts are of entities of the space`,
  'src/graph/mentions/EntityNameRepository.ts#entityIdsWithPrefix': SOURCES_AND_IMPORTS,
  'src/graph/mentions/MentionRepository.ts#replaceAutoMentions': WRITE_PATH,
  'src/graph/mentions/PostgresMentionIndex.ts#mentionedByLiveDocument': SAME_SPACE,
  'src/graph/postgres/PostgresGraphStore.ts#ORPHAN': SAME_SPACE,
  'src/graph/postgres/PostgresGraphStore.ts#expand': 'its typeFilter applies readSpaceSql',
  'src/graph/postgres/PostgresGraphStore.ts#findEntities': 'its first condition is readSpaceSql',
  'src/graph/postgres/PostgresGraphStore.ts#upsertRelationships': `${WRITE_PATH} (endpoints checked in the space)`,
};

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((e) => {
    const rel = `${dir}/${e.name}`;
    if (e.isDirectory()) return rel === 'src/graphql/generated' ? [] : sourceFiles(rel);
    return e.name.endsWith('.ts') ? [rel] : [];
  });
}

/** The name of the function, method or variable a node sits in. */
function enclosingName(node: ts.Node): string {
  let variable: string | undefined;
  for (let n: ts.Node | undefined = node.parent; n; n = n.parent) {
    if ((ts.isFunctionDeclaration(n) || ts.isMethodDeclaration(n)) && n.name) return n.name.getText();
    if ((ts.isArrowFunction(n) || ts.isFunctionExpression(n)) && ts.isVariableDeclaration(n.parent))
      return n.parent.name.getText();
    if (ts.isVariableDeclaration(n) && ts.isIdentifier(n.name)) variable ??= n.name.getText();
  }
  return variable ?? '<module>';
}

/** Each outermost string or template in `file` that names a spaced table after FROM or JOIN, without the scope. */
export function unscopedStatements(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node) || ts.isTemplateExpression(node)) {
      const sql = node.getText(source);
      if (NAMES_SPACED.test(sql) && !APPLIES_SCOPE.test(sql)) found.push(`${file}#${enclosingName(node)}`);
      return; // templates nested in this one are part of its text
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/**
 * Each outermost string or template in `file` applying `readSpaceSql` (the widened read) that writes or locks rows,
 * or names a table other than the knowledge tables, as `file#function: why`.
 */
export function misusedReadScopes(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node) || ts.isTemplateExpression(node)) {
      const sql = node.getText(source);
      if (!/readSpaceSql/.test(sql)) return;
      const where = `${file}#${enclosingName(node)}`;
      if (WRITES_OR_LOCKS.test(sql)) found.push(`${where}: writes or locks`);
      const tables = [...sql.matchAll(/\b(?:FROM|JOIN)\s+([a-z_]+)\b/g)].map((m) => m[1] as string);
      const other = tables.filter((t) => SPACED.includes(t) && !READABLE.includes(t));
      if (other.length > 0) found.push(`${where}: reads ${other.join(', ')}`);
      return;
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('the space scope', () => {
  it('widens only plain reads of knowledge to the spaces a request reads', () => {
    const found = [...sourceFiles('src'), ...sourceFiles('importers')].flatMap((f) =>
      misusedReadScopes(f, fs.readFileSync(path.join(root, f), 'utf8')),
    );
    expect(found).toEqual([]);
    const code = [
      'const a = `DELETE FROM documents d WHERE ${readSpaceSql("d", p)}`;',
      'const b = `SELECT 1 FROM sources s WHERE ${readSpaceSql("s", p)}`;',
      'const c = `SELECT 1 FROM documents d WHERE ${readSpaceSql("d", p)} FOR UPDATE`;',
      'const d = `SELECT 1 FROM chunks c WHERE ${readSpaceSql("c", p)}`;',
    ].join('\n');
    expect(misusedReadScopes('x.ts', code)).toEqual([
      'x.ts#a: writes or locks',
      'x.ts#b: reads sources',
      'x.ts#c: writes or locks',
    ]);
  });

  it('widens reads of knowledge, never writes, once a request is known to only read', async () => {
    await runInSpace('payments', async () => {
      const narrow = new SqlParams();
      expect(readSpaceSql('d', narrow)).toBe('d.space_id = $1::text');
      widenReads(['shared', 'payments']);
      await Promise.resolve();
      const wide = new SqlParams();
      expect(readSpaceSql('d', wide)).toBe('d.space_id = ANY($1::text[])');
      expect(wide.values).toEqual([['payments', 'shared']]);
      const values: unknown[] = [];
      expect(readSpaceSqlFor(values)('e')).toBe('e.space_id = ANY($1::text[])');
      expect(spaceSql('d', new SqlParams())).toBe('d.space_id = $1::text');
      expect(writeSpace()).toBe('payments');
    });
    await runInSpace('other', async () => {
      const params = new SqlParams();
      expect(readSpaceSql('d', params)).toBe('d.space_id = $1::text');
      expect(params.values).toEqual(['other']);
    });
  });

  it('applies the request’s space to every statement reading a spaced table, or says why not', () => {
    const found = new Set(
      [...sourceFiles('src'), ...sourceFiles('importers')].flatMap((f) =>
        unscopedStatements(f, fs.readFileSync(path.join(root, f), 'utf8')),
      ),
    );
    expect([...found].filter((k) => !(k in UNSCOPED)).sort()).toEqual([]);
    // A listed statement that no longer exists (or now applies the scope) is taken off the list.
    expect(Object.keys(UNSCOPED).filter((k) => !found.has(k))).toEqual([]);
  });

  it('finds statements that skip the scope, and not those that apply it', () => {
    const code = [
      'const a = () => db.query(`SELECT id FROM documents WHERE id = $1`);',
      "function b() { return db.query('SELECT 1 FROM chunks c JOIN documents d ON true WHERE ' + spaceSql('d', p)); }",
      'function c() { return db.query(`SELECT 1 FROM graph_entities e WHERE ${spaceSql("e", p)}`); }',
      'function d() { return `SELECT 1 FROM ${documentsRelation("d")} WHERE true`; }',
    ].join('\n');
    expect(unscopedStatements('x.ts', code)).toEqual(['x.ts#a', 'x.ts#b', 'x.ts#d']);
  });

  it('is TRUE outside a request, and the request’s space inside one', async () => {
    const outside = new SqlParams();
    expect(spaceSql('d', outside)).toBe('TRUE');
    expect(outside.values).toEqual([]);
    expect(writeSpace()).toBe('default');
    await runInSpace('payments', async () => {
      await Promise.resolve();
      const params = new SqlParams();
      params.add('x');
      expect(spaceSql('d', params)).toBe('d.space_id = $2::text');
      expect(params.values).toEqual(['x', 'payments']);
      const values: unknown[] = [1];
      const inSpace = spaceSqlFor(values);
      expect([inSpace('e'), inSpace('r')]).toEqual(['e.space_id = $2::text', 'r.space_id = $2::text']);
      expect(values).toEqual([1, 'payments']);
      expect(writeSpace()).toBe('payments');
    });
  });
});
