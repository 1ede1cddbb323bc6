import type { Db } from '../db/Db.js';
import { AppError, ErrorCode, badInput, notFound } from '../errors.js';
import { decodePair } from '../shared/cursor.js';
import { AuditRecorder } from './AuditRecorder.js';
import { AuditRepository } from './AuditRepository.js';
import { revert, type UndoTargets } from './revert.js';
import { runUndo } from './undoScope.js';
import type { AuditEntryRecord, AuditFilterSpec, AuditPage } from './types.js';

/** What undoing a job did. */
export interface JobUndo {
  jobId: string;
  /** The undo entries, one per entry of the job, newest first (the order they were reverted in). */
  undos: AuditEntryRecord[];
}

/** Reads the audit log, undoes entries and drops those past retention. */
export class AuditService {
  readonly #repository: AuditRepository;

  constructor(
    db: Db,
    private readonly recorder: AuditRecorder,
    private readonly targets: UndoTargets,
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
    return this.revertOne(entry);
  }

  /**
   * Reverts everything import or sync job `jobId` recorded, newest change first. CONFLICT, before anything is
   * reverted, when a change from outside the job touched one of its targets since; NOT_FOUND when the job recorded no
   * change left to undo.
   */
  async undoJob(jobId: string): Promise<JobUndo> {
    const entries = await this.#repository.ofJob(jobId);
    const first = entries[0];
    if (!first) throw notFound('ImportJob changes', jobId);
    const own = entries.map((e) => e.id);
    const targets = [...new Set(entries.flatMap((e) => e.targetIds))];
    const later = await this.#repository.laterTouching(first.id, targets, own);
    if (later)
      throw new AppError(
        ErrorCode.CONFLICT,
        `job ${jobId} cannot be undone: entry ${later.id} (${later.operation} by ${later.actor.name}) changed ${later.targetIds.slice(0, 5).join(', ')} since; undo that one first`,
        { id: jobId, laterId: later.id },
      );
    const undos: AuditEntryRecord[] = [];
    for (const entry of [...entries].reverse()) undos.push(await this.revertOne(entry));
    return { jobId, undos };
  }

  /** Reverts one entry (its checks done) and records the undo. */
  private async revertOne(entry: AuditEntryRecord): Promise<AuditEntryRecord> {
    await runUndo(entry.id, () => revert(entry, this.targets));
    const [undoId] = (await runUndo(entry.id, () =>
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
    await this.#repository.markUndone(entry.id, undoId);
    return (await this.#repository.get(undoId)) as AuditEntryRecord;
  }

  /** Deletes a space's entries (its deletion); returns how many. */
  deleteSpace(space: string): Promise<number> {
    return this.#repository.deleteSpace(space);
  }

  /** Deletes entries older than the retention (CAIRN_AUDIT_RETENTION_DAYS; 0 keeps them all); returns how many. */
  async sweep(now = new Date()): Promise<number> {
    if (this.retentionDays <= 0) return 0;
    return this.#repository.deleteOlderThan(new Date(now.getTime() - this.retentionDays * 86_400_000));
  }
}
