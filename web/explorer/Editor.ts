// Editing from the side panel: create, edit and delete entities, link them, delete relationships, link documents.
// Every write goes through GraphQL, which checks the key's role and records it in the audit log.
import type { EntityDetail, EntitySummary, GraphPiece } from './api.js';
import { button, el } from './dom.js';
import {
  createEntity,
  createRelationship,
  deleteEntity,
  deleteRelationship,
  editRole,
  errorText,
  updateEntity,
  type EditedEntity,
  type EditRole,
} from './editApi.js';
import { Curator } from './Curator.js';
import { entityForm } from './EntityForm.js';
import type { GraphModel } from './GraphModel.js';
import { documentLinker } from './DocumentLinker.js';
import { deleteConfirmation, historyNote, relationshipTypeForm } from './editViews.js';

/** What the editor needs from the app. */
export interface EditorHost {
  readonly model: GraphModel;
  add(piece: GraphPiece, owner: (e: EntitySummary) => string | null): void;
  select(id: string | null): Promise<void>;
  graphChanged(alpha?: number): void;
  status(text: string, error?: boolean): void;
  task<T>(what: string, run: () => Promise<T>): Promise<T | undefined>;
  /** Loads an entity's neighbourhood again (after a merge or its undo rewired it). */
  reload(id: string): Promise<void>;
  readonly panel: { show(id: string): Promise<void>; showContent(content: HTMLElement): void };
}

type Mode = 'view' | 'edit' | 'delete' | 'link-document';

/** Holds the editing state (what the key may do, the panel's mode, "Link to…") and builds the panel's edit parts. */
export class Editor {
  role: EditRole = 'reader';
  /** The entity a "Link to…" started from, until the relationship is made or cancelled. */
  linkFromId: string | null = null;
  private mode: Mode = 'view';
  private note: string | null = null;
  private readonly curator: Curator;

  constructor(private readonly host: EditorHost) {
    const editor = this as Editor;
    this.curator = new Curator({
      host,
      get canEdit() {
        return editor.canEdit;
      },
      get canDelete() {
        return editor.canDelete;
      },
      done: (id, note) => this.done(id, note),
    });
  }

  /** Asks the server what the key may do; until it answers (or when it fails) the panel shows no edit controls. */
  async loadRole(): Promise<void> {
    try {
      this.role = await editRole();
    } catch {
      this.role = 'reader';
    }
  }

  get canEdit(): boolean {
    return this.role !== 'reader';
  }

  get canDelete(): boolean {
    return this.role === 'admin';
  }

  /** A new entity was selected: back to the plain view (a pending "Link to…" stays). */
  selected(): void {
    this.mode = 'view';
    this.note = null;
  }

  /** The panel's edit part for the selected entity: its controls, or the form, confirmation or linker it shows. */
  section(d: EntityDetail): HTMLElement | null {
    if (!this.canEdit) return null;
    const box = el('section', { className: 'editor', attrs: { 'aria-label': 'Edit' } });
    if (this.note) box.append(historyNote(this.note));
    if (this.linkFromId && this.linkFromId !== d.id) box.append(this.linkHere(d));
    const merge = this.curator.pending(d);
    if (merge) box.append(merge);
    if (this.mode === 'edit') box.append(this.editForm(d));
    else if (this.mode === 'delete')
      box.append(
        deleteConfirmation(
          d,
          () => void this.remove(d),
          () => this.back(d),
        ),
      );
    else if (this.mode === 'link-document')
      box.append(
        documentLinker(
          d,
          (title) => this.done(d.id, `Linked ${title}.`),
          () => this.back(d),
        ),
      );
    else box.append(this.controls(d));
    return box;
  }

  /** A relationship row's controls: accept when it is extracted (editors), delete (admins). */
  relationshipControl(relationshipId: string, origin: string, label: string, entityId: string): HTMLElement | null {
    const accept = this.curator.relationshipAccept(relationshipId, origin, label, entityId);
    if (!this.canDelete) return accept;
    const reject = this.curator.relationshipReject(relationshipId, origin, label, entityId);
    const remove = button('Delete', () => void this.removeRelationship(relationshipId, label, entityId), {
      className: 'quiet danger',
      attrs: { 'data-action': 'delete-relationship', 'aria-label': `Delete relationship ${label}` },
    });
    return el('span', { className: 'row-actions' }, ...[accept, reject].filter((b) => b !== null), remove);
  }

