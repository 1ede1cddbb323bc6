import { describe, expect, it } from '@jest/globals';
import { buildSchema, type GraphQLObjectType, type GraphQLResolveInfo } from 'graphql';
import { ROOT_FIELD_ROLES, roleOf, secureResolvers } from '../../../src/graphql/fieldRoles.js';
import { LOCAL_PRINCIPAL, ROLES, type Principal } from '../../../src/auth/roles.js';
import type { AppError } from '../../../src/errors.js';
import type { GraphQLContext } from '../../../src/graphql/context.js';
import { resolvers } from '../../../src/graphql/resolvers/index.js';
import { loadTypeDefs } from '../../../src/graphql/schema.js';

const rootFields = (sdl: string) => {
  const schema = buildSchema(sdl);
  return (['Query', 'Mutation'] as const).flatMap((type) =>
    Object.keys((schema.getType(type) as GraphQLObjectType).getFields()).map((field) => ({ type, field })),
  );
};

describe('root field roles', () => {
  it('declares a known role for every Query and Mutation field of schema.graphql, and nothing else', () => {
    const fields = rootFields(loadTypeDefs());
    for (const { type, field } of fields)
      expect({ field: `${type}.${field}`, role: ROLES.includes(roleOf(type, field) as never) }).toEqual({
        field: `${type}.${field}`,
        role: true,
      });
    const declared = Object.entries(ROOT_FIELD_ROLES).flatMap(([type, map]) =>
      Object.keys(map).map((f) => `${type}.${f}`),
    );
    expect(declared.sort()).toEqual(fields.map((f) => `${f.type}.${f.field}`).sort());
  });

  it('follows the issue: deletes and keys are admin, writes editor, retrieval agent', () => {
    for (const f of ['deleteDocument', 'deleteEntity', 'deleteRelationship', 'createApiKey', 'revokeApiKey'])
      expect(roleOf('Mutation', f)).toBe('admin');
    expect(roleOf('Query', 'apiKeys')).toBe('admin');
    for (const f of [
      'createDocument',
      'upsertDocuments',
      'upsertGraph',
      'linkDocumentEntities',
      'importUrl',
      'importUpload',
      'resumeImportJob',
    ])
      expect(roleOf('Mutation', f)).toBe('editor');
    expect([roleOf('Query', 'search'), roleOf('Query', 'enrichContext')]).toEqual(['agent', 'agent']);
    expect([roleOf('Query', 'documents'), roleOf('Query', 'graphStats'), roleOf('Query', 'importJobs')]).toEqual([
      'reader',
      'reader',
      'reader',
    ]);
  });

  it('refuses to build resolvers when a root field has no declared role', () => {
    const sdl = `${loadTypeDefs()}\nextend type Query { brandNew: Int }\nextend type Mutation { dropEverything: Boolean }`;
    const withNew = {
      ...resolvers,
      Query: { ...resolvers.Query, brandNew: () => 1 },
      Mutation: { ...resolvers.Mutation, dropEverything: () => true },
    };
    expect(() => secureResolvers(withNew, sdl)).toThrow(
      /Query\.brandNew has no role[\s\S]*Mutation\.dropEverything has no role/,
    );
    expect(() => secureResolvers(resolvers, loadTypeDefs())).not.toThrow();
  });

  it('checks the role before the resolver runs', async () => {
    const secured = secureResolvers(resolvers, loadTypeDefs());
    const deleteDocument = (
      secured.Mutation as Record<string, (p: unknown, a: unknown, c: GraphQLContext, i: GraphQLResolveInfo) => unknown>
    ).deleteDocument!;
    const reader: Principal = { kind: 'key', keyId: 'k1', name: 'bot', role: 'reader', spaces: ['default'] };
    // The context has no services: reaching the real resolver would throw a TypeError instead of FORBIDDEN.
    const call = (principal: Principal) =>
      deleteDocument(undefined, { id: 'doc:1' }, { principal } as GraphQLContext, {} as GraphQLResolveInfo);
    const outcome = (principal: Principal) =>
      Promise.resolve()
        .then(() => call(principal))
        .then(
          () => 'resolved',
          (err: unknown) => err,
        );
    expect(((await outcome(reader)) as AppError).code).toBe('FORBIDDEN');
    expect(await outcome(LOCAL_PRINCIPAL)).toBeInstanceOf(TypeError);
  });
});
