import type { Principal } from '../../auth/roles.js';
import { parseRole } from '../../auth/roles.js';
import { AppError, ErrorCode, notFound } from '../../errors.js';
import type { Services } from '../../services.js';
import type { Resolvers, Role as RoleName, SpaceReadInput } from '../generated/types.js';

/**
 * Nothing widens a key's spaces: an admin key bound to some spaces creates keys within them only (naming them), and
 * only an admin key bound to every space creates spaces or keys bound to every space.
 */
function requireWithinSpaces(principal: Principal, wanted: readonly string[] | null | undefined, what: string): void {
  if (principal.spaces === null) return;
  const bound = principal.spaces;
  if (wanted && wanted.length > 0 && wanted.every((s) => bound.includes(s))) return;
  throw new AppError(
    ErrorCode.FORBIDDEN,
    `${what}: this key (${principal.name}) is bound to ${bound.join(', ')}; it may only ${
      wanted === undefined ? 'work within them' : 'create keys bound to some of them (name them in spaces)'
    }`,
  );
}

/** Declares (`allow`) or revokes that a space reads another, logs it, and answers the reading space. */
async function changeSpaceRead(
  change: 'allow' | 'revoke',
  input: SpaceReadInput,
  { services, principal }: { services: Services; principal: Principal },
) {
  requireWithinSpaces(principal, undefined, `${change}SpaceRead`);
  await services.spaceReads[change](input);
  services.logger.info(
    { space: input.space, reads: input.reads, by: principal.keyId ?? principal.name },
    change === 'allow' ? 'space read allowed' : 'space read revoked',
  );
  return spaceWithReads(services, input.space);
}

/** Declaring and revoking which spaces a space reads (admin bound to every space); both answer the reading space. */
const spaceReadResolvers: Pick<Resolvers, 'Mutation'> = {
  Mutation: {
    allowSpaceRead: (_, { input }, context) => changeSpaceRead('allow', input, context),
    revokeSpaceRead: (_, { input }, context) => changeSpaceRead('revoke', input, context),
  },
};

/** A space with the spaces it reads (NOT_FOUND when it does not exist). */
async function spaceWithReads(services: Services, id: string) {
  const space = (await services.spaces.list()).find((s) => s.id === id);
  if (!space) throw notFound('Space', id);
  return { ...space, reads: await services.spaceReads.readsOf(id) };
}

/** API key and space management (admin only, see ROOT_FIELD_ROLES). */
export const apiKeyResolvers: Resolvers = {
  Query: {
    apiKeys: (_, __, { services }) => services.apiKeys.list(),
    viewer: (_, __, { principal }) => ({
      keyId: principal.keyId,
      name: principal.name,
      role: principal.role.toUpperCase() as RoleName,
    }),
    spaces: async (_, __, { services }) => {
      const [spaces, reads] = await Promise.all([services.spaces.list(), services.spaceReads.all()]);
      return spaces.map((s) => ({ ...s, reads: reads.get(s.id) ?? [] }));
    },
    spaceDeletion: async (_, { id }, { services, principal }) => {
      requireWithinSpaces(principal, undefined, 'spaceDeletion');
      const deletion = await services.spaceDeletions.get(id);
      if (!deletion) throw notFound('SpaceDeletion', id);
      return deletion;
    },
  },
  Mutation: {
    ...spaceReadResolvers.Mutation,
    createApiKey: async (_, { input }, { services, principal }) => {
      requireWithinSpaces(principal, input.spaces ?? null, 'createApiKey');
      const created = await services.apiKeys.create(input.name, parseRole(input.role, 'input.role'), {
        keepAnAdmin: true,
        spaces: input.spaces ?? null,
      });
      services.logger.info(
        { keyId: created.apiKey.id, role: created.apiKey.role, by: principal.keyId ?? principal.name },
        'API key created',
      );
      return created;
    },
    revokeApiKey: async (_, { id }, { services, principal }) => {
      const revoked = await services.apiKeys.revoke(id, { keepAnAdmin: true });
      services.logger.info({ keyId: id, by: principal.keyId ?? principal.name }, 'API key revoked');
      return revoked;
    },
    createSpace: async (_, { input }, { services, principal }) => {
      requireWithinSpaces(principal, undefined, 'createSpace');
      const space = await services.spaces.create(input);
      services.logger.info({ space: space.id, by: principal.keyId ?? principal.name }, 'space created');
      return { ...space, reads: [] };
    },
    deleteSpace: async (_, { id }, { services, principal }) => {
      requireWithinSpaces(principal, undefined, 'deleteSpace');
      const deletion = await services.spaceDeletions.request(id);
      services.logger.info({ space: id, by: principal.keyId ?? principal.name }, 'space deletion requested');
      return deletion;
    },
    renameSpace: async (_, { id, name }, { services, principal }) => {
      requireWithinSpaces(principal, undefined, 'renameSpace');
      const space = await services.spaces.rename(id, name);
      services.logger.info({ space: space.id, by: principal.keyId ?? principal.name }, 'space renamed');
      return { ...space, reads: await services.spaceReads.readsOf(space.id) };
    },
  },
  ApiKey: {
    role: (key) => key.role.toUpperCase() as RoleName,
  },
};
