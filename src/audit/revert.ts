import type { DocumentService } from '../documents/DocumentService.js';
import type { DocumentPatch, DocumentTypeName } from '../documents/types.js';
import { AppError, ErrorCode } from '../errors.js';
import type { CurationService } from '../graph/curation/CurationService.js';
import type { SnapshotEvidence } from '../graph/curation/MergeRepository.js';
import type { GraphService } from '../graph/GraphService.js';
import type { Origin } from '../graph/types.js';
import type { JsonObject } from '../shared/json.js';
import type { AuditEntryRecord, AuditState } from './types.js';

/** The services an undo writes through. */
export interface UndoTargets {
  documents: DocumentService;
  graph: GraphService;
  curation: CurationService;
}
type Targets = UndoTargets;

function str(state: AuditState, key: string): string {
  return String(state[key] ?? '');
}

function dateOrNull(value: unknown): Date | null {
  return typeof value === 'string' ? new Date(value) : null;
}

/** The fields of a document's `before` as a patch (only the fields the change touched are present). */
function documentPatch(before: AuditState): DocumentPatch {
  const patch: DocumentPatch = {};
  if ('title' in before) patch.title = str(before, 'title');
  if ('content' in before) patch.content = str(before, 'content');
  if ('documentType' in before) patch.documentType = before.documentType as DocumentTypeName;
  if ('source' in before) patch.source = (before.source as string | null) ?? null;
  if ('tags' in before) patch.tags = before.tags as string[];
  if ('metadata' in before) patch.metadata = before.metadata as JsonObject;
  if ('expiresAt' in before) patch.expiresAt = dateOrNull(before.expiresAt);
  return patch;
}

async function revertDocument(entry: AuditEntryRecord, { documents }: Targets, id: string): Promise<void> {
  if (entry.before === null) {
    await documents.delete(id);
  } else if (entry.after === null) {
    const b = entry.before;
    await documents.create({
      id,
      title: str(b, 'title'),
      content: str(b, 'content'),
      documentType: b.documentType as DocumentTypeName,
      source: (b.source as string | null) ?? null,
      tags: (b.tags as string[]) ?? [],
      metadata: (b.metadata as JsonObject) ?? {},
      expiresAt: dateOrNull(b.expiresAt),
    });
  } else {
    await documents.update(id, documentPatch(entry.before));
  }
}

async function revertEntity(entry: AuditEntryRecord, { graph }: Targets, id: string): Promise<void> {
  const b = entry.before;
  if (b === null) {
    await graph.deleteEntity(id);
    return;
  }
  const fields = {
    type: str(b, 'type'),
    name: str(b, 'name'),
    aliases: b.aliases as string[],
    description: (b.description as string | null) ?? null,
    properties: b.properties,
  };
  if (entry.after !== null) {
    await graph.updateEntity(id, fields, { origin: b.origin as Origin });
    return;
  }
  const relationships = ((b.relationships as AuditState[] | undefined) ?? []).map((r) => ({
    fromId: str(r, 'fromId'),
    toId: str(r, 'toId'),
    type: str(r, 'type'),
    properties: r.properties,
    origin: (r.origin as Origin | undefined) ?? (b.origin as Origin),
  }));
  const asOrigin = (origin: Origin) => (origin === 'MANUAL' ? {} : { origin });
  await graph.upsertGraph([{ id, ...fields }], [], asOrigin(b.origin as Origin));
  // An endpoint deleted since cannot take its relationship back; the others return, each with its own origin.
  const ends = new Set([id, ...relationships.flatMap((r) => [r.fromId, r.toId])]);
  const alive = new Set((await graph.entitiesByIds([...ends])).map((e) => e.id));
  const back = relationships.filter((r) => alive.has(r.fromId) && alive.has(r.toId));
  for (const origin of new Set(back.map((r) => r.origin)))
    await graph.upsertGraph(
      [],
      back.filter((r) => r.origin === origin).map(({ origin: _o, ...r }) => r),
      asOrigin(origin),
    );
}

