import { createRequire } from 'node:module';
import type { Json } from './types.js';

const require = createRequire(import.meta.url);

// swagger-parser's entry point require()s the ESM-only json-schema-ref-parser, which Jest's CommonJS
// runtime cannot load; its two validators are plain CommonJS (Ajv + the official schemas), so they
// are used directly and the $ref work is done with json-schema-ref-parser itself.
const validateSchema = require('@apidevtools/swagger-parser/lib/validators/schema.js') as (api: Json) => void;
const validateSpec = require('@apidevtools/swagger-parser/lib/validators/spec.js') as (api: Json) => void;

/**
 * Validates a dereferenced spec against the official Swagger 2.0 / OpenAPI 3.0 / 3.1 JSON schemas,
 * then (2.0) the rules the schema cannot express. Throws swagger-parser's SyntaxError, whose
 * `details` lists Ajv's findings with their JSON pointers.
 */
export function validateOpenApiDocument(api: Json): void {
  validateSchema(api);
  validateSpec(api);
}
