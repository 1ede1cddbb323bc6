/** OpenAPI/Swagger importer: load and validate a spec, then plan documents and graph nodes. */
export { loadOpenApiSpec, type LoadSpecDeps, type SpecSource } from './loadSpec.js';
export { looksLikeOpenApi, parseSpecText } from './parseSpec.js';
export { openApiToPlan, specIdFor, type OpenApiPlanOptions } from './specToPlan.js';
export type { LoadedSpec, SpecVersion } from './types.js';
