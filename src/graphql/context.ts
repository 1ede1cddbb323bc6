import type { Services } from '../services.js';
import { createLoaders, type Loaders } from './loaders.js';

/** Per-request GraphQL context: the shared services plus fresh DataLoaders. */
export interface GraphQLContext {
  services: Services;
  loaders: Loaders;
  requestId: string;
}

/** Builds the context of one request. */
export function createContext(services: Services, requestId: string): GraphQLContext {
  return { services, loaders: createLoaders(services), requestId };
}
