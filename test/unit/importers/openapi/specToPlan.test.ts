import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { TAG_PATTERN } from '../../../../src/documents/tagExpression.js';
import { DOCUMENT_ID_PATTERN } from '../../../../src/documents/validateInput.js';
import { boundedId, sanitizeTag } from '../../../../importers/openapi/ids.js';
import { openApiToPlan, specIdFor } from '../../../../importers/openapi/specToPlan.js';
import { assertValidPlan, fixtureText, loadText } from './support.js';

const SECURED = JSON.stringify({
  openapi: '3.0.3',
  info: { title: 'Secured Shop', version: '3.2.1', description: 'Sells things.' },
  servers: [{ url: 'https://shop.example.test/v3', description: 'production' }],
  security: [{ oauth: ['read'] }],
  tags: [{ name: 'Orders & Billing', description: 'Money matters' }],
  paths: {
    '/orders/{orderId}/items with space': {
      parameters: [{ name: 'orderId', in: 'path', required: true, schema: { type: 'string' } }],
      get: {
        operationId: 'listItems',
        tags: ['Orders & Billing', 'Ünïcode Tag'],
        deprecated: true,
        responses: { '200': { description: 'ok' } },
      },
      delete: { operationId: 'clearItems', security: [], responses: { '204': { description: 'gone' } } },
      post: {
        operationId: 'addItem',
        security: [{ apiKey: [] }, { oauth: ['write', 'read'] }],
        responses: { '201': { description: 'added' } },
      },
    },
  },
  components: {
    securitySchemes: {
      oauth: {
        type: 'oauth2',
        flows: {
          clientCredentials: {
            tokenUrl: 'https://auth.example.test/token',
            scopes: { read: 'Read orders', write: 'Change orders' },
          },
        },
      },
      apiKey: { type: 'apiKey', in: 'header', name: 'X-Api-Key' },
    },
  },
});

describe('openApiToPlan', () => {
  it('is deterministic: the same spec and options give an identical plan', async () => {
    const text = fixtureText('oai/v3.0/link-example.yaml');
    const a = openApiToPlan(await loadText(text), { specId: 'links', tags: ['x'], source: null });
    const b = openApiToPlan(await loadText(text), { specId: 'links', tags: ['x'], source: null });
    expect(JSON.stringify(b)).toBe(JSON.stringify(a));
  });

  it('drops a removed operation from the re-plan (replacePrefix then deletes its document)', async () => {
    const before = openApiToPlan(await loadText(SECURED), { specId: 'shop', tags: [], source: null });
    const doc = JSON.parse(SECURED) as { paths: Record<string, Record<string, unknown>> };
    delete doc.paths['/orders/{orderId}/items with space']!.delete;
    const after = openApiToPlan(await loadText(JSON.stringify(doc)), { specId: 'shop', tags: [], source: null });
    const gone = 'openapi:shop:DELETE%20/orders/%7BorderId%7D/items%20with%20space';
    expect(before.documents.map((d) => d.id)).toContain(gone);
    expect(after.documents.map((d) => d.id)).not.toContain(gone);
    expect(after.documents).toHaveLength(before.documents.length - 1);
    expect(after.entities.map((e) => e.id)).not.toContain(
      'operation:shop:DELETE%20/orders/%7BorderId%7D/items%20with%20space',
    );
    expect(after.replacePrefix).toBe('openapi:shop:');
    expect(gone.startsWith(after.replacePrefix!)).toBe(true);
  });

  it('encodes ids, sanitises tags, renders security and the deprecated flag', async () => {
    const plan = openApiToPlan(await loadText(SECURED), {
      specId: 'shop',
      tags: ['team:shop'],
      source: 'https://shop.example.test/openapi.json',
    });
    assertValidPlan(plan);
    const list = plan.documents.find((d) => d.metadata.operationId === 'listItems')!;
    expect(list.id).toBe('openapi:shop:GET%20/orders/%7BorderId%7D/items%20with%20space');
    expect(decodeURIComponent(list.id)).toBe('openapi:shop:GET /orders/{orderId}/items with space');
    expect(list.tags).toEqual(['team:shop', 'orders-billing', 'unicode-tag']);
    expect(list.entityIds).toContain('tag:shop:Orders%20&%20Billing');
    expect(list.content).toContain('- Deprecated: yes');
    expect(list.content).toContain('- Security: oauth (read)');
    expect(list.content).toContain('| orderId | path | yes | string |');
    expect(list.source).toBe('https://shop.example.test/openapi.json');
    expect(plan.documents.find((d) => d.metadata.operationId === 'clearItems')!.content).toContain('- Security: none');
    expect(plan.documents.find((d) => d.metadata.operationId === 'addItem')!.content).toContain(
      '- Security: apiKey or oauth (write, read)',
    );
    const overview = plan.documents[0]!;
    expect(overview.content).toContain(
      '- oauth: OAuth2 clientCredentials via https://auth.example.test/token; scopes: read (Read orders), write (Change orders)',
    );
    expect(overview.content).toContain('- apiKey: API key in header "X-Api-Key"');
    expect(overview.content).toContain('- https://shop.example.test/v3 — production');
    expect(overview.content).toContain('- Orders & Billing (1 operation): Money matters');
    expect(overview.content).toContain('[deprecated]');
    expect(overview.metadata).toMatchObject({ kind: 'overview', operationCount: 3, apiVersion: '3.2.1' });
    expect(plan.entities.find((e) => e.type === 'Api')).toMatchObject({
      id: 'api:shop',
      name: 'Secured Shop',
      description: 'Sells things.',
    });
  });

  it('uses options.title for the overview and the Api entity', async () => {
    const plan = openApiToPlan(await loadText(SECURED), {
      specId: 'shop',
      title: 'Shop API (prod)',
      tags: [],
      source: null,
    });
    expect(plan.documents[0]!.title).toBe('Shop API (prod)');
    expect(plan.entities[0]).toMatchObject({ type: 'Api', name: 'Shop API (prod)', aliases: ['Secured Shop', 'shop'] });
  });

  it('turns Swagger 2.0 formData parameters into a form request body', async () => {
    const spec = `swagger: "2.0"\ninfo: {title: Upload, version: "1"}\nconsumes: [multipart/form-data]\npaths:\n  /files:\n    post:\n      parameters:\n        - {name: file, in: formData, type: file, required: true, description: The file}\n        - {name: note, in: formData, type: string}\n        - {name: dryRun, in: query, type: boolean}\n      responses:\n        '200': {description: ok}\n`;
    const plan = openApiToPlan(await loadText(spec), { specId: 'up', tags: [], source: null });
    const content = plan.documents[1]!.content;
    expect(content).toContain(
      '## Request body (required)\n\n`multipart/form-data`: object\n- file (file, required): The file.\n- note (string)',
    );
    expect(content).toContain('| dryRun | query | no | boolean |');
    expect(content).not.toContain('| file |');
  });

  it('rejects spec ids that could break the id scheme', async () => {
    const spec = await loadText(SECURED);
    for (const bad of ['', 'a:b', 'has space', 'x'.repeat(101)]) {
      expect(() => openApiToPlan(spec, { specId: bad, tags: [], source: null })).toThrow(
        expect.objectContaining({ code: 'BAD_USER_INPUT' }),
      );
    }
  });
});

