import { parseRole } from '../../auth/roles.js';
import type { Resolvers, Role as RoleName } from '../generated/types.js';

/** API key management (admin only, see ROOT_FIELD_ROLES). */
export const apiKeyResolvers: Resolvers = {
  Query: {
    apiKeys: (_, __, { services }) => services.apiKeys.list(),
  },
  Mutation: {
    createApiKey: async (_, { input }, { services, principal }) => {
      const created = await services.apiKeys.create(input.name, parseRole(input.role, 'input.role'), {
        keepAnAdmin: true,
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
  },
  ApiKey: {
    role: (key) => key.role.toUpperCase() as RoleName,
  },
};