async function revertRelationship(entry: AuditEntryRecord, { graph }: Targets): Promise<void> {
  const state = entry.after === null ? entry.before : (entry.before ?? entry.after);
  if (state === null) return;
  if (entry.before === null) {
    await graph.deleteRelationship(str(state, 'id'));
    return;
  }
  await graph.createRelationship(
    {
      fromId: str(state, 'fromId'),
      toId: str(state, 'toId'),
      type: str(state, 'type'),
      properties: state.properties,
    },
    { origin: state.origin as Origin },
  );
}

/** A bulk write: what it created is deleted (relationships first), what it changed gets its previous state back. */
async function revertUpsert(entry: AuditEntryRecord, { graph }: Targets): Promise<void> {
  const after = entry.after ?? {};
  for (const id of after.createdRelationships as string[]) await graph.deleteRelationship(id);
  for (const id of after.createdEntities as string[]) await graph.deleteEntity(id);
  const entities = ((entry.before?.entities as AuditState[] | undefined) ?? []).map((e) => ({
    origin: e.origin as Origin,
    write: { id: str(e, 'id'), type: str(e, 'type'), name: str(e, 'name'), aliases: e.aliases as string[] },
    rest: { description: (e.description as string | null) ?? null, properties: e.properties },
  }));
  const relationships = ((entry.before?.relationships as AuditState[] | undefined) ?? []).map((r) => ({
    origin: r.origin as Origin,
    write: { fromId: str(r, 'fromId'), toId: str(r, 'toId'), type: str(r, 'type'), properties: r.properties },
  }));
  for (const origin of new Set([...entities, ...relationships].map((f) => f.origin))) {
    const options = { origin };
    const es = entities.filter((e) => e.origin === origin).map((e) => ({ ...e.write, ...e.rest }));
    const rs = relationships.filter((r) => r.origin === origin).map((r) => r.write);
    await graph.upsertGraph(es, rs, options);
  }
}

/**
 * A rejection: the fact comes back as it was (an entity with its relationships), then the rejection is lifted and the
 * evidence it kept restored, so extraction may write the fact again.
 */
async function revertRejection(entry: AuditEntryRecord, targets: Targets, id: string): Promise<void> {
  const before = entry.before ?? {};
  const deleted = { ...entry, after: null };
  const entity = entry.operation === 'rejectEntity';
  if (entity) await revertEntity(deleted, targets, id);
  else await revertRelationship(deleted, targets);
  const relationships = entity ? ((before.relationships as AuditState[] | undefined) ?? []) : [before];
  await targets.curation.rejection.lift(
    entity ? { entityName: str(before, 'name') } : { relationshipId: id },
    (before.evidence as SnapshotEvidence[] | undefined) ?? [],
    relationships.map((r) => ({ factKey: `r:${str(r, 'id')}`, origin: str(r, 'origin') })),
  );
}

function notUndoable(entry: AuditEntryRecord, why: string): AppError {
  return new AppError(
    ErrorCode.BAD_USER_INPUT,
    `audit entry ${entry.id} (${entry.operation}) cannot be undone: ${why}`,
    {
      id: entry.id,
      operation: entry.operation,
    },
  );
}

/** Writes back what `entry` changed, through the services (so validation, linking and the mirror all apply). */
export async function revert(entry: AuditEntryRecord, targets: Targets): Promise<void> {
  const id = entry.targetIds[0] ?? '';
  if (entry.operation === 'undo' || entry.operation === 'undoMerge')
    throw notUndoable(entry, 'it is an undo; redo the change it reverted instead');
  if (entry.operation === 'mergeEntities') {
    await targets.curation.undoMerge(str(entry.after ?? {}, 'mergeId'));
    return;
  }
  if (entry.operation === 'rejectEntity' || entry.operation === 'rejectRelationship') {
    await revertRejection(entry, targets, id);
    return;
  }
  if (entry.operation === 'upsertGraph') {
    if (!Array.isArray(entry.after?.createdEntities))
      throw notUndoable(entry, 'it does not record what it created; change its targets directly');
    await revertUpsert(entry, targets);
    return;
  }
  if (entry.targetKind === 'DOCUMENT') await revertDocument(entry, targets, id);
  else if (entry.targetKind === 'ENTITY') await revertEntity(entry, targets, id);
  else await revertRelationship(entry, targets);
}
