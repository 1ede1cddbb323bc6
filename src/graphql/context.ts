import type { Principal } from '../auth/roles.js';
import type { Services } from '../services.js';
import { createLoaders, type Loaders } from './loaders.js';
import { TextBudget } from './TextBudget.js';

/** Per-request GraphQL context: the shared services, fresh DataLoaders and who is asking. */
export interface GraphQLContext {
  services: Services;
  loaders: Loaders;
  /** Document and chunk text this response may still carry. */
  textBudget: TextBudget;
  requestId: string;
  /** The API key's principal, or the local principal while authentication is off. */
  principal: Principal;
  /** The space the request works in (the Cairn-Space header, else the key's only space, else `default`). */
  space: string;
}

/** Builds the context of one request. */
export function createContext(
  services: Services,
  requestId: string,
  principal: Principal,
  space: string,
): GraphQLContext {
  const textBudget = new TextBudget(services.config.maxResponseTextChars);
  return { services, loaders: createLoaders(services, textBudget), textBudget, requestId, principal, space };
}
