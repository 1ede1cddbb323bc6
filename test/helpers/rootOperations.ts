import type { Role } from '../../src/auth/roles.js';

/** One call of a root field, with the role the issue gives it (independent of src/graphql/fieldRoles.ts). */
export interface RootOperation {
  field: string;
  type: 'Query' | 'Mutation';
  need: Role;
  /** A small valid operation; `n` makes generated names unique. */
  query: (n: number) => string;
}

const q = (field: string, need: Role, query: (n: number) => string): RootOperation => ({
  field,
  type: 'Query',
  need,
  query,
});
const m = (field: string, need: Role, query: (n: number) => string): RootOperation => ({
  field,
  type: 'Mutation',
  need,
  query,
});

/** Every Query and Mutation field (a test checks the list against schema.graphql). */
export const ROOT_OPERATIONS: RootOperation[] = [
  q('document', 'reader', () => '{ document(id: "doc:missing") { id } }'),
  q('documents', 'reader', () => '{ documents { totalCount } }'),
  q('knowledgeStats', 'reader', () => '{ knowledgeStats { documentCount } }'),
  q('entity', 'reader', () => '{ entity(id: "svc:missing") { id } }'),
  q('entities', 'reader', () => '{ entities { totalCount } }'),
  q('subgraph', 'reader', () => '{ subgraph(input: { entityIds: ["svc:missing"] }) { truncated } }'),
  q('shortestPath', 'reader', () => '{ shortestPath(fromId: "svc:a", toId: "svc:b") { entities { id } } }'),
  q('graphStats', 'reader', () => '{ graphStats { entityCount } }'),
  q('knowledgeGaps', 'reader', () => '{ knowledgeGaps { totalCount } }'),
  q('importJob', 'reader', () => '{ importJob(id: "job_missing") { id } }'),
  q('importJobs', 'reader', () => '{ importJobs { totalCount } }'),
  q('search', 'agent', () => '{ search(input: { query: "payments" }) { score } }'),
  q('enrichContext', 'agent', () => '{ enrichContext(input: { query: "payments" }) { context } }'),
  q('apiKeys', 'admin', () => '{ apiKeys { id } }'),
  q('auditLog', 'admin', () => '{ auditLog(first: 1) { totalCount } }'),
  q('viewer', 'reader', () => '{ viewer { role } }'),
  q('spaces', 'admin', () => '{ spaces { id } }'),
  q('spaceDeletion', 'admin', () => '{ spaceDeletion(id: "missing") { status } }'),
  q('sources', 'reader', () => '{ sources { id } }'),
  q('source', 'reader', () => '{ source(id: "missing") { id } }'),
  m(
    'createDocument',
    'editor',
    (n) =>
      `mutation { createDocument(input: { id: "doc:role-${n}", title: "T", content: "payments text" }) { chunkCount } }`,
  ),
  m('upsertDocuments', 'editor', () => 'mutation { upsertDocuments(input: []) { chunkCount } }'),
  m(
    'updateDocument',
    'editor',
    () => 'mutation { updateDocument(id: "doc:missing", input: { title: "x" }) { chunkCount } }',
  ),
  m('deleteDocument', 'admin', () => 'mutation { deleteDocument(id: "doc:missing") { deleted } }'),
  m(
    'createEntity',
    'editor',
    (n) =>
      `mutation { createEntity(input: { id: "svc:role-${n}", type: "Service", name: "Role service ${n}" }) { id } }`,
  ),
  m('updateEntity', 'editor', () => 'mutation { updateEntity(id: "svc:missing", input: { name: "x" }) { id } }'),
  m('deleteEntity', 'admin', () => 'mutation { deleteEntity(id: "svc:missing") { deleted } }'),
  m('mergeEntities', 'admin', () => 'mutation { mergeEntities(keepId: "svc:a", mergeId: "svc:missing") { id } }'),
  m('undoMerge', 'admin', () => 'mutation { undoMerge(mergeId: "merge_missing") { id } }'),
  m('rejectEntity', 'admin', () => 'mutation { rejectEntity(id: "svc:missing") { deleted } }'),
  m('rejectRelationship', 'admin', () => 'mutation { rejectRelationship(id: "rel:missing") { id } }'),
  m('acceptEntity', 'editor', () => 'mutation { acceptEntity(id: "svc:missing") { id } }'),
  m('acceptRelationship', 'editor', () => 'mutation { acceptRelationship(id: "rel:missing") { id } }'),
  m(
    'extractGraph',
    'editor',
    () => 'mutation { extractGraph(input: { documentIds: ["doc:missing"], extractors: [STRUCTURAL] }) { id } }',
  ),
  m('upsertGraph', 'editor', () => 'mutation { upsertGraph(input: { entities: [] }) { entities { id } } }'),
  m(
    'createRelationship',
    'editor',
    () => 'mutation { createRelationship(input: { fromId: "svc:a", toId: "svc:b", type: "USES" }) { id } }',
  ),
  m('deleteRelationship', 'admin', () => 'mutation { deleteRelationship(id: "rel:missing") { deleted } }'),
  m(
    'linkDocumentEntities',
    'editor',
    () => 'mutation { linkDocumentEntities(input: { documentId: "doc:missing", entityIds: [] }) { id } }',
  ),
  m('importUrl', 'editor', () => 'mutation { importUrl(input: { url: "http://127.0.0.1:9/page" }) { chunkCount } }'),
  m('importOpenApi', 'editor', () => 'mutation { importOpenApi(input: { content: "not: [a spec" }) { chunkCount } }'),
  m('importUpload', 'editor', () => 'mutation { importUpload(input: { uploadId: "upl_missing" }) { chunkCount } }'),
  m('resumeImportJob', 'editor', () => 'mutation { resumeImportJob(id: "job_missing") { chunkCount } }'),
  m(
    'createSource',
    'editor',
    (n) =>
      `mutation { createSource(input: { name: "role-${n}", kind: OPENAPI, url: "http://127.0.0.1:9/spec.json" }) { id } }`,
  ),
  m('updateSource', 'editor', () => 'mutation { updateSource(id: "missing", input: { schedule: "@daily" }) { id } }'),
  m('syncSource', 'editor', () => 'mutation { syncSource(id: "missing") { id } }'),
  m('deleteSource', 'admin', () => 'mutation { deleteSource(id: "missing") { deleted } }'),
  m(
    'createApiKey',
    'admin',
    (n) => `mutation { createApiKey(input: { name: "made-${n}", role: READER }) { apiKey { id } } }`,
  ),
  m('revokeApiKey', 'admin', () => 'mutation { revokeApiKey(id: "0000000000000000") { id } }'),
  m('undo', 'editor', () => 'mutation { undo(auditId: "999999999") { id } }'),
  m('undoImportJob', 'editor', () => 'mutation { undoImportJob(id: "job_missing") { jobId } }'),
  m('recordKnowledgeGap', 'editor', (n) => `mutation { recordKnowledgeGap(query: "gap ${n}") }`),
  // `default` exists (CONFLICT): a second space would leave default-bound keys without the unscoped fields.
  m('createSpace', 'admin', () => 'mutation { createSpace(input: { id: "default" }) { id } }'),
  m('renameSpace', 'admin', () => 'mutation { renameSpace(id: "missing", name: "x") { id } }'),
  m('deleteSpace', 'admin', () => 'mutation { deleteSpace(id: "missing") { status } }'),
  m(
    'allowSpaceRead',
    'admin',
    () => 'mutation { allowSpaceRead(input: { space: "default", reads: "missing" }) { id } }',
  ),
  m(
    'revokeSpaceRead',
    'admin',
    () => 'mutation { revokeSpaceRead(input: { space: "default", reads: "missing" }) { id } }',
  ),
];
