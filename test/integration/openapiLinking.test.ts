import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { serverRuns, startRunServer } from '../helpers/serverRuns.js';
import type { TestServer } from '../helpers/testServer.js';

const SPEC = JSON.stringify({
  openapi: '3.0.3',
  info: { title: 'Kennel API', version: '1' },
  tags: [{ name: 'pets', description: 'Everything about pets' }],
  paths: {
    '/pets': {
      get: {
        operationId: 'listKennelPets',
        tags: ['pets'],
        summary: 'List the pets in the kennel',
        responses: {
          '200': { description: 'ok', content: { 'application/json': { schema: { type: 'array', items: { $ref: '#/components/schemas/Pet' } } } } },
          default: { description: 'failure', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } },
        },
      },
    },
  },
  components: {
    schemas: {
      Pet: { type: 'object', properties: { name: { type: 'string' } } },
      Error: { type: 'object', properties: { message: { type: 'string' } } },
    },
  },
});

type Linked = { document: { entities: { id: string }[] } };
const NOTE = 'mutation($id: ID!, $content: String!) { createDocument(input: { id: $id, title: "Kitchen note", content: $content }) { document { entities { id } } } }';

describe.each(serverRuns())('OpenAPI entities and linking by name ($name)', (run) => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startRunServer(run);
  });
  afterAll(async () => {
    await t?.close();
  });

  it("links a spec's schemas and tags to its own documents only, never to text that uses their generic names", async () => {
    const imported = await t.gql<{ importOpenApi: { documents: { id: string }[] } }>(
      'mutation($c: String!) { importOpenApi(input: { content: $c }) { documents { id } } }',
      { c: SPEC },
    );
    expect(imported.errors).toBeUndefined();
    const ids = imported.data!.importOpenApi.documents.map((d) => d.id);
    const operation = ids.find((id) => id.includes('listKennelPets') || id.includes('GET'));
    expect(operation).toBeDefined();
    const opEntities = await t.gql<{ document: { entities: { id: string }[] } }>('query($id: ID!) { document(id: $id) { entities { id } } }', { id: operation });
    const linked = opEntities.data!.document.entities.map((e) => e.id);
    expect(linked.some((id) => id.startsWith('schema:') && id.endsWith(':Error'))).toBe(true);
    expect(linked.some((id) => id.startsWith('tag:') && id.endsWith(':pets'))).toBe(true);
    // Before: this note was linked to the Error schema and the pets tag.
    const note = await t.gql<{ createDocument: Linked }>(NOTE, { id: 'note:kitchen', content: 'An error occurred while we cooked, and the pets were hungry. A Pet needs food.' });
    expect(note.errors).toBeUndefined();
    expect(note.data!.createDocument.document.entities).toEqual([]);
    // Updating such an entity through the API keeps its choice.
    const schemaId = linked.find((id) => id.startsWith('schema:') && id.endsWith(':Error'))!;
    expect((await t.gql('mutation($id: ID!) { updateEntity(id: $id, input: { description: "Problem details" }) { id } }', { id: schemaId })).errors).toBeUndefined();
    const later = await t.gql<{ createDocument: Linked }>(NOTE, { id: 'note:later', content: 'Another error, later.' });
    expect(later.data!.createDocument.document.entities).toEqual([]);
    // Entities created by clients still link by name, as before.
    expect((await t.gql('mutation { createEntity(input: { id: "svc:kitchen", type: "Service", name: "Kitchen Service" }) { id } }')).errors).toBeUndefined();
    const named = await t.gql<{ createDocument: Linked }>(NOTE, { id: 'note:named', content: 'The Kitchen Service cooks.' });
    expect(named.data!.createDocument.document.entities.map((e) => e.id)).toEqual(['svc:kitchen']);
  });
});
