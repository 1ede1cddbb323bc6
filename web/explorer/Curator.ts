// The panel's curation of extracted facts: accept (editors), reject, merge two entities and undo the merge (admins),
// each one click. Every change is audited by the server; accept and reject are undone from History, a merge here.
import type { EntityDetail } from './api.js';
import {
  acceptEntity,
  acceptRelationship,
  mergeEntities,
  rejectEntity,
  rejectRelationship,
  undoMerge,
  type MergeDone,
} from './curateApi.js';
import { button, el } from './dom.js';
import { errorText } from './editApi.js';
import { historyNote } from './editViews.js';
import type { GraphModel } from './GraphModel.js';

/** What curation needs of the app (a part of the editor's host). */
interface CurationApp {
  readonly model: GraphModel;
  select(id: string | null): Promise<void>;
  graphChanged(alpha?: number): void;
  status(text: string, error?: boolean): void;
  reload(id: string): Promise<void>;
  readonly panel: { show(id: string): Promise<void>; showContent(content: HTMLElement): void };
}

/** What the curator needs of the editor: the app, the key's rights and a way to show a note on an entity. */
export interface CuratorHost {
  readonly host: CurationApp;
  readonly canEdit: boolean;
  readonly canDelete: boolean;
  done(entityId: string, note: string): Promise<void>;
}

/** Holds a pending "Merge into…" and the last merge (for its undo), and builds the curation controls. */
export class Curator {
  /** The entity a "Merge into…" started from (the one to merge away), until merged or cancelled. */
  mergeFromId: string | null = null;
  private lastMerge: MergeDone | null = null;

  constructor(private readonly c: CuratorHost) {}

  /** Accept and reject for an extracted entity, and "Merge into…" for admins. */
  controls(d: EntityDetail): HTMLElement[] {
    const out: HTMLElement[] = [];
    if (d.origin === 'EXTRACTED' && this.c.canEdit)
      out.push(button('Accept', () => void this.accept(d), { attrs: { 'data-action': 'accept', title: 'Curate it' } }));
    if (d.origin === 'EXTRACTED' && this.c.canDelete)
      out.push(
        button('Reject', () => void this.reject(d), {
          className: 'danger',
          attrs: { 'data-action': 'reject', title: 'Delete it; extraction will not create it again' },
        }),
      );
    if (this.c.canDelete)
      out.push(
        button('Merge into…', () => this.startMerge(d), {
          attrs: { 'data-action': 'merge', 'aria-pressed': String(this.mergeFromId === d.id) },
        }),
      );
    return out;
  }

  /** On the entity selected after "Merge into…": the one-click merge, or the undo of the merge just made. */
  pending(d: EntityDetail): HTMLElement | null {
    if (this.lastMerge && this.lastMerge.keptId === d.id) return this.undoBox(this.lastMerge);
    if (!this.mergeFromId || this.mergeFromId === d.id) return null;
    const from = this.mergeFromId;
    const fromName = this.c.host.model.nodes.get(from)?.name ?? from;
    return el(
      'div',
      { className: 'confirm', attrs: { 'aria-label': 'Merge' } },
      el('p', { text: `Merge ${fromName} into ${d.name}? ${d.name} is kept; ${fromName} becomes its alias.` }),
      el(
        'div',
        { className: 'actions' },
        button(`Merge into ${d.name}`, () => void this.merge(from, d), { attrs: { 'data-action': 'confirm-merge' } }),
        button('Cancel', () => this.cancelMerge(d), { className: 'quiet', attrs: { 'data-action': 'cancel-merge' } }),
      ),
    );
  }

  /** The accept button of an extracted relationship row (editors). */
  relationshipAccept(id: string, origin: string, label: string, entityId: string): HTMLElement | null {
    if (origin !== 'EXTRACTED' || !this.c.canEdit) return null;
    return button('Accept', () => void this.acceptRelationship(id, label, entityId), {
      className: 'quiet',
      attrs: { 'data-action': 'accept-relationship', 'aria-label': `Accept relationship ${label}` },
    });
  }

