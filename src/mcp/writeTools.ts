import { z } from 'zod';
import { documentIdsOf, resultOrError, validateUrlImport } from '../../importers/index.js';
import { ROOT_FIELD_ROLES } from '../graphql/fieldRoles.js';
import { badInput } from '../errors.js';
import { defineTool, jsonOutput } from './toolDefinition.js';
import { entityJson } from './graphTools.js';
import { documentTypeSchema, jsonObjectSchema, tagsSchema } from './schemas.js';

const { Mutation } = ROOT_FIELD_ROLES;

/** An ISO 8601 date-time argument as a Date (GraphQL's DateTime scalar accepts the same). */
function dateTime(value: string | undefined, field: string): Date | undefined {
  if (value === undefined) return undefined;
  const at = new Date(value);
  if (Number.isNaN(at.getTime())) throw badInput(field, 'must be an ISO 8601 date-time such as 2030-01-31T12:00:00Z');
  return at;
}

export const createDocumentTool = defineTool({
  name: 'create_document',
  title: 'Add a document',
  description:
    'Adds a document (markdown or plain text) to the knowledge base, where search and enrich_context find it at once. ' +
    'Give an id to make the write repeatable: an existing id is refused with CONFLICT. Names of known entities in the ' +
    'text are linked to the knowledge graph automatically.',
  role: Mutation.createDocument,
  readOnly: false,
  writes: { overwrites: false, idempotent: false },
  input: z.strictObject({
    title: z.string().describe('The title (at most 1000 characters).'),
    content: z.string().describe('The text, markdown or plain.'),
    id: z
      .string()
      .optional()
      .describe(
        'Stable id such as "runbook:ach-failures": 1-512 letters, digits and _ - : . / @ # ? = & % + ~. Generated when omitted.',
      ),
    documentType: documentTypeSchema.optional().describe('What kind of document it is (default OTHER).'),
    source: z.string().optional().describe('Where it came from: a URL, a system name or a file path.'),
    tags: tagsSchema.optional(),
    metadata: jsonObjectSchema
      .optional()
      .describe('A JSON object kept with the document (e.g. {"url": "https://…"}; at most 64 KB).'),
    expiresAt: z.string().optional().describe('ISO 8601 date-time after which the document is hidden and deleted.'),
    entityIds: z.array(z.string()).optional().describe('Ids of existing entities to link the document to.'),
  }),
  async run(args, { services }) {
    const result = await services.documents.create({
      ...args,
      expiresAt: dateTime(args.expiresAt, 'input.expiresAt'),
    });
    const d = result.document;
    return jsonOutput({
      id: d.id,
      title: d.title,
      documentType: d.documentType.toUpperCase(),
      source: d.source,
      tags: d.tags,
      chunkCount: result.chunkCount,
    });
  },
});

export const importUrlTool = defineTool({
  name: 'import_url',
  title: 'Import a web page',
  description:
    'Fetches a public web page or file (HTML, markdown, PDF, DOCX, …) and adds it as a document, converted to ' +
    'markdown; importing the same URL again refreshes that document. Private and internal addresses are refused. ' +
    'Returns the documents written.',
  role: Mutation.importUrl,
  readOnly: false,
  writes: { overwrites: true, idempotent: true },
  input: z.strictObject({
    url: z.string().describe('Absolute http(s) URL of the page or file.'),
    title: z.string().optional().describe("Default: the page's own title."),
    documentType: documentTypeSchema
      .optional()
      .describe('Default: guessed from the URL (/faq → FAQ, /api/ → API_SPEC, …).'),
    tags: tagsSchema.optional(),
    source: z.string().optional().describe('Default: the canonical URL.'),
    metadata: jsonObjectSchema.optional().describe('A JSON object kept with the document.'),
  }),
  async run(args, { services }) {
    const job = resultOrError(await services.imports.submit(validateUrlImport(args), { async: false }), false);
    const documents = await services.documents.summariesByIds(documentIdsOf(job));
    return jsonOutput({
      jobId: job.id,
      status: job.status,
      documents: documents.map((d) => ({ id: d.id, title: d.title, source: d.source })),
      chunkCount: job.chunkCount,
      warnings: job.warnings,
    });
  },
});

export const createEntityTool = defineTool({
  name: 'create_entity',
  title: 'Add an entity',
  description:
    'Adds an entity (a service, team, API, concept, …) to the knowledge graph. Documents that name it (or an alias) ' +
    'are linked to it automatically. An existing id is refused with CONFLICT; look entities up with find_entities first.',
  role: Mutation.createEntity,
  readOnly: false,
  writes: { overwrites: false, idempotent: false },
  input: z.strictObject({
    type: z
      .string()
      .describe('Type in PascalCase, e.g. "Service", "Team", "Concept" (pattern ^[A-Z][A-Za-z0-9_]{0,63}$).'),
    name: z.string().describe('The name documents use for it (at most 500 characters).'),
    id: z.string().optional().describe('Stable id such as "svc:payments"; generated when omitted.'),
    aliases: z.array(z.string()).optional().describe('Other names for it (at most 50).'),
    description: z.string().optional().describe('What it is, in a sentence or two.'),
    properties: jsonObjectSchema.optional().describe('A JSON object of facts about it (at most 64 KB).'),
  }),
  async run(args, { services }) {
    const e = await services.graph.createEntity(args);
    return jsonOutput(entityJson(e));
  },
});

export const createRelationshipTool = defineTool({
  name: 'create_relationship',
  title: 'Relate two entities',
  description:
    'Records a directed relationship between two existing entities, e.g. fromId "svc:payments", type "DEPENDS_ON", ' +
    'toId "svc:ledger". Repeating it updates its properties instead of adding a second one.',
  role: Mutation.createRelationship,
  readOnly: false,
  writes: { overwrites: true, idempotent: true },
  input: z.strictObject({
    fromId: z.string().describe('Id of the entity the relationship starts from.'),
    type: z.string().describe('Relationship type in UPPER_SNAKE case, e.g. DEPENDS_ON, OWNED_BY.'),
    toId: z.string().describe('Id of the entity it points to.'),
    properties: jsonObjectSchema.optional().describe('A JSON object of facts about the relationship.'),
  }),
  async run(args, { services }) {
    const r = await services.graph.createRelationship(args);
    return jsonOutput({ id: r.id, fromId: r.fromId, type: r.type, toId: r.toId, properties: r.properties });
  },
});
