import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from '@jest/globals';
import ts from 'typescript';

// The Neo4j store keeps spaces apart in its Cypher text: every statement that matches entities applies `inSpace`
// (or compares a node's `space` with one already kept to it), unless it is listed below with the reason it may not.
// Neo4jConnection gives every statement `$spaces`, `$space` and `$writeSpace` from the request's scope.

const root = path.resolve(import.meta.dirname, '../../..');
const dir = 'src/graph/neo4j';
const MATCHES_ENTITIES = /\bMATCH\b[^]*:Entity\b/;
const APPLIES_SCOPE = /inSpace\(|inOwnSpace\(|\$spaces?\b|\.space\b/;

/** `file#name` → why its statements match entities without a space condition. */
const FILTERED = 'its WHERE comes from entityFilterWhere, whose first condition is inSpace';
const UNSCOPED: Record<string, string> = {
  'src/graph/neo4j/entityReads.ts#count': FILTERED,
  'src/graph/neo4j/entityReads.ts#page': FILTERED,
  'src/graph/neo4j/cypher.ts#UNLINK_MENTIONS': 'the outbox (background work over every space), by ids it queued',
};

function enclosingName(node: ts.Node): string {
  for (let n: ts.Node | undefined = node.parent; n; n = n.parent) {
    if ((ts.isFunctionDeclaration(n) || ts.isMethodDeclaration(n)) && n.name) return n.name.getText();
    if (ts.isVariableDeclaration(n) && ts.isIdentifier(n.name)) return n.name.getText();
  }
  return '<module>';
}

/** Each outermost string or template of `file` that matches entities without a space condition. */
export function unscopedCypher(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node) || ts.isTemplateExpression(node)) {
      const cypher = node.getText(source);
      if (MATCHES_ENTITIES.test(cypher) && !APPLIES_SCOPE.test(cypher)) found.push(`${file}#${enclosingName(node)}`);
      return;
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('the Neo4j space scope', () => {
  it('keeps every statement matching entities to the request’s space, or says why not', () => {
    const files = fs
      .readdirSync(path.join(root, dir))
      .filter((f) => f.endsWith('.ts'))
      .map((f) => `${dir}/${f}`);
    const found = new Set(files.flatMap((f) => unscopedCypher(f, fs.readFileSync(path.join(root, f), 'utf8'))));
    expect([...found].filter((k) => !(k in UNSCOPED)).sort()).toEqual([]);
    expect(Object.keys(UNSCOPED).filter((k) => !found.has(k))).toEqual([]);
  });

  it('finds statements that skip the space, and not those that apply it', () => {
    const code = [
      "const A = 'MATCH (e:Entity {id: $id}) RETURN e';",
      'const B = `MATCH (e:Entity) WHERE ${inSpace("e")} RETURN e`;',
      "function c() { return 'UNWIND $ids AS id MATCH (a:Entity {id: id})-[r]->(b:Entity) RETURN r'; }",
      "const D = 'MATCH (n) DETACH DELETE n';",
    ].join('\n');
    expect(unscopedCypher('x.ts', code)).toEqual(['x.ts#A', 'x.ts#c']);
  });
});
