import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createSafeFetcher } from '../../importers/http/safeFetch.js';
import type { SafeFetcher } from '../../importers/http/SafeFetcher.js';
import { loadOpenApiSpec } from '../../importers/openapi/loadSpec.js';
import { openApiToPlan } from '../../importers/openapi/specToPlan.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/openapi');
const METADATA = 'http://169.254.169.254/latest/meta-data/';

/** Serves the fixture folder on 127.0.0.1; `/redirect-to-metadata` redirects to the cloud metadata address. */
let server: http.Server;
let base: string;
const requests: string[] = [];

function fetcher(allowPrivateHosts: string[]): SafeFetcher {
  return createSafeFetcher({
    allowPrivateHosts,
    maxBytes: 1_000_000,
    connectTimeoutMs: 2000,
    timeoutMs: 5000,
    maxRedirects: 5,
    userAgent: 'cairn-test',
  });
}

function specReferencing(target: string): string {
  return `openapi: 3.0.3\ninfo: {title: T, version: "1"}\npaths:\n  /a:\n    get:\n      responses:\n        '200':\n          description: ok\n          content:\n            application/json:\n              schema:\n                $ref: '${target}'\n`;
}

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    requests.push(url.pathname);
    if (url.pathname === '/redirect-to-metadata') {
      res.writeHead(302, { location: METADATA }).end();
      return;
    }
    const file = path.resolve(ROOT, `.${decodeURIComponent(url.pathname)}`);
    if (!file.startsWith(`${ROOT}${path.sep}`)) {
      res.writeHead(404).end();
      return;
    }
    readFile(file).then(
      (body) => res.writeHead(200, { 'content-type': 'application/yaml' }).end(body),
      () => res.writeHead(404).end(),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe('loading OpenAPI over HTTP through the safe fetcher', () => {
  it('loads a multi-file spec by URL, resolving relative (and ../) $refs', async () => {
    requests.length = 0;
    const url = `${base}/multi-file/openapi.yaml`;
    const spec = await loadOpenApiSpec({ url }, { fetcher: fetcher(['127.0.0.1']), maxBytes: 1_000_000 });
    expect(spec.sourceUrl).toBe(url);
    expect([...spec.fetchedRefs].sort()).toEqual(
      [
        'common/address.yaml',
        'common/error.yaml',
        'common/parameters.yaml',
        'common/responses.yaml',
        'paths/pets.yaml',
        'schemas/owner.yaml',
        'schemas/pet.yaml',
        'schemas/species.yaml',
      ].map((f) => `${base}/multi-file/${f}`),
    );
    expect(requests[0]).toBe('/multi-file/openapi.yaml');
    expect(requests).toHaveLength(9);

    const plan = openApiToPlan(spec, { specId: 'clinic', tags: [], source: url });
    expect(plan.documents.map((d) => d.id)).toEqual([
      'openapi:clinic',
      'openapi:clinic:GET%20/pets',
      'openapi:clinic:POST%20/pets',
      'openapi:clinic:GET%20/owners/%7BownerId%7D',
    ]);
    const list = plan.documents[1]!.content;
    // pet.yaml → ./owner.yaml → ../common/address.yaml, all inlined.
    expect(list).toContain(
      '- owner (Owner)\n  - id (integer, required)\n  - fullName (string, required)\n  - address (object)\n    - street (string)',
    );
    expect(list).toContain('| species | query | no | string | Kind of animal. Enum: `cat`, `dog`, `parrot`. |');
    expect(list).toContain('### default — Not found');
    // The relative server URL is relative to where the spec was served from.
    expect(plan.documents[0]!.content).toContain(`- ${base}/api/v2`);
    const rel = plan.relationships.map((r) => `${r.fromId} ${r.type} ${r.toId}`);
    expect(rel).toEqual(
      expect.arrayContaining([
        'operation:clinic:POST%20/pets ACCEPTS schema:clinic:Pet',
        'schema:clinic:Pet REFERENCES schema:clinic:Owner',
        'operation:clinic:GET%20/owners/%7BownerId%7D RETURNS schema:clinic:Owner',
      ]),
    );
  });

  it('blocks a $ref to the cloud metadata address (IMPORT_FETCH_BLOCKED)', async () => {
    await expect(
      loadOpenApiSpec({ content: specReferencing(METADATA) }, { fetcher: fetcher(['127.0.0.1']), maxBytes: 100_000 }),
    ).rejects.toMatchObject({ code: 'IMPORT_FETCH_BLOCKED' });
  });

  it('blocks a $ref that redirects to the metadata address', async () => {
    await expect(
      loadOpenApiSpec(
        { content: specReferencing(`${base}/redirect-to-metadata`) },
        { fetcher: fetcher(['127.0.0.1']), maxBytes: 100_000 },
      ),
    ).rejects.toMatchObject({ code: 'IMPORT_FETCH_BLOCKED' });
  });

  it('sends $refs through the fetcher: a loopback ref is blocked unless allow-listed', async () => {
    requests.length = 0;
    const content = specReferencing(`${base}/multi-file/schemas/owner.yaml`);
    await expect(loadOpenApiSpec({ content }, { fetcher: fetcher([]), maxBytes: 100_000 })).rejects.toMatchObject({
      code: 'IMPORT_FETCH_BLOCKED',
    });
    expect(requests).toEqual([]);
  });

  it('keeps ../ traversal on HTTP: it asks the server, never the file system', async () => {
    requests.length = 0;
    const content = specReferencing('../../../../etc/passwd');
    const err = await loadOpenApiSpec(
      { content, url: `${base}/multi-file/openapi.yaml` },
      { fetcher: fetcher(['127.0.0.1']), maxBytes: 100_000 },
    ).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'IMPORT_FETCH_FAILED' });
    expect(requests).toEqual(['/etc/passwd']);
    await expect(
      loadOpenApiSpec(
        { content: specReferencing('file:///etc/passwd'), url: `${base}/x.yaml` },
        { fetcher: fetcher(['127.0.0.1']), maxBytes: 100_000 },
      ),
    ).rejects.toMatchObject({ code: 'IMPORT_FETCH_BLOCKED' });
  });
});
