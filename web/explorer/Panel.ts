// The side panel: everything about the selected entity, with its expand, pin and path controls.
import { entityDetail, type EntityDetail } from './api.js';
import type { TypeColors } from './TypeColors.js';
import { button, el } from './dom.js';
import type { GraphModel } from './GraphModel.js';
import type { ViewState } from './ViewState.js';

/** What the panel's buttons ask the app to do. */
export interface PanelActions {
  select(id: string): void;
  expand(id: string): void;
  collapse(id: string): void;
  loadMore(id: string): void;
  togglePin(id: string): void;
  pathFrom(id: string): void;
  pathTo(id: string): void;
  center(id: string): void;
  close(): void;
  /** Shows the documents mentioning the entity as nodes linked to it, or hides them again. */
  toggleDocuments(id: string, documents: EntityDetail['documents']): void;
  documentsShown(id: string): boolean;
}

/** The editor's parts of the panel (none for keys that may not edit). */
export interface PanelEditing {
  section(d: EntityDetail): HTMLElement | null;
  relationshipControl(relationshipId: string, origin: string, label: string, entityId: string): HTMLElement | null;
}

const MAX_RELATIONSHIPS = 100;

/** Renders the selected entity into the panel element; all API text goes through textContent. */
export class Panel {
  private detail: EntityDetail | null = null;
  private request = 0;

  constructor(
    private readonly root: HTMLElement,
    private readonly colors: TypeColors,
    private readonly model: GraphModel,
    private readonly view: ViewState,
    private readonly actions: PanelActions,
    private readonly editing?: PanelEditing,
  ) {}

  /** The entity the panel shows, if any. */
  get entityId(): string | null {
    return this.detail?.id ?? null;
  }

  /** Loads and shows an entity; a later call wins over a slower earlier one. */
  async show(id: string): Promise<void> {
    const ticket = ++this.request;
    this.root.hidden = false;
    if (this.detail?.id !== id) this.root.replaceChildren(el('p', { className: 'muted', text: 'Loading…' }));
    const detail = await entityDetail(id);
    if (ticket !== this.request) return;
    this.detail = detail;
    if (!detail) {
      this.root.replaceChildren(el('p', { className: 'muted', text: `No entity with id ${id}.` }));
      return;
    }
    this.render();
  }

  /** Shows something other than an entity (the new-entity form, a note after a delete). */
  showContent(content: HTMLElement): void {
    this.request++;
    this.detail = null;
    this.root.hidden = false;
    this.root.replaceChildren(content);
  }

  /** Closes the panel. */
  hide(): void {
    this.request++;
    this.detail = null;
    this.root.hidden = true;
    this.root.replaceChildren();
  }

  /** Redraws the panel (e.g. after expand or pin), keeping keyboard focus on the same control. */
  render(): void {
    const d = this.detail;
    if (!d) return;
    const focused =
      document.activeElement instanceof HTMLElement && this.root.contains(document.activeElement)
        ? document.activeElement.dataset.action
        : undefined;
    const swatch = el('span', { className: 'swatch', attrs: { 'aria-hidden': 'true' } });
    swatch.style.background = this.colors.of(d.type);
    this.root.replaceChildren(
      el(
        'div',
        { className: 'panel-head' },
        el(
          'div',
          {},
          el('div', { className: 'type-line' }, swatch, el('span', { text: d.type, attrs: { 'data-field': 'type' } })),
          el('h2', { text: d.name, attrs: { 'data-field': 'name' } }),
        ),
        button('Close', () => this.actions.close(), {
          className: 'quiet',
          attrs: { 'data-action': 'close', 'aria-label': 'Close the details panel' },
        }),
      ),
      this.controls(d.id),
      ...[this.editing?.section(d) ?? []].flat(),
      el(
        'dl',
        { className: 'facts' },
        el('dt', { text: 'Id' }),
        el('dd', { text: d.id, className: 'mono' }),
        el('dt', { text: 'Origin' }),
        el('dd', { text: d.origin, attrs: { 'data-field': 'origin' } }),
        el('dt', { text: 'Aliases' }),
        el('dd', { text: d.aliases.length ? d.aliases.join(', ') : '—', attrs: { 'data-field': 'aliases' } }),
        el('dt', { text: 'Description' }),
        el('dd', { text: d.description ?? '—', attrs: { 'data-field': 'description' } }),
      ),
      el('h3', { text: 'Properties' }),
      el('pre', {
        className: 'json',
        text: JSON.stringify(d.properties, null, 2),
        attrs: { 'data-field': 'properties' },
      }),
      el('h3', { text: `Relationships (${d.relationships.length})` }),
      this.relationships(d),
      el('h3', { text: `Documents (${d.documents.length})` }),
      this.documents(d),
      ...(d.evidence.totalCount > 0
        ? [el('h3', { text: `Evidence (${d.evidence.totalCount})` }), this.evidence(d)]
        : []),
    );
    if (focused) this.root.querySelector<HTMLElement>(`[data-action="${focused}"]`)?.focus();
  }