  /** The reject button of an extracted relationship row (admins). */
  relationshipReject(id: string, origin: string, label: string, entityId: string): HTMLElement | null {
    if (origin !== 'EXTRACTED' || !this.c.canDelete) return null;
    return button('Reject', () => void this.rejectRelationship(id, label, entityId), {
      className: 'quiet danger',
      attrs: {
        'data-action': 'reject-relationship',
        'aria-label': `Reject relationship ${label}`,
        title: 'Delete it; extraction will not write it again',
      },
    });
  }

  private async rejectRelationship(id: string, label: string, entityId: string): Promise<void> {
    try {
      await rejectRelationship(id);
    } catch (err) {
      this.c.host.status(`Reject failed: ${errorText(err)}`, true);
      return;
    }
    this.c.host.model.removeRelationship(id);
    this.c.host.graphChanged(0.3);
    await this.c.done(entityId, `Rejected relationship ${label}: deleted, and extraction will not write it again.`);
  }

  private async accept(d: EntityDetail): Promise<void> {
    try {
      const e = await acceptEntity(d.id);
      const node = this.c.host.model.nodes.get(d.id);
      if (node) node.origin = e.origin;
      this.c.host.graphChanged(0);
      await this.c.done(d.id, `Accepted ${d.name}: it is curated now.`);
    } catch (err) {
      this.c.host.status(`Accept failed: ${errorText(err)}`, true);
    }
  }

  private async acceptRelationship(id: string, label: string, entityId: string): Promise<void> {
    try {
      const r = await acceptRelationship(id);
      const link = this.c.host.model.links.get(id);
      if (link) link.origin = r.origin;
      this.c.host.graphChanged(0);
      await this.c.done(entityId, `Accepted relationship ${label}.`);
    } catch (err) {
      this.c.host.status(`Accept failed: ${errorText(err)}`, true);
    }
  }

  private async reject(d: EntityDetail): Promise<void> {
    try {
      await rejectEntity(d.id);
    } catch (err) {
      this.c.host.status(`Reject failed: ${errorText(err)}`, true);
      return;
    }
    this.c.host.model.removeEntity(d.id);
    this.c.host.graphChanged(0.3);
    await this.c.host.select(null);
    this.c.host.panel.showContent(historyNote(`Rejected ${d.name}: deleted, and extraction will not create it again.`));
  }

  private startMerge(d: EntityDetail): void {
    this.mergeFromId = this.mergeFromId === d.id ? null : d.id;
    this.c.host.status(this.mergeFromId ? `Merge ${d.name}: select the entity to keep (click it or search).` : '');
    void this.c.host.panel.show(d.id);
  }

  private cancelMerge(d: EntityDetail): void {
    this.mergeFromId = null;
    this.c.host.status('');
    void this.c.host.panel.show(d.id);
  }

  private async merge(fromId: string, keep: EntityDetail): Promise<void> {
    try {
      this.lastMerge = await mergeEntities(keep.id, fromId);
    } catch (err) {
      this.c.host.status(`Merge failed: ${errorText(err)}`, true);
      return;
    }
    this.mergeFromId = null;
    this.c.host.status('');
    this.c.host.model.removeEntity(fromId);
    await this.c.host.reload(keep.id);
    await this.c.done(keep.id, `Merged ${this.lastMerge.mergedName} into ${keep.name}.`);
  }

  private undoBox(m: MergeDone): HTMLElement {
    return el(
      'div',
      { className: 'actions' },
      button(`Undo merge of ${m.mergedName}`, () => void this.undo(m), { attrs: { 'data-action': 'undo-merge' } }),
    );
  }

  private async undo(m: MergeDone): Promise<void> {
    try {
      await undoMerge(m.id);
    } catch (err) {
      this.c.host.status(`Undo failed: ${errorText(err)}`, true);
      return;
    }
    this.lastMerge = null;
    await this.c.host.reload(m.keptId);
    await this.c.done(m.keptId, `Merge undone: ${m.mergedName} is back.`);
  }
}
