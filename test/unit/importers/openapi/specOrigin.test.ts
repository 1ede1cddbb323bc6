import { describe, expect, it } from '@jest/globals';
import { validateSpecId } from '../../../../importers/openapi/ids.js';
import {
  originConflict,
  serverHosts,
  type SpecIdentity,
  type StoredSpec,
} from '../../../../importers/openapi/specOrigin.js';
import { loadText } from './support.js';

const stored = (over: Partial<StoredSpec> = {}): StoredSpec => ({
  title: 'API',
  titles: ['API'],
  source: null,
  origin: { kind: 'content' },
  sourceUrl: null,
  serverHosts: ['a.example.com'],
  operationDocumentIds: ['openapi:api:GET%20/a', 'openapi:api:GET%20/b'],
  ...over,
});

const incoming = (over: Partial<SpecIdentity> = {}): SpecIdentity => ({
  specId: 'api',
  explicit: false,
  origin: { kind: 'content' },
  title: 'API',
  serverHosts: ['a.example.com'],
  sourceUrl: null,
  operationDocumentIds: ['openapi:api:GET%20/a'],
  ...over,
});

describe('originConflict: may an import replace the spec holding its derived id?', () => {
  it('lets the same inline spec replace itself: new version, new operations, an added server, or no servers on one side', () => {
    expect(originConflict(stored(), incoming())).toBeUndefined();
    expect(
      originConflict(
        stored(),
        incoming({
          serverHosts: ['a.example.com', 'staging.example.com'],
          operationDocumentIds: ['openapi:api:GET%20/b', 'openapi:api:GET%20/c'],
        }),
      ),
    ).toBeUndefined();
    expect(originConflict(stored({ serverHosts: [] }), incoming({ serverHosts: ['z.example.com'] }))).toBeUndefined();
    expect(originConflict(stored({ titles: ['Api'] }), incoming({ title: 'API' }))).toBeUndefined();
    // A spec with no operations yet says nothing about which API it is.
    expect(
      originConflict(
        stored({ operationDocumentIds: [] }),
        incoming({ operationDocumentIds: ['openapi:api:GET%20/z'] }),
      ),
    ).toBeUndefined();
  });

  it('refuses another API: other title, disjoint servers, no operation in common, another kind of source', () => {
    expect(originConflict(stored({ titles: ['Billing API'] }), incoming({ title: 'Payments API' }))).toMatch(
      /title is "Billing API"/,
    );
    expect(originConflict(stored(), incoming({ serverHosts: ['b.example.com'] }))).toMatch(/share no host/);
    expect(originConflict(stored(), incoming({ operationDocumentIds: ['openapi:api:GET%20/z'] }))).toMatch(
      /no operation/,
    );
    expect(originConflict(stored({ origin: { kind: 'file', file: 'file:openapi.yaml' } }), incoming())).toMatch(
      /from the file openapi\.yaml/,
    );
    expect(
      originConflict(
        stored({ origin: { kind: 'file', file: 'file:a/openapi.yaml' } }),
        incoming({ origin: { kind: 'file', file: 'file:a-openapi.yaml' } }),
      ),
    ).toMatch(/came from the file a\/openapi\.yaml/);
  });

  it('identifies a fetched spec by its URL alone, old imports by the URL their Api entity recorded', () => {
    const byUrl = stored({
      origin: { kind: 'url', url: 'example.com/specs/pets-api.json' },
      source: 'https://example.com/specs/pets-api.json',
    });
    expect(
      originConflict(
        byUrl,
        incoming({
          origin: { kind: 'url', url: 'example.com/specs/pets-api.json' },
          title: 'Renamed',
          serverHosts: ['z.example.com'],
          operationDocumentIds: ['x'],
        }),
      ),
    ).toBeUndefined();
    expect(
      originConflict(byUrl, incoming({ origin: { kind: 'url', url: 'example.com/specs/pets/api.json' } })),
    ).toMatch(/fetched from example\.com\/specs\/pets-api\.json, this one from example\.com\/specs\/pets\/api\.json/);
    const legacy = stored({
      origin: undefined,
      serverHosts: undefined,
      sourceUrl: 'https://example.com/specs/pets-api.json',
    });
    expect(
      originConflict(legacy, incoming({ origin: { kind: 'url', url: 'example.com/specs/pets-api.json' } })),
    ).toBeUndefined();
    expect(
      originConflict(
        legacy,
        incoming({
          origin: { kind: 'url', url: 'example.com/other' },
          sourceUrl: 'https://example.com/specs/pets-api.json',
        }),
      ),
    ).toBeUndefined();
    expect(originConflict(legacy, incoming())).toMatch(/this one is given inline/);
  });
});

describe('serverHosts', () => {
  it('takes the hosts of absolute servers only (3.x servers, 2.0 host)', async () => {
    const v3 = await loadText(
      JSON.stringify({
        openapi: '3.0.3',
        info: { title: 'T', version: '1' },
        servers: [
          { url: 'https://B.example.com/v1' },
          { url: '/relative' },
          { url: 'https://{region}.example.com' },
          { url: 'http://a.example.com' },
        ],
        paths: {},
      }),
    );
    expect(serverHosts(v3)).toEqual(['a.example.com', 'b.example.com']);
    const v2 = await loadText(
      JSON.stringify({
        swagger: '2.0',
        info: { title: 'T', version: '1' },
        host: 'petstore.example.com',
        basePath: '/v2',
        paths: {},
      }),
    );
    expect(serverHosts(v2)).toEqual(['petstore.example.com']);
  });
});

describe('validateSpecId', () => {
  it('names the field it was given and says which characters are allowed', () => {
    expect(validateSpecId('billing-api.v2_x')).toBe('billing-api.v2_x');
    expect(() => validateSpecId('billing api', 'input.specId')).toThrow(
      /^input\.specId: "billing api" is not a valid spec id: use 1-100 letters, digits/,
    );
    expect(() => validateSpecId('x'.repeat(101), 'import openapi.specId')).toThrow(
      /^import openapi\.specId: "x{80}…" is not a valid spec id/,
    );
  });
});
