import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { loadOpenApiSpec } from '../../../../importers/openapi/loadSpec.js';
import { openApiToPlan } from '../../../../importers/openapi/specToPlan.js';
import { assertValidPlan, FIXTURES, noNetwork } from './support.js';

describe('a large real spec (GitHub REST API, 13 MB)', () => {
  it('loads, validates and plans every operation', async () => {
    const content = gunzipSync(readFileSync(path.join(FIXTURES, 'large/github-api.json.gz')));
    expect(content.length).toBeGreaterThan(1_000_000);
    await expect(loadOpenApiSpec({ content }, { fetcher: noNetwork, maxBytes: 1_000_000 })).rejects.toMatchObject({
      code: 'IMPORT_TOO_LARGE',
    });

    const spec = await loadOpenApiSpec({ content }, { fetcher: noNetwork, maxBytes: 20_000_000 });
    expect(spec.specVersion).toBe('3.0');
    const plan = openApiToPlan(spec, { specId: 'github', tags: ['github'], source: 'https://api.github.com' });
    const operations = plan.entities.filter((e) => e.type === 'Operation').length;
    console.log(
      `GitHub REST API: ${operations} operations, ${plan.entities.length} entities, ${plan.relationships.length} relationships`,
    );

    const paths = spec.document.paths as Record<string, Record<string, unknown>>;
    const methods = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
    const expected = Object.values(paths).reduce(
      (n, item) => n + methods.filter((m) => item[m] !== undefined).length,
      0,
    );
    expect(operations).toBe(expected);
    expect(operations).toBeGreaterThan(1000);
    expect(plan.documents).toHaveLength(operations + 1);
    assertValidPlan(plan);
    const get = plan.documents.find((d) => d.id === 'openapi:github:GET%20/repos/%7Bowner%7D/%7Brepo%7D')!;
    expect(get.title).toBe('GET /repos/{owner}/{repo} — Get a repository (repos/get)');
    expect(get.content).toContain('`application/json`: full-repository');
    expect(get.entityIds).toContain('schema:github:full-repository');
    expect(plan.relationships).toContainEqual({
      fromId: 'operation:github:GET%20/repos/%7Bowner%7D/%7Brepo%7D',
      type: 'RETURNS',
      toId: 'schema:github:full-repository',
      properties: { statuses: ['200'] },
    });
    expect(noNetwork.calls).toEqual([]);
  });
});
