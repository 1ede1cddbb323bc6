import type { Db, Queryable } from '../db/Db.js';
import type { DocumentChangeSink } from '../documents/DocumentChangeSink.js';
import type { CurationAudit } from '../graph/curation/CurationService.js';
import type { GraphAudit } from '../graph/GraphAudit.js';
import { currentActor } from './actor.js';
import { AuditRepository } from './AuditRepository.js';
import { documentChangeSink } from './documentChanges.js';
import * as graph from './graphChanges.js';
import { currentJob } from './jobScope.js';
import { currentUndo } from './undoScope.js';
import type { AuditChange } from './types.js';

/**
 * Writes audit entries for the current actor. Document changes are recorded in the write's own transaction; graph
 * changes (the graph may live in Neo4j) right after the store confirms them.
 */
export class AuditRecorder {
  readonly #repository: AuditRepository;

  constructor(db: Db) {
    this.#repository = new AuditRepository(db);
  }

  /**
   * Records changes for the current actor and job (inside `tx` when given); an undo in progress marks them as its own.
   */
  async record(changes: readonly AuditChange[], tx?: Queryable): Promise<string[]> {
    const undoes = currentUndo();
    const marked = undoes === undefined ? changes : changes.map((c) => ({ ...c, undoes }));
    return this.#repository.insert(marked, currentActor(), currentJob(), tx);
  }

  /** The document service's sink. */
  documentSink(): DocumentChangeSink {
    return documentChangeSink(async (changes, tx) => {
      await this.record(changes, tx);
    });
  }

  /** The graph service's sink. */
  graphAudit(): GraphAudit {
    const one = async (change: AuditChange) => {
      await this.record([change]);
    };
    return {
      entityCreated: (after) => one(graph.entityCreated(after)),
      entityUpdated: (before, after) => one(graph.entityUpdated(before, after)),
      entityDeleted: (before, relationships) => one(graph.entityDeleted(before, relationships)),
      graphUpserted: (entities, relationships, origin, prior) =>
        one(graph.graphUpserted(entities, relationships, origin, prior)),
      relationshipWritten: (after, before) => one(graph.relationshipCreated(after, before)),
      relationshipDeleted: (before) => one(graph.relationshipDeleted(before)),
    };
  }

  /** The curation service's sink: merges, rejections, and undoMerge when called directly (an undo records itself). */
  curationAudit(): CurationAudit {
    return {
      merged: async (record) => {
        await this.record([graph.entitiesMerged(record)]);
      },
      rejected: async (rejection) => {
        await this.record([graph.factRejected(rejection)]);
      },
      mergeUndone: async (record) => {
        if (currentUndo() === undefined) await this.record([graph.mergeUndone(record)]);
      },
    };
  }
}
