import { describe, expect, it } from '@jest/globals';
import type { FetchedResource, SafeFetcher } from '../../../../importers/http/SafeFetcher.js';
import { loadOpenApiSpec } from '../../../../importers/openapi/loadSpec.js';
import { looksLikeOpenApi, parseSpecText } from '../../../../importers/openapi/parseSpec.js';
import { appError, fixtureText, loadText, noNetwork } from './support.js';

const HEAD = 'openapi: 3.0.3\ninfo: {title: T, version: "1"}\n';

/** A spec whose only response schema is a `$ref` to `target`. */
function specReferencing(target: string): string {
  return `${HEAD}paths:\n  /a:\n    get:\n      responses:\n        '200':\n          description: ok\n          content:\n            application/json:\n              schema:\n                $ref: '${target}'\n`;
}

/** Nine levels of nine aliases each: 9^9 strings if expanded. */
function billionLaughs(): string {
  const lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
  const names = 'abcdefghi';
  for (let i = 1; i < names.length; i++)
    lines.push(
      `${names[i]}: &${names[i]} [${Array(9)
        .fill(`*${names[i - 1]}`)
        .join(', ')}]`,
    );
  return `${HEAD}paths: {}\nx-lol:\n${lines.map((l) => `  ${l}`).join('\n')}\n`;
}

