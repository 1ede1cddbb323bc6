import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { projectShare } from '../helpers/projects.js';
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
          '200': {
            description: 'ok',
            content: { 'application/json': { schema: { type: 'array', items: { $ref: '#/components/schemas/Pet' } } } },
          },
          default: {
            description: 'failure',
            content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
          },
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
const NOTE =
  'mutation($id: ID!, $content: String!) { createDocument(input: { id: $id, title: "Kitchen note", content: $content }) { document { entities { id } } } }';

/**
 * The Pets spec of the re-import test: v2 drops DELETE /pets/{id}, the admin tag and Error, returns Problem instead,
 * and its GET /pets no longer returns Pet (which stays in the spec's components).
 */
function petsSpec(version: 1 | 2): string {
  const error = version === 1 ? 'Error' : 'Problem';
  const ok =
    version === 1
      ? { description: 'ok', content: { 'application/json': { schema: { $ref: '#/components/schemas/Pet' } } } }
      : { description: 'ok' };
  const paths: Record<string, unknown> = {
    '/pets': {
      get: {
        operationId: 'listPets',
        tags: ['pets'],
        responses: {
          '200': ok,
          default: {
            description: 'failure',
            content: { 'application/json': { schema: { $ref: `#/components/schemas/${error}` } } },
          },
        },
      },
    },
  };
  if (version === 1)
    paths['/pets/{id}'] = {
      delete: {
        operationId: 'deletePet',
        tags: ['admin'],
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
        responses: { '204': { description: 'gone' } },
      },
    };
  return JSON.stringify({
    openapi: '3.0.3',
    info: { title: 'Reimport Pets', version: String(version) },
    tags: version === 1 ? [{ name: 'pets' }, { name: 'admin' }] : [{ name: 'pets' }],
    paths,
    components: {
      schemas: {
        Pet: { type: 'object', properties: { name: { type: 'string' } } },
        [error]: { type: 'object', properties: { message: { type: 'string' } } },
      },
    },
  });
}

describe.each(projectShare(serverRuns()))('OpenAPI entities and linking by name ($name)', (run) => {
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
    const opEntities = await t.gql<{ document: { entities: { id: string }[] } }>(
      'query($id: ID!) { document(id: $id) { entities { id } } }',
      { id: operation },
    );
    const linked = opEntities.data!.document.entities.map((e) => e.id);
    expect(linked.some((id) => id.startsWith('schema:') && id.endsWith(':Error'))).toBe(true);
    expect(linked.some((id) => id.startsWith('tag:') && id.endsWith(':pets'))).toBe(true);
    // Before: this note was linked to the Error schema and the pets tag.
    const note = await t.gql<{ createDocument: Linked }>(NOTE, {
      id: 'note:kitchen',
      content: 'An error occurred while we cooked, and the pets were hungry. A Pet needs food.',
    });
    expect(note.errors).toBeUndefined();
    expect(note.data!.createDocument.document.entities).toEqual([]);
    // Updating such an entity through the API keeps its choice.
    const schemaId = linked.find((id) => id.startsWith('schema:') && id.endsWith(':Error'))!;
    expect(
      (
        await t.gql('mutation($id: ID!) { updateEntity(id: $id, input: { description: "Problem details" }) { id } }', {
          id: schemaId,
        })
      ).errors,
    ).toBeUndefined();
    const later = await t.gql<{ createDocument: Linked }>(NOTE, { id: 'note:later', content: 'Another error, later.' });
    expect(later.data!.createDocument.document.entities).toEqual([]);
    // Entities created by clients still link by name, as before.
    expect(
      (
        await t.gql(
          'mutation { createEntity(input: { id: "svc:kitchen", type: "Service", name: "Kitchen Service" }) { id } }',
        )
      ).errors,
    ).toBeUndefined();
    const named = await t.gql<{ createDocument: Linked }>(NOTE, {
      id: 'note:named',
      content: 'The Kitchen Service cooks.',
    });
    expect(named.data!.createDocument.document.entities.map((e) => e.id)).toEqual(['svc:kitchen']);
  });

  it("a re-import removes the spec's entities and relationships that vanished, and keeps ones users added", async () => {
    const run = async (version: 1 | 2) => {
      const res = await t.gql<{ importOpenApi: { job: { warnings: string[] } } }>(
        'mutation($c: String!) { importOpenApi(input: { content: $c }) { job { warnings } } }',
        { c: petsSpec(version) },
      );
      expect(res.errors).toBeUndefined();
      return res.data!.importOpenApi.job.warnings;
    };
    await run(1);
    const entity = async (id: string) =>
      (
        await t.gql<{ entity: { relationships: { type: string; from: { id: string }; to: { id: string } }[] } | null }>(
          'query($id: ID!) { entity(id: $id) { relationships { type from { id } to { id } } } }',
          { id },
        )
      ).data!.entity;
    const list = 'operation:reimport-pets:GET%20/pets';
    const del = 'operation:reimport-pets:DELETE%20/pets/%7Bid%7D';
    expect(await entity(del)).not.toBeNull();
    // A relationship a user added between two of the spec's entities is theirs, not the importer's.
    expect(
      (
        await t.gql(
          `mutation { createRelationship(input: { fromId: "${list}", toId: "schema:reimport-pets:Pet", type: "DOCUMENTED_BY" }) { id } }`,
        )
      ).errors,
    ).toBeUndefined();
    const warnings = await run(2);
    expect(warnings.join(' ')).toMatch(/removed 3 entities and 1 relationship\(s\)/);
    expect(await entity(del)).toBeNull();
    expect(await entity('schema:reimport-pets:Error')).toBeNull();
    expect(await entity('tag:reimport-pets:admin')).toBeNull();
    const edges = (await entity(list))!.relationships
      .filter((r) => r.from.id === list)
      .map((r) => `${r.type} ${r.to.id}`)
      .sort();
    expect(edges).toEqual([
      'DOCUMENTED_BY schema:reimport-pets:Pet',
      'RETURNS schema:reimport-pets:Problem',
      'TAGGED tag:reimport-pets:pets',
    ]);
    expect(await entity('schema:reimport-pets:Pet')).not.toBeNull();
  });
});