  private controls(id: string): HTMLElement {
    const node = this.model.nodes.get(id);
    const a = this.actions;
    const box = el('div', { className: 'actions' });
    if (!node) box.append(button('Show in graph', () => a.select(id), { attrs: { 'data-action': 'show' } }));
    else if (node.expanded)
      box.append(button('Collapse', () => a.collapse(id), { attrs: { 'data-action': 'collapse' } }));
    else box.append(button('Expand', () => a.expand(id), { attrs: { 'data-action': 'expand' } }));
    if (node && node.more.length > 0) {
      const label = `+${node.more.length}${node.moreCapped ? '+' : ''} more`;
      box.append(
        button(label, () => a.loadMore(id), {
          attrs: { 'data-action': 'more', 'aria-label': `Load ${label} neighbours` },
        }),
      );
    }
    if (node)
      box.append(button(node.fx != null ? 'Unpin' : 'Pin', () => a.togglePin(id), { attrs: { 'data-action': 'pin' } }));
    if (node) box.append(button('Centre', () => a.center(id), { attrs: { 'data-action': 'center' } }));
    box.append(
      button('Path from here', () => a.pathFrom(id), {
        attrs: { 'data-action': 'path-from', 'aria-pressed': String(this.view.pathFromId === id) },
      }),
    );
    const to = button('Path to here', () => a.pathTo(id), { attrs: { 'data-action': 'path-to' } });
    to.disabled = !this.view.pathFromId || this.view.pathFromId === id;
    to.title = to.disabled ? 'Choose "Path from here" on another entity first (or shift-click in the graph)' : '';
    box.append(to);
    return box;
  }

  private relationships(d: EntityDetail): HTMLElement {
    if (d.relationships.length === 0) return el('p', { className: 'muted', text: 'No relationships.' });
    const list = el('ul', { className: 'rels', attrs: { 'data-field': 'relationships' } });
    const sorted = [...d.relationships].sort(
      (x, y) => Number(x.from.id !== d.id) - Number(y.from.id !== d.id) || x.type.localeCompare(y.type),
    );
    for (const r of sorted.slice(0, MAX_RELATIONSHIPS)) {
      const out = r.from.id === d.id;
      const other = out ? r.to : r.from;
      list.append(
        el(
          'li',
          {},
          el('span', { className: 'dir', text: out ? '→' : '←', attrs: { title: out ? 'outgoing' : 'incoming' } }),
          el('span', { className: 'rel-type', text: r.type }),
          button(other.name, () => this.actions.select(other.id), {
            className: 'linklike',
            attrs: { title: `Select ${other.name}` },
          }),
          el('span', { className: 'muted', text: other.type }),
          ...(r.origin === 'EXTRACTED'
            ? [el('span', { className: 'origin-tag', text: 'extracted', attrs: { 'data-field': 'rel-origin' } })]
            : []),
          this.editing?.relationshipControl(r.id, r.origin, `${r.from.name} ${r.type} ${r.to.name}`, d.id),
        ),
      );
    }
    if (sorted.length > MAX_RELATIONSHIPS)
      list.append(el('li', { className: 'muted', text: `…and ${sorted.length - MAX_RELATIONSHIPS} more` }));
    return list;
  }

  /** Where extraction found the entity: quotes linking to their documents. */
  private evidence(d: EntityDetail): HTMLElement {
    const list = el('ul', { className: 'evidence', attrs: { 'data-field': 'evidence' } });
    for (const e of d.evidence.nodes) {
      const source = e.document
        ? el('a', {
            text: e.document.title,
            attrs: { href: `/knowledge/${encodeURIComponent(e.document.id)}`, title: 'Open in the document inspector' },
          })
        : el('span', { className: 'muted', text: 'document gone' });
      list.append(
        el(
          'li',
          {},
          el('q', { text: e.quote }),
          source,
          el('span', { className: 'muted', text: `${e.extractor} · ${e.confidence.toFixed(2)}` }),
        ),
      );
    }
    if (d.evidence.totalCount > d.evidence.nodes.length)
      list.append(
        el('li', { className: 'muted', text: `…and ${d.evidence.totalCount - d.evidence.nodes.length} more` }),
      );
    return list;
  }

  private documents(d: EntityDetail): HTMLElement {
    if (d.documents.length === 0) return el('p', { className: 'muted', text: 'No document mentions this entity.' });
    const shown = this.actions.documentsShown(d.id);
    const toggle = button(
      shown ? 'Hide documents in graph' : 'Show documents in graph',
      () => this.actions.toggleDocuments(d.id, d.documents),
      { attrs: { 'data-action': 'toggle-documents', 'aria-pressed': String(shown) } },
    );
    toggle.disabled = !this.model.nodes.has(d.id);
    const list = el('ul', { className: 'docs', attrs: { 'data-field': 'documents' } });
    for (const doc of d.documents) {
      list.append(
        el(
          'li',
          {},
          el('a', {
            text: doc.title,
            attrs: { href: `/knowledge/${encodeURIComponent(doc.id)}`, title: 'Open in the document inspector' },
          }),
          el('span', { className: 'muted', text: [doc.documentType, doc.source].filter(Boolean).join(' · ') }),
        ),
      );
    }
    return el('div', {}, toggle, list);
  }
}