describe('parseSpecText / looksLikeOpenApi', () => {
  it('parses JSON and YAML to the same value', () => {
    const yaml = parseSpecText(fixtureText('oai/v3.0/petstore.yaml'));
    expect(parseSpecText(JSON.stringify(yaml))).toEqual(yaml);
    expect(parseSpecText('\uFEFF{"a": 1}')).toEqual({ a: 1 });
    expect(parseSpecText('a: 1\nb: [x, y]\n')).toEqual({ a: 1, b: ['x', 'y'] });
  });

  it('routes only OpenAPI/Swagger documents', () => {
    expect(looksLikeOpenApi(parseSpecText(fixtureText('oai/v2.0/petstore.yaml')))).toBe(true);
    expect(looksLikeOpenApi(parseSpecText(fixtureText('oai/v3.1/webhook-example.yaml')))).toBe(true);
    expect(looksLikeOpenApi({ openapi: '3.1.0', info: {}, webhooks: {} })).toBe(true);
    expect(looksLikeOpenApi({ openapi: '3.0.3', info: {}, webhooks: {} })).toBe(false);
    expect(looksLikeOpenApi({ openapi: '3.0.3' })).toBe(false);
    expect(looksLikeOpenApi({ name: 'package', version: '1.0.0', paths: {} })).toBe(false);
    expect(looksLikeOpenApi(['openapi'])).toBe(false);
    expect(looksLikeOpenApi('openapi: 3.0.0')).toBe(false);
  });

  it('reports syntax errors as INVALID_OPENAPI with the position', () => {
    expect(() => parseSpecText('a: [1, 2\nb: c')).toThrow(
      expect.objectContaining({
        code: 'INVALID_OPENAPI',
        message: expect.stringMatching(/neither valid JSON nor valid YAML.*line/),
      }),
    );
  });

  it('rejects a YAML billion-laughs document quickly, naming the attack', async () => {
    const started = Date.now();
    const err = await appError(() => loadText(billionLaughs()));
    expect(err.code).toBe('INVALID_OPENAPI');
    expect(err.message).toMatch(/aliases too often.*billion laughs/);
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('rejects recursive YAML aliases, which would make the spec a cyclic graph', async () => {
    const err = await appError(() => loadText(`${HEAD}paths: {}\nx-loop: &loop\n  again: *loop\n`));
    expect(err).toMatchObject({ code: 'INVALID_OPENAPI', message: expect.stringContaining('recursive YAML alias') });
  });
});

describe('loadOpenApiSpec', () => {
  it('keeps internal $refs in the loaded document and reads the info block', async () => {
    const spec = await loadText(fixtureText('oai/v3.0/petstore.yaml'));
    expect(spec).toMatchObject({
      specVersion: '3.0',
      declaredVersion: '3.0.0',
      title: 'Swagger Petstore',
      apiVersion: '1.0.0',
      sourceUrl: null,
      fetchedRefs: [],
    });
    const pets = (spec.document.components as { schemas: { Pets: { items: unknown } } }).schemas.Pets;
    expect(pets.items).toEqual({ $ref: '#/components/schemas/Pet' });
    expect(() => JSON.stringify(spec.document)).not.toThrow();
  });

  it('fails an invalid spec with INVALID_OPENAPI carrying the validator message and location', async () => {
    const err = await appError(() => loadText(`${HEAD}paths:\n  /pets:\n    get:\n      summary: no responses here\n`));
    expect(err.code).toBe('INVALID_OPENAPI');
    expect(err.message).toContain("#/paths/~1pets/get must have required property 'responses'");
    expect(err.details.location).toBe('#/paths/~1pets/get');
  });

  it('names the location of a Swagger 2.0 rule the JSON schema cannot express', async () => {
    const spec = `swagger: "2.0"\ninfo: {title: T, version: "1"}\npaths:\n  /pets/{id}:\n    get:\n      responses:\n        '200': {description: ok}\n`;
    const err = await appError(() => loadText(spec));
    expect(err.code).toBe('INVALID_OPENAPI');
    expect(err.message).toMatch(/\/paths\/pets\/\{id\}\/get.*path parameter.*id/i);
    expect(err.details.location).toMatch(/^\/paths\/pets\/\{id\}\/get/);
  });

  it('fails a $ref to a missing schema with the pointer as location', async () => {
    const err = await appError(() => loadText(specReferencing('#/components/schemas/Nope')));
    expect(err).toMatchObject({ code: 'INVALID_OPENAPI', details: { location: '#/components/schemas/Nope' } });
    expect(err.message).toContain('Missing $ref pointer');
  });

  it.each([
    ['plain YAML', 'name: my-service\nreplicas: 3\n'],
    ['a JSON array', '[1, 2, 3]'],
    ['OpenAPI without paths', 'openapi: 3.0.3\ninfo: {title: T, version: "1"}\n'],
  ])('rejects %s as not OpenAPI', async (_label, text) => {
    const err = await appError(() => loadText(text));
    expect(err).toMatchObject({
      code: 'INVALID_OPENAPI',
      message: expect.stringContaining('not an OpenAPI or Swagger description'),
    });
  });

  it('rejects unsupported versions', async () => {
    await expect(loadText('swagger: "1.2"\npaths: {}\n')).rejects.toMatchObject({
      code: 'INVALID_OPENAPI',
      message: expect.stringContaining('Unsupported Swagger version'),
    });
    await expect(loadText('openapi: 4.0.0\npaths: {}\n')).rejects.toMatchObject({
      code: 'INVALID_OPENAPI',
      message: expect.stringContaining('Unsupported OpenAPI version'),
    });
  });

  it('reads an unquoted numeric info.version as a string and warns', async () => {
    const spec = await loadText('openapi: 3.0.3\ninfo: {title: T, version: 2.5}\npaths: {}\n');
    expect(spec.apiVersion).toBe('2.5');
    expect(spec.warnings[0]).toContain('info.version');
  });

  it.each([['/etc/passwd'], ['file:///etc/passwd'], ['../../../../etc/passwd'], ['schemas/pet.yaml']])(
    'never reads local files: $ref %s → IMPORT_FETCH_BLOCKED',
    async (target) => {
      const before = noNetwork.calls.length;
      const err = await appError(() => loadText(specReferencing(target)));
      expect(err.code).toBe('IMPORT_FETCH_BLOCKED');
      expect(err.message).toContain('local files are never read');
      expect(noNetwork.calls.length).toBe(before);
    },
  );

  it('refuses file: refs even when the spec has an http base URL', async () => {
    const err = await appError(() =>
      loadOpenApiSpec(
        { content: specReferencing('file:///etc/passwd'), url: 'https://example.test/spec.yaml' },
        { fetcher: noNetwork, maxBytes: 100_000 },
      ),
    );
    expect(err).toMatchObject({ code: 'IMPORT_FETCH_BLOCKED', message: expect.stringContaining('file:') });
  });

  it('caps the input size with IMPORT_TOO_LARGE', async () => {
    const text = fixtureText('oai/v3.0/petstore.yaml');
    const err = await appError(() => loadOpenApiSpec({ content: text }, { fetcher: noNetwork, maxBytes: 1000 }));
    expect(err).toMatchObject({
      code: 'IMPORT_TOO_LARGE',
      details: { bytes: Buffer.byteLength(text), maxBytes: 1000 },
    });
  });

  it('resolves relative $refs against the URL through the fetcher, counting bytes against the cap', async () => {
    const files: Record<string, string> = {
      'https://specs.example.test/api/schemas/pet.yaml':
        'type: object\nproperties:\n  owner:\n    $ref: "../common/owner.yaml"\n',
      'https://specs.example.test/api/common/owner.yaml': 'type: object\nproperties:\n  name: {type: string}\n',
    };
    const asked: string[] = [];
    const fetcher: SafeFetcher = {
      async fetch(url, request) {
        asked.push(url);
        const body = Buffer.from(files[url] ?? '');
        if (request?.maxBytes !== undefined && body.length > request.maxBytes) throw new Error('over cap');
        return {
          requestedUrl: url,
          finalUrl: url,
          status: 200,
          contentType: 'application/yaml',
          charset: undefined,
          headers: {},
          body,
          redirects: [],
        } satisfies FetchedResource;
      },
    };
    const content = specReferencing('schemas/pet.yaml');
    const spec = await loadOpenApiSpec(
      { content, url: 'https://specs.example.test/api/openapi.yaml' },
      { fetcher, maxBytes: 100_000 },
    );
    expect(asked).toEqual([
      'https://specs.example.test/api/schemas/pet.yaml',
      'https://specs.example.test/api/common/owner.yaml',
    ]);
    expect(spec.fetchedRefs).toEqual(asked);
    expect(spec.bytes).toBe(
      Buffer.byteLength(content) + Object.values(files).reduce((n, f) => n + Buffer.byteLength(f), 0),
    );
    expect(JSON.stringify(spec.document)).toContain('"name":{"type":"string"}');
    // The same spec with too small a budget for its $refs fails as too large.
    const err = await appError(() =>
      loadOpenApiSpec(
        { content, url: 'https://specs.example.test/api/openapi.yaml' },
        { fetcher, maxBytes: Buffer.byteLength(content) },
      ),
    );
    expect(err.code).toBe('IMPORT_TOO_LARGE');
  });
});
