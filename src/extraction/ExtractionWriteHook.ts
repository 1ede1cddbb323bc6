import type { Queryable } from '../db/Db.js';
import type { DocumentWriteHook, WrittenDocument } from '../documents/DocumentWriteHook.js';
import type { ExtractionQueueRepository } from './ExtractionQueueRepository.js';

/**
 * Queues extraction in the document write's own transaction (durable: a committed write always has its queue row):
 * one INSERT … ON CONFLICT per batch of changed documents, and a REMOVED row per delete. `onQueued` nudges the worker
 * after the caller's transaction (it may run before the commit; the worker then finds the row on its next poll).
 */
export class ExtractionWriteHook implements DocumentWriteHook {
  constructor(
    private readonly queue: ExtractionQueueRepository,
    private readonly onQueued: () => void = () => undefined,
  ) {}

  async beforeWrite(): Promise<void> {}

  async afterWrite(tx: Queryable, documents: readonly WrittenDocument[]): Promise<void> {
    const changed = documents.filter((d) => d.changed).map((d) => d.documentId);
    if (changed.length === 0) return;
    await this.queue.enqueue(tx, changed);
    this.onQueued();
  }

  async afterDelete(tx: Queryable, documentId: string): Promise<void> {
    await this.queue.markRemoved(tx, documentId);
    this.onQueued();
  }
}
