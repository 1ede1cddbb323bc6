import type { AuditEntryRecord, AuditFilterSpec } from '../../audit/types.js';
import { badInput, notFound } from '../../errors.js';
import { toConnection } from '../connection.js';
import type { AuditFilter, Resolvers } from '../generated/types.js';
import { MAX_PAGE_SIZE } from '../inputs.js';

const MAX_FILTER_TEXT = 500;

function text(value: string | null | undefined, field: string): string | undefined {
  const v = value?.trim();
  if (!v) return undefined;
  if (v.length > MAX_FILTER_TEXT) throw badInput(field, `must be at most ${MAX_FILTER_TEXT} characters`);
  return v;
}

function toFilter(filter: AuditFilter | null | undefined): AuditFilterSpec {
  const spec: AuditFilterSpec = {};
  const actor = text(filter?.actor, 'filter.actor');
  const targetId = text(filter?.targetId, 'filter.targetId');
  const operation = text(filter?.operation, 'filter.operation');
  const jobId = text(filter?.jobId, 'filter.jobId');
  if (jobId !== undefined) spec.jobId = jobId;
  if (actor !== undefined) spec.actor = actor;
  if (targetId !== undefined) spec.targetId = targetId;
  if (operation !== undefined) spec.operation = operation;
  if (filter?.from) spec.from = filter.from as Date;
  if (filter?.to) spec.to = filter.to as Date;
  return spec;
}

/** The documents undo entries reverted: a source's next sync must import them again (SourceService.forgetSynced). */
function revertedDocuments(undos: readonly AuditEntryRecord[]): string[] {
  return undos.filter((u) => u.targetKind === 'DOCUMENT').flatMap((u) => u.targetIds);
}

/** The audit log (admins read it) and undo (editors). */
export const auditResolvers: Resolvers = {
  Query: {
    auditLog: async (_, { filter, first, after }, { services }) => {
      const n = first ?? 20;
      if (!Number.isInteger(n) || n < 0 || n > MAX_PAGE_SIZE)
        throw badInput('first', `must be an integer from 0 to ${MAX_PAGE_SIZE}`);
      const page = await services.audit.list(toFilter(filter), n, after ?? undefined);
      return toConnection(
        page.rows.map((r) => ({ cursor: r.cursor, node: r.entry })),
        { hasNextPage: page.hasNextPage, hasPreviousPage: Boolean(after), totalCount: page.totalCount },
      );
    },
  },
  Mutation: {
    undo: async (_, { auditId }, { services }) => {
      const undo = await services.audit.undo(auditId);
      await services.sources.forgetSynced(revertedDocuments([undo]));
      return undo;
    },
    undoImportJob: async (_, { id }, { services }) => {
      // A job of another space answers as one that recorded nothing (AuditService.undoJob's NOT_FOUND).
      if (!(await services.imports.job(id))) throw notFound('ImportJob changes', id);
      const { jobId, undos } = await services.audit.undoJob(id);
      await services.sources.forgetSynced(revertedDocuments(undos));
      return { jobId, undone: undos.length, undos };
    },
  },
};
