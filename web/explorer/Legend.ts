// The legend: entity types with their colours and relationship types; each entry toggles its type's visibility.
import type { TypeColors } from './TypeColors.js';
import { button, el } from './dom.js';
import type { GraphModel } from './GraphModel.js';
import type { ViewState } from './ViewState.js';

/** Where entities come from, in the order the legend lists them. */
const ORIGINS = ['MANUAL', 'IMPORTED', 'EXTRACTED'];

/** Renders the legend into `root`; call `update` after the loaded graph changes. */
export class Legend {
  /** Entity counts by type across the whole graph (from graphStats). */
  totals = new Map<string, number>();
  /** Relationship counts by type across the whole graph (from graphStats). */
  relationshipTotals = new Map<string, number>();
  /** Folded down to its toggle, so that it covers no nodes. */
  private collapsed = false;

  constructor(
    private readonly root: HTMLElement,
    private readonly model: GraphModel,
    private readonly view: ViewState,
    private readonly colors: TypeColors,
    private readonly changed: () => void,
  ) {}

  /** The button that folds the legend away or opens it again. */
  private foldButton(): HTMLElement {
    const b = button(this.collapsed ? 'Legend' : 'Hide legend', () => {
      this.collapsed = !this.collapsed;
      this.update();
      this.root.querySelector<HTMLElement>('[data-action=legend-toggle]')?.focus();
    });
    b.className = 'quiet legend-toggle';
    b.dataset.action = 'legend-toggle';
    b.setAttribute('aria-expanded', String(!this.collapsed));
    return b;
  }

  /** Rebuilds both lists from the loaded nodes and links. */
  update(): void {
    this.root.classList.toggle('collapsed', this.collapsed);
    if (this.collapsed) {
      this.root.replaceChildren(this.foldButton());
      return;
    }
    const nodeTypes = new Map<string, number>([...this.totals.keys()].map((t) => [t, 0]));
    for (const n of this.model.nodes.values()) nodeTypes.set(n.type, (nodeTypes.get(n.type) ?? 0) + 1);
    const linkTypes = new Map<string, number>([...this.relationshipTotals.keys()].map((t) => [t, 0]));
    for (const l of this.model.links.values()) linkTypes.set(l.type, (linkTypes.get(l.type) ?? 0) + 1);
    const focused =
      document.activeElement instanceof HTMLElement && this.root.contains(document.activeElement)
        ? document.activeElement.dataset.key
        : undefined;

    const entityList = el('ul', { attrs: { 'aria-label': 'Entity types' } });
    for (const [type, loaded] of [...nodeTypes].sort((a, b) => a[0].localeCompare(b[0]))) {
      const total = this.totals.get(type);
      const swatch = el('span', { className: 'swatch', attrs: { 'aria-hidden': 'true' } });
      swatch.style.background = this.colors.of(type);
      entityList.append(
        el(
          'li',
          {},
          this.toggle(
            this.view.hiddenTypes,
            type,
            `node:${type}`,
            swatch,
            total === undefined ? `${loaded}` : `${loaded}/${total}`,
          ),
        ),
      );
    }
    const relList = el('ul', { attrs: { 'aria-label': 'Relationship types' } });
    for (const [type, loaded] of [...linkTypes].sort((a, b) => a[0].localeCompare(b[0]))) {
      const total = this.relationshipTotals.get(type);
      const line = el('span', { className: 'line-swatch', attrs: { 'aria-hidden': 'true' } });
      line.style.background = this.colors.ofRelationship(type);
      relList.append(
        el(
          'li',
          {},
          this.toggle(
            this.view.hiddenRelationshipTypes,
            type,
            `rel:${type}`,
            line,
            total === undefined ? `${loaded}` : `${loaded}/${total}`,
          ),
        ),
      );
    }
    const origins = new Map<string, number>(ORIGINS.map((o) => [o, 0]));
    for (const n of this.model.nodes.values()) origins.set(n.origin, (origins.get(n.origin) ?? 0) + 1);
    const originList = el('ul', { attrs: { 'aria-label': 'Origins' } });
    for (const [origin, loaded] of origins) {
      const marker = el('span', {
        className: origin === 'EXTRACTED' ? 'origin-swatch extracted' : 'origin-swatch',
        attrs: { 'aria-hidden': 'true' },
      });
      originList.append(
        el('li', {}, this.toggle(this.view.hiddenOrigins, origin, `origin:${origin}`, marker, `${loaded}`)),
      );
    }
    this.root.replaceChildren(
      this.foldButton(),
      el('h2', { text: 'Entity types' }),
      entityList,
      el('h2', { text: 'Origin' }),
      originList,
      el('p', {
        className: 'muted small',
        text: 'Extracted facts (built from document text) are dashed.',
      }),
      el('h2', { text: 'Relationship types' }),
      linkTypes.size ? relList : el('p', { className: 'muted', text: 'None loaded.' }),
      el('p', { className: 'muted small', text: 'Click a type to hide or show it.' }),
    );
    if (focused) this.root.querySelector<HTMLElement>(`[data-key="${CSS.escape(focused)}"]`)?.focus();
  }

  private toggle(
    hidden: Set<string>,
    type: string,
    key: string,
    marker: HTMLElement,
    count: string,
  ): HTMLButtonElement {
    const b = button(
      '',
      () => {
        if (hidden.has(type)) hidden.delete(type);
        else hidden.add(type);
        this.update();
        this.changed();
      },
      {
        className: 'legend-item',
        attrs: { 'aria-pressed': String(!hidden.has(type)), 'data-key': key, title: `Show or hide ${type}` },
      },
    );
    b.append(
      marker,
      el('span', { className: 'legend-name', text: type }),
      el('span', { className: 'count', text: count }),
    );
    return b;
  }
}
