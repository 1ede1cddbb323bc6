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

// Local $refs to every place an unreadable external $ref can stand: the spec still imports.
const swaggerEverywhere = (defs: string) => `swagger: "2.0"
info: {title: Events, version: "1"}
paths:
  /events:
    get:
      operationId: listEvents
      parameters:
        - $ref: '#/parameters/Cursor'
      responses:
        '200': {$ref: '#/responses/Events'}
        '404': {description: none, schema: {$ref: '#/definitions/Event/properties/at'}}
    post:
      operationId: createEvent
      parameters:
        - {name: body, in: body, schema: {$ref: '#/definitions/List/items'}}
      responses:
        '201': {description: created, schema: {$ref: '#/definitions/Event'}}
parameters:
  Cursor: {$ref: '${defs}#/Cursor'}
responses:
  Events: {$ref: '${defs}#/Events'}
definitions:
  Event:
    type: object
    properties:
      at: {$ref: '${defs}#/Timestamp'}
  List:
    type: array
    items: {$ref: '${defs}#/Item'}
`;

const openapi3Everywhere = (defs: string) => `openapi: 3.0.3
info: {title: Events, version: "1"}
paths:
  /events:
    post:
      operationId: createEvent
      parameters: [{$ref: '#/components/parameters/Cursor'}]
      requestBody: {$ref: '#/components/requestBodies/NewEvent'}
      responses:
        '200': {$ref: '#/components/responses/Created'}
        '400':
          description: bad
          content: {application/json: {schema: {$ref: '#/components/schemas/Event/properties/at'}}}
        '409':
          description: conflict
          headers: {Retry-After: {$ref: '#/components/headers/RetryAfter'}}
          content: {application/json: {schema: {$ref: '#/components/schemas/List/items'}}}
        '422':
          description: mixed
          content: {application/json: {schema: {$ref: '#/components/schemas/Mixed/allOf/0'}}}
components:
  schemas:
    Event: {type: object, properties: {at: {$ref: '${defs}#/Timestamp'}}}
    List: {type: array, items: {$ref: '${defs}#/Item'}}
    Mixed: {allOf: [{$ref: '${defs}#/Base'}, {type: object}]}
  parameters: {Cursor: {$ref: '${defs}#/Cursor'}}
  requestBodies: {NewEvent: {$ref: '${defs}#/NewEvent'}}
  responses: {Created: {$ref: '${defs}#/Created'}}
  headers: {RetryAfter: {$ref: '${defs}#/RetryAfter'}}
`;

describe('local $refs to unresolvable external $refs wherever they stand', () => {
  const note = (name: string) => expect.stringMatching(new RegExp(`^Not imported: \\$ref ".*defs\\.yaml#/${name}"`));

  it('imports a Swagger 2 spec: parameters, responses, nested properties and items become placeholders', async () => {
    const loaded = await load(swaggerEverywhere(`${site.url}/defs.yaml`), true);
    const doc = loaded.document;
    expect((doc.parameters as Record<string, Json>).Cursor).toMatchObject({
      name: 'Cursor',
      description: note('Cursor'),
    });
    expect((doc.responses as Record<string, Json>).Events).toMatchObject({ description: note('Events') });
    const definitions = doc.definitions as Record<string, Json>;
    expect(((definitions.Event?.properties as Json).at as Json).description).toEqual(note('Timestamp'));
    expect((definitions.List?.items as Json).description).toEqual(note('Item'));
    expect(loaded.warnings).toHaveLength(4);
    const plan = openApiToPlan(loaded, { specId: 'ev', tags: [], source: null });
    expect(plan.documents.find((d) => d.title.startsWith('GET /events'))?.content).toContain('Not imported');
  });

  it('imports an OpenAPI 3 spec: request bodies, headers and allOf entries too', async () => {
    const loaded = await load(openapi3Everywhere(`${site.url}/defs.yaml`), true);
    const components = loaded.document.components as Record<string, Record<string, Json>>;
    expect(components.parameters?.Cursor).toMatchObject({ name: 'Cursor', description: note('Cursor') });
    expect(components.requestBodies?.NewEvent).toMatchObject({ description: note('NewEvent') });
    expect(components.responses?.Created).toMatchObject({ description: note('Created') });
    expect(components.headers?.RetryAfter).toMatchObject({ description: note('RetryAfter') });
    expect(((components.schemas?.Event?.properties as Json).at as Json).description).toEqual(note('Timestamp'));
    expect((components.schemas?.List?.items as Json).description).toEqual(note('Item'));
    expect((components.schemas?.Mixed?.allOf as Json[])[0]?.description).toEqual(note('Base'));
    expect(loaded.warnings).toHaveLength(7);
    const plan = openApiToPlan(loaded, { specId: 'ev3', tags: [], source: null });
    expect(plan.documents.find((d) => d.title.startsWith('POST /events'))?.content).toContain('Not imported');
  });
});