describe('ids and tags', () => {
  it('bounds long ids at 512 characters with a hash, keeping the prefix (property)', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 0, maxLength: 800, unit: 'binary' }), (path) => {
        const id = boundedId('openapi:spec:', `GET ${path}`);
        expect(DOCUMENT_ID_PATTERN.test(id)).toBe(true);
        expect(id.startsWith('openapi:spec:')).toBe(true);
        if (id.length < 500) expect(decodeURIComponent(id)).toBe(`openapi:spec:GET ${path}`);
      }),
    );
    const long = boundedId('openapi:spec:', `GET /${'a'.repeat(600)}`);
    expect(long).toHaveLength(512);
    expect(long).not.toBe(boundedId('openapi:spec:', `GET /${'a'.repeat(601)}`));
  });

  it('sanitises tags to TAG_PATTERN or drops them (property)', () => {
    expect(sanitizeTag('Pet Store')).toBe('pet-store');
    expect(sanitizeTag('  --v1.2 API__ ')).toBe('v1-2-api');
    expect(sanitizeTag('日本')).toBeUndefined();
    fc.assert(
      fc.property(fc.string({ maxLength: 60 }), (tag) => {
        const t = sanitizeTag(tag);
        if (t !== undefined) expect(TAG_PATTERN.test(t)).toBe(true);
      }),
    );
  });

  it('derives stable spec ids from the URL, else the title, else the content', () => {
    expect(specIdFor({ url: 'https://API.Example.com/v1/openapi.yaml#frag', title: 'Ignored' })).toBe(
      'api-example-com-v1-openapi-yaml',
    );
    expect(specIdFor({ url: 'https://api.example.com/spec?b=2&a=1' })).toBe(
      specIdFor({ url: 'https://api.example.com/spec?a=1&b=2' }),
    );
    expect(specIdFor({ title: 'Swagger Petstore — Ünïcode' })).toBe('swagger-petstore-unicode');
    expect(specIdFor({ url: 'not a url', title: 'Fallback' })).toBe('fallback');
    expect(specIdFor({ content: 'openapi: 3.0.0' })).toMatch(/^spec-[0-9a-f]{16}$/);
    expect(specIdFor({ content: 'a' })).not.toBe(specIdFor({ content: 'b' }));
    const long = specIdFor({ url: `https://example.com/${'segment/'.repeat(30)}` });
    expect(long.length).toBeLessThanOrEqual(80);
    expect(() => specIdFor({})).toThrow(expect.objectContaining({ code: 'BAD_USER_INPUT' }));
  });
});
