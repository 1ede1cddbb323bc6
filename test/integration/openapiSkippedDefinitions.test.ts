import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createSafeFetcher } from '../../importers/http/safeFetch.js';
import { loadOpenApiSpec } from '../../importers/openapi/loadSpec.js';
import { openApiToPlan } from '../../importers/openapi/specToPlan.js';
import type { Json } from '../../importers/openapi/types.js';
import { failureOf } from '../helpers/failureOf.js';
import { startFixtureSite, type FixtureSite } from '../helpers/fixtureSite.js';

// A multi-file spec whose reusable schemas are only an external $ref: when that document cannot be read and
// unresolved refs are skipped, the schema stays as a placeholder so the spec's local $refs to it still resolve.

let site: FixtureSite;
const fetcher = () =>
  createSafeFetcher({
    allowPrivateHosts: ['127.0.0.1'],
    maxBytes: 1_000_000,
    connectTimeoutMs: 1000,
    timeoutMs: 3000,
    maxRedirects: 0,
    userAgent: 'cairn-test',
  });

beforeAll(async () => {
  site = await startFixtureSite(); // every path answers 404: the defs document cannot be read
});
afterAll(async () => site?.close());

const swagger = (defs: string) => `swagger: "2.0"
info: {title: Timestamps, version: "1"}
paths:
  /events:
    get:
      operationId: listEvents
      responses:
        '200':
          description: the events
          schema:
            type: array
            items: {$ref: '#/definitions/Event'}
definitions:
  A:
    $ref: '${defs}#/A'
  Event:
    type: object
    properties:
      at: {$ref: '#/definitions/A'}
      name: {type: string}
`;

const openapi3 = (defs: string) => `openapi: 3.0.3
info: {title: Timestamps, version: "1"}
paths:
  /events/{id}:
    get:
      operationId: getEvent
      parameters:
        - {name: id, in: path, required: true, schema: {type: string}}
      responses:
        '200':
          description: the event
          content:
            application/json:
              schema: {$ref: '#/components/schemas/Timestamp'}
components:
  schemas:
    Timestamp:
      $ref: '${defs}#/Timestamp'
`;

const load = (content: string, skipUnresolvedRefs: boolean) =>
  loadOpenApiSpec(
    { content, url: `${site.url}/api.yaml` },
    { fetcher: fetcher(), maxBytes: 1_000_000, skipUnresolvedRefs },
  );

describe('OpenAPI definitions that are only an unresolvable external $ref', () => {
  it('fails without skipping, naming the $ref', async () => {
    const err = await failureOf(load(swagger(`${site.url}/defs.yaml`), false));
    expect(err.message).toContain('defs.yaml');
    expect(err.message).toContain('skipUnresolvedRefs');
  });

  it('keeps a Swagger 2 definition as a placeholder schema, so the local $refs to it resolve', async () => {
    const loaded = await load(swagger(`${site.url}/defs.yaml`), true);
    const definitions = loaded.document.definitions as Record<string, Json>;
    expect(definitions.A).toEqual({
      description: `Not imported: $ref "${site.url}/defs.yaml#/A" could not be resolved`,
      'x-cairn-unresolved': `${site.url}/defs.yaml#/A`,
    });
    expect(loaded.warnings).toEqual([
      expect.stringMatching(/^Skipped \$ref ".*\/defs\.yaml#\/A" at .*api\.yaml#\/definitions\/A: .*404/),
    ]);
    const plan = openApiToPlan(loaded, { specId: 'ts', tags: [], source: null });
    const operation = plan.documents.find((d) => d.title.startsWith('GET /events'));
    expect(operation?.content).toMatch(/at.*Not imported: \$ref ".*defs\.yaml#\/A" could not be resolved/);
  });

  it('keeps an OpenAPI 3 components schema as a placeholder schema', async () => {
    const loaded = await load(openapi3(`${site.url}/defs.yaml`), true);
    const schemas = (loaded.document.components as Json).schemas as Record<string, Json>;
    expect(schemas.Timestamp?.description).toMatch(/^Not imported: \$ref ".*defs\.yaml#\/Timestamp" could not be/);
    expect(Object.keys(loaded.document.paths as Json)).toEqual(['/events/{id}']);
  });
});
