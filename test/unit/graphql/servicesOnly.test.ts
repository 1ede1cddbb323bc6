import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from '@jest/globals';

// Resolvers and MCP tools call services (docs/architecture.md#dependency-rules). lint:deps keeps repository files out
// of their imports; this keeps them from reaching a service's repositories or graph store through `services`.

const root = path.resolve(import.meta.dirname, '../../..');

/** What the API layer must not touch: a service's repositories, its graph store, the mention linker. */
const INTERNALS =
  /\bservices\.(?:documents\.(?:documents|chunks)|graph\.(?:store|linker)|imports\.(?:jobs|uploads)|sources\.repository)\b/;
const DESTRUCTURED =
  /\{[^}]*\b(?:documents|chunks|store|linker|jobs|uploads|repository)\b[^}]*\}\s*=\s*services\.(?:documents|graph|imports|sources)\b/;

/** Lines of `source` that reach past a service. */
export function internalsReached(source: string): number[] {
  return source.split('\n').flatMap((line, i) => (INTERNALS.test(line) || DESTRUCTURED.test(line) ? [i + 1] : []));
}

function files(dir: string): string[] {
  return fs.readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((e) => {
    const rel = `${dir}/${e.name}`;
    if (e.isDirectory()) return rel === 'src/graphql/generated' ? [] : files(rel);
    return e.name.endsWith('.ts') ? [rel] : [];
  });
}

describe('the API layer calls services', () => {
  it('never reaches a repository or the graph store through services in src/graphql or src/mcp', () => {
    const found = [...files('src/graphql'), ...files('src/mcp')].flatMap((f) =>
      internalsReached(fs.readFileSync(path.join(root, f), 'utf8')).map((n) => `${f}:${n}`),
    );
    expect(found).toEqual([]);
  });

  it('spots property access and destructuring, not service calls', () => {
    expect(internalsReached('await services.documents.documents.list({}, 1)')).toEqual([1]);
    expect(internalsReached('x\nconst { store, linker } = services.graph;')).toEqual([2]);
    expect(internalsReached('services.imports.jobs.get(id)\nservices.sources.repository.getByName(n)')).toEqual([1, 2]);
    expect(
      internalsReached('await services.documents.list({}, 1)\nservices.graph.subgraph(ids)\nservices.imports.job(id)'),
    ).toEqual([]);
  });
});
