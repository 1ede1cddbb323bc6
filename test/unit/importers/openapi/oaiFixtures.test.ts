import { describe, expect, it } from '@jest/globals';
import { openApiToPlan } from '../../../../importers/openapi/specToPlan.js';
import { assertValidPlan, edges, loadFixture, noNetwork } from './support.js';

// Hand-counted from the fixtures: operations (incl. webhooks), named schemas, tags, relationships.
const EXPECTED = [
  { file: 'oai/v2.0/petstore.yaml', version: '2.0', operations: 3, schemas: 3, tags: 1, relationships: 12 },
  { file: 'oai/v2.0/petstore-expanded.yaml', version: '2.0', operations: 4, schemas: 3, tags: 0, relationships: 13 },
  { file: 'oai/v3.0/petstore.yaml', version: '3.0', operations: 3, schemas: 3, tags: 1, relationships: 13 },
  { file: 'oai/v3.0/petstore-expanded.yaml', version: '3.0', operations: 4, schemas: 3, tags: 0, relationships: 13 },
  { file: 'oai/v3.0/uspto.yaml', version: '3.0', operations: 3, schemas: 1, tags: 2, relationships: 7 },
  { file: 'oai/v3.0/callback-example.yaml', version: '3.0', operations: 1, schemas: 0, tags: 0, relationships: 1 },
  { file: 'oai/v3.0/link-example.yaml', version: '3.0', operations: 6, schemas: 3, tags: 0, relationships: 14 },
  { file: 'oai/v3.1/webhook-example.yaml', version: '3.1', operations: 2, schemas: 2, tags: 0, relationships: 5 },
] as const;

async function planFor(file: string, specId = 'spec') {
  const spec = await loadFixture(file);
  return { spec, plan: openApiToPlan(spec, { specId, tags: ['imported'], source: `https://example.test/${file}` }) };
}

