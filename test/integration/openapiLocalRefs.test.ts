import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createSafeFetcher } from '../../importers/http/safeFetch.js';
import { loadOpenApiSpec, type LoadSpecDeps } from '../../importers/openapi/loadSpec.js';
import { failureOf } from '../helpers/failureOf.js';

// A spec read from disk (cairn import openapi <file>) resolves $refs to files in its folder and under it, never outside.

const fetcher = createSafeFetcher({
  allowPrivateHosts: [],
  maxBytes: 1_000_000,
  connectTimeoutMs: 1000,
  timeoutMs: 3000,
  maxRedirects: 0,
  userAgent: 'cairn-test',
});
const deps = (extra: Partial<LoadSpecDeps> = {}): LoadSpecDeps => ({ fetcher, maxBytes: 1_000_000, ...extra });

const operation = (ref: string) =>
  `    get:\n      operationId: op${Math.abs([...ref].reduce((h, c) => (h * 31 + c.charCodeAt(0)) | 0, 7))}\n      responses:\n        '200':\n          description: ok\n          content:\n            application/json:\n              schema:\n                $ref: '${ref}'\n`;
const spec = (refs: Record<string, string>) =>
  `openapi: 3.0.3\ninfo: {title: Backend, version: "1"}\npaths:\n${Object.entries(refs)
    .map(([p, ref]) => `  ${p}:\n${operation(ref)}`)
    .join('')}`;

let top: string;
let folder: string;
const write = (relative: string, text: string) => {
  const file = path.join(folder, relative);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
  return file;
};
const load = (file: string, extra: Partial<LoadSpecDeps> = {}) =>
  loadOpenApiSpec({ content: fs.readFileSync(file, 'utf8'), file }, deps(extra));

beforeAll(() => {
  top = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-refs-'));
  folder = path.join(top, 'backend');
  fs.writeFileSync(path.join(top, 'secret.yaml'), 'type: object\ndescription: outside the spec folder\n');
  write(
    'openapi/consumed/user.yaml',
    "type: object\nproperties:\n  id: {type: string}\n  address: {$ref: '../shared/address.yaml'}\n",
  );
  write('openapi/shared/address.yaml', 'type: object\nproperties:\n  city: {type: string}\n');
  write('schemas/order.yaml', 'Order:\n  type: object\n  properties:\n    total: {type: number}\n');
  fs.symlinkSync(path.join(top, 'secret.yaml'), path.join(folder, 'schemas', 'linked.yaml'));
});
afterAll(() => fs.rmSync(top, { recursive: true, force: true }));

describe('OpenAPI $refs from disk', () => {
  it('resolves files beside the spec and under its folder, nested refs and pointers included', async () => {
    const file = write(
      'api_backend.yaml',
      spec({ '/users': 'openapi/consumed/user.yaml', '/orders': './schemas/order.yaml#/Order' }),
    );
    const loaded = await load(file);
    expect(loaded.fetchedRefs.map((u) => path.relative(folder, new URL(u).pathname)).sort()).toEqual([
      'openapi/consumed/user.yaml',
      'openapi/shared/address.yaml',
      'schemas/order.yaml',
    ]);
    expect(JSON.stringify(loaded.document)).toContain('"city"');
    expect(JSON.stringify(loaded.document)).toContain('"total"');
    expect(loaded.warnings).toEqual([]);
  });

  it.each([
    ['a ../ escape', '../secret.yaml'],
    ['an absolute file URL', `file://${'/etc/hostname'}`],
    ['a symlink that leads outside', 'schemas/linked.yaml'],
  ])('refuses %s, naming the $ref and its JSON pointer', async (_what, ref) => {
    const file = write('escape.yaml', spec({ '/x': ref }));
    const err = await failureOf(load(file));
    expect(err.code).toBe('IMPORT_FETCH_BLOCKED');
    expect(err.message).toContain(
      `$ref "${ref}" at escape.yaml#/paths/~1x/get/responses/200/content/application~1json/schema`,
    );
    expect(err.message).not.toContain('outside the spec folder'); // the file's text was never read
  });

  it('names a missing file with its JSON pointer, in nested files too', async () => {
    write('openapi/consumed/broken.yaml', "type: object\nproperties:\n  gone: {$ref: './missing.yaml'}\n");
    const err = await failureOf(load(write('missing.yaml.spec.yaml', spec({ '/b': 'openapi/consumed/broken.yaml' }))));
    expect(err.code).toBe('INVALID_OPENAPI');
    expect(err.message).toContain(
      '$ref "./missing.yaml" at openapi/consumed/broken.yaml#/properties/gone cannot be resolved: there is no file',
    );
    expect(err.message).toContain('skipUnresolvedRefs');
  });

  it('with skipUnresolvedRefs imports the rest, with one warning per skipped $ref', async () => {
    const file = write(
      'partial.yaml',
      spec({
        '/users': 'openapi/consumed/user.yaml',
        '/gone': 'nowhere/thing.yaml',
        '/out': '../secret.yaml',
        '/b': 'openapi/consumed/broken.yaml',
      }),
    );
    const loaded = await load(file, { skipUnresolvedRefs: true });
    expect(Object.keys(loaded.document.paths as object).sort()).toEqual(['/b', '/gone', '/out', '/users']);
    expect(loaded.warnings).toHaveLength(3);
    expect(loaded.warnings).toEqual(
      expect.arrayContaining([
        expect.stringMatching(
          /^Skipped \$ref "nowhere\/thing.yaml" at partial.yaml#\/paths\/~1gone\/get\/responses\/200\/content\/application~1json\/schema: cannot be resolved: there is no file/,
        ),
        expect.stringMatching(
          /^Skipped \$ref "..\/secret.yaml" at partial.yaml#\/paths\/~1out\/.*leads outside the spec's folder/,
        ),
        expect.stringMatching(
          /^Skipped \$ref ".\/missing.yaml" at openapi\/consumed\/broken.yaml#\/properties\/gone: /,
        ),
      ]),
    );
    expect(JSON.stringify(loaded.document)).toContain('"city"');
    expect(JSON.stringify(loaded.document)).not.toContain('outside the spec folder');
  });

  it('caps the spec and its files together by total bytes', async () => {
    const file = write('big.yaml', spec({ '/users': 'openapi/consumed/user.yaml' }));
    const err = await failureOf(load(file, { maxTotalBytes: fs.statSync(file).size + 10 }));
    expect(err.code).toBe('IMPORT_TOO_LARGE');
    expect(err.message).toContain('CAIRN_IMPORT_SPEC_MAX_BYTES');
  });
});