  /** An alt-drag from one node onto another: selects the target with the relationship form open. */
  linkDrop(fromId: string, toId: string): void {
    if (!this.canEdit) return;
    this.linkFromId = fromId;
    void this.host.select(toId);
  }

  /** Shows the create form in the panel. */
  newEntity(): void {
    this.host.panel.showContent(
      entityForm({
        title: 'New entity',
        submitLabel: 'Create',
        withId: true,
        save: (f) => createEntity(f),
        saved: (e) => void this.created(e),
        cancel: () => void this.host.select(null),
      }),
    );
  }

  private controls(d: EntityDetail): HTMLElement {
    const box = el('div', { className: 'actions' });
    const to = (mode: Mode) => () => {
      this.mode = mode;
      this.note = null;
      void this.reloadPanel(d.id);
    };
    box.append(button('Edit', to('edit'), { attrs: { 'data-action': 'edit' } }));
    box.append(
      button('Link to…', () => this.startLink(d), {
        attrs: { 'data-action': 'link-to', 'aria-pressed': String(this.linkFromId === d.id) },
      }),
    );
    box.append(button('Link a document', to('link-document'), { attrs: { 'data-action': 'link-document' } }));
    box.append(...this.curator.controls(d));
    if (this.canDelete)
      box.append(button('Delete…', to('delete'), { className: 'danger', attrs: { 'data-action': 'delete' } }));
    return box;
  }

  private editForm(d: EntityDetail): HTMLElement {
    return entityForm({
      title: `Edit ${d.name}`,
      submitLabel: 'Save',
      initial: d,
      save: (f) => updateEntity(d.id, f),
      saved: (e) => void this.updated(e),
      cancel: () => this.back(d),
    });
  }

  private startLink(d: EntityDetail): void {
    this.linkFromId = this.linkFromId === d.id ? null : d.id;
    this.host.status(this.linkFromId ? `Link from ${d.name}: select the other entity (click it or search).` : '');
    void this.reloadPanel(d.id);
  }

  private linkHere(d: EntityDetail): HTMLElement {
    const from = this.linkFromId as string;
    const fromName = this.host.model.nodes.get(from)?.name ?? from;
    return relationshipTypeForm(fromName, d.name, {
      save: async (type) => {
        const r = await createRelationship(from, d.id, type);
        this.linkFromId = null;
        this.host.add({ entities: [], relationships: [r], truncated: false }, () => null);
        this.host.status('');
        await this.done(d.id, `Linked ${fromName} ${r.type} ${d.name}.`);
      },
      cancel: () => {
        this.linkFromId = null;
        this.host.status('');
        void this.reloadPanel(d.id);
      },
    });
  }

  private async created(e: EditedEntity): Promise<void> {
    this.host.add({ entities: [e], relationships: [], truncated: false }, () => 'root');
    await this.host.select(e.id);
    await this.done(e.id, `Created ${e.name}.`);
  }

  private async updated(e: EditedEntity): Promise<void> {
    const node = this.host.model.nodes.get(e.id);
    if (node) Object.assign(node, { type: e.type, name: e.name, origin: e.origin });
    this.host.graphChanged(0);
    await this.done(e.id, `Saved ${e.name}.`);
  }

  private async remove(d: EntityDetail): Promise<void> {
    try {
      await deleteEntity(d.id);
    } catch (e) {
      this.host.status(`Delete failed: ${errorText(e)}`, true);
      return;
    }
    if (this.linkFromId === d.id) this.linkFromId = null;
    this.host.model.removeEntity(d.id);
    this.host.graphChanged(0.3);
    await this.host.select(null);
    this.host.panel.showContent(historyNote(`Deleted ${d.name} with its relationships and mention links.`));
  }

  private async removeRelationship(id: string, label: string, entityId: string): Promise<void> {
    try {
      await deleteRelationship(id);
    } catch (e) {
      this.host.status(`Delete failed: ${errorText(e)}`, true);
      return;
    }
    this.host.model.removeRelationship(id);
    this.host.graphChanged(0.3);
    await this.done(entityId, `Deleted relationship ${label}.`);
  }

  private back(d: EntityDetail): void {
    this.mode = 'view';
    void this.reloadPanel(d.id);
  }

  private async reloadPanel(id: string): Promise<void> {
    await this.host.task('Loading details', () => this.host.panel.show(id));
  }

  private async done(id: string, note: string): Promise<void> {
    this.mode = 'view';
    this.note = note;
    await this.reloadPanel(id);
  }
}