describe('OpenAPI Initiative examples', () => {
  it.each(EXPECTED)('$file loads and plans $operations operations', async (e) => {
    const { spec, plan } = await planFor(e.file);
    expect(spec.specVersion).toBe(e.version);
    expect(plan.documents).toHaveLength(e.operations + 1);
    const count = (type: string) => plan.entities.filter((x) => x.type === type).length;
    expect([count('Api'), count('Operation'), count('Schema'), count('Tag')]).toEqual([
      1,
      e.operations,
      e.schemas,
      e.tags,
    ]);
    expect(plan.relationships).toHaveLength(e.relationships);
    expect(plan.replacePrefix).toBe('openapi:spec:');
    for (const d of plan.documents.slice(1)) expect(d.id.startsWith('openapi:spec:')).toBe(true);
    expect(plan.documents[0]!.id).toBe('openapi:spec');
    assertValidPlan(plan);
    expect(noNetwork.calls).toEqual([]);
  });

  it('petstore 3.0: exact graph, ids and titles', async () => {
    const { plan } = await planFor('oai/v3.0/petstore.yaml', 'petstore');
    expect(edges(plan, 'petstore').sort()).toEqual(
      [
        'api EXPOSES operation:GET /pets',
        'api EXPOSES operation:POST /pets',
        'api EXPOSES operation:GET /pets/{petId}',
        'schema:Pets REFERENCES schema:Pet',
        'operation:GET /pets RETURNS schema:Pets',
        'operation:GET /pets RETURNS schema:Error',
        'operation:POST /pets ACCEPTS schema:Pet',
        'operation:POST /pets RETURNS schema:Error',
        'operation:GET /pets/{petId} RETURNS schema:Pet',
        'operation:GET /pets/{petId} RETURNS schema:Error',
        'operation:GET /pets TAGGED tag:pets',
        'operation:POST /pets TAGGED tag:pets',
        'operation:GET /pets/{petId} TAGGED tag:pets',
      ].sort(),
    );
    const show = plan.documents.find((d) => d.id === 'openapi:petstore:GET%20/pets/%7BpetId%7D')!;
    expect(show.title).toBe('GET /pets/{petId} — Info for a specific pet (showPetById)');
    expect(show.documentType).toBe('api_spec');
    expect(show.tags).toEqual(['imported', 'pets']);
    expect(show.entityIds).toEqual([
      'operation:petstore:GET%20/pets/%7BpetId%7D',
      'api:petstore',
      'schema:petstore:Pet',
      'schema:petstore:Error',
      'tag:petstore:pets',
    ]);
    expect(show.metadata).toMatchObject({
      specId: 'petstore',
      method: 'GET',
      path: '/pets/{petId}',
      operationId: 'showPetById',
      tags: ['pets'],
      specVersion: '3.0',
      apiVersion: '1.0.0',
    });
    expect(show.content).toContain('| petId | path | yes | string | The id of the pet to retrieve. |');
    expect(show.content).toMatch(
      /`application\/json`: Pet\n- id \(integer, int64, required\)\n- name \(string, required\)\n- tag \(string\)/,
    );
    expect(show.content).toContain('### default — unexpected error');
    const returns = plan.relationships.find(
      (r) =>
        r.type === 'RETURNS' && r.fromId === 'operation:petstore:GET%20/pets' && r.toId === 'schema:petstore:Error',
    );
    expect(returns?.properties).toEqual({ statuses: ['default'] });
    const op = plan.entities.find((x) => x.id === 'operation:petstore:GET%20/pets')!;
    expect(op).toMatchObject({ type: 'Operation', name: 'listPets', aliases: ['GET /pets', 'List all pets'] });
    const error = plan.entities.find((x) => x.id === 'schema:petstore:Error')!;
    expect(error.properties).toMatchObject({ fields: ['code', 'message'], required: ['code', 'message'] });
    expect(plan.documents[0]!.content).toContain('- http://petstore.swagger.io/v1');
    expect(plan.documents[0]!.content).toContain('- pets (3 operations)');
  });

  it('Swagger 2.0 body parameters become the request body', async () => {
    const { plan } = await planFor('oai/v2.0/petstore-expanded.yaml', 'pe2');
    const add = plan.documents.find((d) => d.metadata.operationId === 'addPet')!;
    expect(add.content).toContain(
      '## Request body (required)\n\nPet to add to the store\n\n`application/json`: NewPet\n- name (string, required)\n- tag (string)',
    );
    expect(add.content).not.toContain('| pet | body');
    expect(edges(plan, 'pe2')).toContain('operation:POST /pets ACCEPTS schema:NewPet');
    // allOf is merged into one field list.
    const get = plan.documents.find((d) => d.metadata.operationId === 'find pet by id')!;
    expect(get.content).toContain(
      '`application/json`: Pet\n- name (string, required)\n- tag (string)\n- id (integer, int64, required)',
    );
    expect(get.content).toContain('| id | path | yes | integer, int64 | ID of pet to fetch. |');
  });

  it('callbacks and links are described', async () => {
    const cb = (await planFor('oai/v3.0/callback-example.yaml')).plan.documents[1]!;
    expect(cb.title).toBe('POST /streams — subscribes a client to receive out-of-band data');
    expect(cb.content).toContain('### onData: POST {$request.query.callbackUrl}/data');
    expect(cb.content).toContain('- timestamp (string, date-time)');
    const links = (await planFor('oai/v3.0/link-example.yaml')).plan;
    const user = links.documents.find((d) => d.metadata.operationId === 'getUserByName')!;
    expect(user.content).toContain('- userRepositories → getRepositoriesByOwner (username = $response.body#/username)');
    expect(edges(links, 'spec')).toEqual(
      expect.arrayContaining([
        'schema:pullrequest REFERENCES schema:repository',
        'schema:pullrequest REFERENCES schema:user',
        'schema:repository REFERENCES schema:user',
      ]),
    );
  });

  it('3.1 webhooks get their own documents and operations', async () => {
    const { plan } = await planFor('oai/v3.1/webhook-example.yaml', 'hooks');
    const hook = plan.documents.find((d) => d.id === 'openapi:hooks:webhook:newPet%20POST')!;
    expect(hook.title).toBe('Webhook newPet (POST)');
    expect(hook.metadata).toMatchObject({ kind: 'webhook', method: 'POST', path: 'newPet', specVersion: '3.1' });
    expect(hook.content).toContain('Information about a new pet in the system');
    expect(edges(plan, 'hooks')).toEqual(
      expect.arrayContaining([
        'api EXPOSES operation:webhook:newPet POST',
        'operation:webhook:newPet POST ACCEPTS schema:Pet',
      ]),
    );
    expect(plan.documents[0]!.content).toContain('## Webhooks (1)');
  });

  it('uspto: declared tags carry descriptions; servers show their variables', async () => {
    const { plan } = await planFor('oai/v3.0/uspto.yaml', 'uspto');
    expect(plan.entities.find((x) => x.id === 'tag:uspto:search')).toMatchObject({
      type: 'Tag',
      name: 'search',
      description: 'Search a data set',
    });
    expect(plan.documents[0]!.content).toContain('- {scheme}://developer.uspto.gov/ds-api (scheme: https | http)');
    const search = plan.documents.find((d) => d.metadata.operationId === 'perform-search')!;
    expect(search.content).toContain('`application/x-www-form-urlencoded`: object\n- criteria (string, required)');
    expect(search.tags).toEqual(['imported', 'search']);
  });
});
