import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { validateDocumentInput } from '../../../../src/documents/validateInput.js';
import { AppError, ErrorCode } from '../../../../src/errors.js';
import { validateEntityInput, validateRelationshipInput } from '../../../../src/graph/validateGraphInput.js';
import type { ImportPlan } from '../../../../importers/types.js';
import type { SafeFetcher } from '../../../../importers/http/SafeFetcher.js';
import { loadOpenApiSpec } from '../../../../importers/openapi/loadSpec.js';
import type { LoadedSpec } from '../../../../importers/openapi/types.js';

/** Folder of the OpenAPI fixtures. */
export const FIXTURES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../fixtures/openapi');

/** A fixture's text. */
export function fixtureText(relative: string): string {
  return readFileSync(path.join(FIXTURES, relative), 'utf8');
}

/** A fetcher for specs that must not touch the network: any call fails the test loudly. */
export const noNetwork: SafeFetcher & { calls: string[] } = {
  calls: [],
  async fetch(url: string) {
    noNetwork.calls.push(url);
    throw new AppError(ErrorCode.IMPORT_FETCH_FAILED, `test fetcher: no network (asked for ${url})`);
  },
};

/** Loads a fixture as uploaded content (no URL). */
export function loadFixture(relative: string, maxBytes = 5_000_000): Promise<LoadedSpec> {
  return loadOpenApiSpec({ content: fixtureText(relative) }, { fetcher: noNetwork, maxBytes });
}

/** Loads inline spec text. */
export function loadText(content: string, maxBytes = 1_000_000): Promise<LoadedSpec> {
  return loadOpenApiSpec({ content }, { fetcher: noNetwork, maxBytes });
}

/** Runs `fn` and returns the AppError it throws (fails when it throws something else or nothing). */
export async function appError(fn: () => Promise<unknown>): Promise<AppError> {
  try {
    await fn();
  } catch (err) {
    if (err instanceof AppError) return err;
    throw new Error(`expected an AppError, got ${String(err)}`, { cause: err });
  }
  throw new Error('expected an AppError, but nothing was thrown');
}

/** A minimal valid 3.0 spec around one response schema, for schema-rendering tests. */
export function specWithSchemas(schemas: Record<string, unknown>, responseSchema: unknown): string {
  return JSON.stringify({
    openapi: '3.0.3',
    info: { title: 'Schema test', version: '1' },
    paths: {
      '/thing': {
        get: {
          operationId: 'getThing',
          responses: { '200': { description: 'ok', content: { 'application/json': { schema: responseSchema } } } },
        },
      },
    },
    components: { schemas },
  });
}

/** Runs every planned document, entity and relationship through the real validators and checks references resolve. */
export function assertValidPlan(plan: ImportPlan): void {
  const entityIds = new Set<string>();
  plan.entities.forEach((e, i) => entityIds.add(validateEntityInput(e, `entities[${i}]`).id));
  if (entityIds.size !== plan.entities.length) throw new Error('duplicate entity ids');
  plan.relationships.forEach((r, i) => {
    const rel = validateRelationshipInput(r, `relationships[${i}]`);
    if (!entityIds.has(rel.fromId) || !entityIds.has(rel.toId))
      throw new Error(`relationship ${i} points outside the plan: ${rel.fromId} -> ${rel.toId}`);
  });
  const docIds = new Set<string>();
  plan.documents.forEach((d, i) => {
    const doc = validateDocumentInput(
      { ...d, documentType: d.documentType.toUpperCase() },
      { maxDocumentChars: 5_000_000 },
      `documents[${i}]`,
    );
    docIds.add(doc.id!);
    for (const id of d.entityIds ?? [])
      if (!entityIds.has(id)) throw new Error(`document ${d.id} links unknown entity ${id}`);
  });
  if (docIds.size !== plan.documents.length) throw new Error('duplicate document ids');
}

/** Relationships as `from TYPE to` strings with the spec-specific prefixes removed, for readable assertions. */
export function edges(plan: ImportPlan, specId: string): string[] {
  const short = (id: string) => decodeURIComponent(id.replace(`:${specId}:`, ':').replace(`api:${specId}`, 'api'));
  return plan.relationships.map((r) => `${short(r.fromId!)} ${r.type} ${short(r.toId!)}`);
}
