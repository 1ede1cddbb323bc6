import type { Db } from '../db/Db.js';
import type { DocumentService } from '../documents/DocumentService.js';
import { AppError, ErrorCode, badInput, notFound } from '../errors.js';
import type { GraphService } from '../graph/GraphService.js';
import { decodePair } from '../shared/cursor.js';
import { AuditRecorder } from './AuditRecorder.js';
import { AuditRepository } from './AuditRepository.js';
import { revert } from './revert.js';
import { runUndo } from './undoScope.js';
import type { AuditEntryRecord, AuditFilterSpec, AuditPage } from './types.js';

/** Reads the audit log, undoes entries and drops those past retention. */
export class AuditService {
  readonly #repository: AuditRepository;

  constructor(
    db: Db,
    private readonly recorder: AuditRecorder,
    private readonly targets: { documents: DocumentService; graph: GraphService },
    private readonly retentionDays: number,
  ) {
    this.#repository = new AuditRepository(db);
  }

  /** Entries newest first; `after` is a cursor from a previous page. */
  list(filter: AuditFilterSpec, first: number, after: string | undefined): Promise<AuditPage> {
    let position: string | undefined;
    if (after !== undefined) {
      const [kind, id] = decodePair(after);
      if (kind !== 'audit' || !/^\d{1,18}$/.test(id))
        throw badInput('after', 'not a cursor returned by auditLog; pass pageInfo.endCursor from the previous page');
      position = id;
    }
    return this.#repository.list(filter, first, position);
  }

  /**
   * Reverts one entry with the services' own writes (recorded, as part of this undo), then records the undo itself.
   * CONFLICT when it was undone already or a later change touched one of its targets.
   */
  async undo(auditId: string): Promise<AuditEntryRecord> {
    const entry = await this.#repository.get(auditId);
    if (!entry) throw notFound('AuditEntry', auditId);
    if (entry.undoneBy !== null)
      throw new AppError(ErrorCode.CONFLICT, `audit entry ${auditId} was undone already (by entry ${entry.undoneBy})`, {
        id: auditId,
        undoneBy: entry.undoneBy,
      });
    const later = await this.#repository.laterTouching(auditId, entry.targetIds);
    if (later)
      throw new AppError(
        ErrorCode.CONFLICT,
        `audit entry ${auditId} cannot be undone: entry ${later.id} (${later.operation} by ${later.actor.name}) changed ${entry.targetIds.join(', ')} since; undo that one first`,
        { id: auditId, laterId: later.id },
      );
    await runUndo(auditId, () => revert(entry, this.targets));
    const [undoId] = (await runUndo(auditId, () =>
      this.recorder.record([
        {
          operation: 'undo',
          targetKind: entry.targetKind,
          targetIds: entry.targetIds,
          before: entry.after,
          after: entry.before,
        },
      ]),
    )) as [string];
    await this.#repository.markUndone(auditId, undoId);
    return (await this.#repository.get(undoId)) as AuditEntryRecord;
  }

  /** Deletes entries older than the retention (CAIRN_AUDIT_RETENTION_DAYS; 0 keeps them all); returns how many. */
  async sweep(now = new Date()): Promise<number> {
    if (this.retentionDays <= 0) return 0;
    return this.#repository.deleteOlderThan(new Date(now.getTime() - this.retentionDays * 86_400_000));
  }
}
