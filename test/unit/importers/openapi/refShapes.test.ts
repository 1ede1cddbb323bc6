import { describe, expect, it } from '@jest/globals';
import type { FetchedResource, SafeFetcher } from '../../../../importers/http/SafeFetcher.js';
import { loadOpenApiSpec } from '../../../../importers/openapi/loadSpec.js';
import { openApiToPlan } from '../../../../importers/openapi/specToPlan.js';
import { appError, assertValidPlan, loadText } from './support.js';

// Shapes that once overflowed the recursive $ref resolver and validator, reported as "Maximum call stack size exceeded".

const HEAD = '{"openapi":"3.0.3","info":{"title":"T","version":"1"},';

/** A spec whose one response is `schema` (JSON text), with `schemas` as components. */
function spec(schema: string, schemas: Record<string, unknown> = {}): string {
  const paths = `"paths":{"/a":{"get":{"responses":{"200":{"description":"ok","content":{"application/json":{"schema":${schema}}}}}}}}`;
  return `${HEAD}${paths},"components":{"schemas":${JSON.stringify(schemas)}}}`;
}

/** A schema `levels` objects deep, built as text (JSON.stringify itself overflows on such values). */
const nested = (levels: number) =>
  `${'{"type":"object","properties":{"x":'.repeat(levels)}{"type":"string"}${'}}'.repeat(levels)}`;

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

async function invalid(text: string) {
  const err = await appError(() => loadText(text, 10_000_000));
  expect(err.code).toBe('INVALID_OPENAPI');
  expect(err.message).not.toMatch(/call stack/i);
  return err;
}

describe('$ref cycles and deep nesting', () => {
  it('names the schemas of a $ref cycle that has no schema in it', async () => {
    const err = await invalid(spec(JSON.stringify(ref('A')), { A: ref('B'), B: ref('A') }));
    expect(err.message).toBe(
      "The spec's $refs form a cycle with no schema in it (#/components/schemas/A → #/components/schemas/B → #/components/schemas/A): make one of them a schema (e.g. {type: object}) instead of a $ref",
    );
    expect(err.details).toMatchObject({
      reason: 'ref_cycle',
      cycle: ['#/components/schemas/A', '#/components/schemas/B'],
    });
    // Unused by any operation, or a schema naming itself, is the same mistake.
    expect(
      (await invalid(`${HEAD}"paths":{},"components":{"schemas":{"A":{"$ref":"#/components/schemas/A"}}}}`)).details
        .reason,
    ).toBe('ref_cycle');
  });

  it('still loads recursive schemas whose cycle passes through a real schema', async () => {
    const loaded = await loadText(
      spec(JSON.stringify(ref('Node')), {
        Node: { type: 'object', properties: { next: ref('Node'), items: { type: 'array', items: ref('Node') } } },
      }),
    );
    assertValidPlan(openApiToPlan(loaded, { specId: 's', tags: [], source: null }));
  });

  it('refuses a schema nested 3,000 levels deep, naming where, and loads 200 levels', async () => {
    const err = await invalid(spec(nested(3000)));
    expect(err.message).toMatch(
      /^The document nests deeper than 500 levels \(at #\/paths\/~1a\/get\/responses\/200\/content\/application~1json\/schema\/properties\/x\//,
    );
    expect(err.details).toMatchObject({ reason: 'too_deep', maxDepth: 500 });
    await expect(loadText(spec(nested(200)))).resolves.toMatchObject({ title: 'T' });
  });

  it('refuses the same nesting in YAML', async () => {
    const err = await invalid(
      `openapi: 3.0.3\ninfo: {title: T, version: "1"}\npaths: {}\nx-deep: ${'['.repeat(3000)}${']'.repeat(3000)}\n`,
    );
    expect(err.details.reason).toBe('too_deep');
  });

  it('refuses $ref chains and $ref nesting too deep to follow', async () => {
    const chain: Record<string, unknown> = Object.fromEntries(
      Array.from({ length: 3000 }, (_, i) => [`S${i}`, ref(`S${i + 1}`)]),
    );
    chain.S3000 = { type: 'string' };
    expect((await invalid(spec(JSON.stringify(ref('S0')), chain))).message).toMatch(
      /^The spec chains \$refs to \$refs deeper than 500 levels/,
    );
    const linked: Record<string, unknown> = Object.fromEntries(
      Array.from({ length: 600 }, (_, i) => [`S${i}`, { type: 'object', properties: { next: ref(`S${i + 1}`) } }]),
    );
    linked.S600 = { type: 'string' };
    expect((await invalid(spec(JSON.stringify(ref('S0')), linked))).message).toMatch(
      /^The spec nests deeper than 500 levels once its \$refs are followed \(at #\/paths/,
    );
  });

  it('checks external $ref documents too', async () => {
    const external: Record<string, string> = {
      'https://specs.example.test/deep.json': nested(3000),
      'https://specs.example.test/loop.json': JSON.stringify({ A: { $ref: '#/B' }, B: { $ref: '#/A' } }),
    };
    const fetcher: SafeFetcher = {
      async fetch(url) {
        return {
          requestedUrl: url,
          finalUrl: url,
          status: 200,
          contentType: 'application/json',
          charset: undefined,
          headers: {},
          body: Buffer.from(external[url] ?? ''),
          redirects: [],
        } satisfies FetchedResource;
      },
    };
    const load = (target: string) =>
      appError(() =>
        loadOpenApiSpec(
          { content: spec(JSON.stringify({ $ref: target })), url: 'https://specs.example.test/openapi.json' },
          { fetcher, maxBytes: 10_000_000 },
        ),
      );
    const deep = await load('deep.json');
    expect(deep).toMatchObject({
      code: 'INVALID_OPENAPI',
      message: expect.stringContaining('https://specs.example.test/deep.json nests deeper than 500 levels'),
    });
    const loop = await load('loop.json#/A');
    expect(loop).toMatchObject({ code: 'INVALID_OPENAPI', details: { reason: 'ref_cycle' } });
    expect(loop.message).not.toMatch(/call stack/i);
  });
});
