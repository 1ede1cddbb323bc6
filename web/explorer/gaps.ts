// The "Gaps" view: entities with no relationship and entities no document mentions.
// The API has no filter for either, so this pages through `entities` and checks each one (bounded per scan).
import { gapsPage, graphStats, type EntitySummary } from './api.js';
import type { TypeColors } from './colors.js';
import { button, el } from './dom.js';

/** What the gaps view asks the app to do. */
export interface GapsActions {
  select(id: string): void;
  /** Marks these entities in the graph (loading them when needed); an empty list clears the marks. */
  highlight(entities: EntitySummary[]): void;
}

const PAGES_PER_SCAN = 20;
const MAX_LISTED = 200;

/** Scans the graph for gaps and lists them in `root`. */
export class GapsView {
  private orphans: EntitySummary[] = [];
  private unmentioned: EntitySummary[] = [];
  private scanned = 0;
  private total = 0;
  private orphanCount: number | null = null;
  private cursor: string | null = null;
  private done = false;
  private scanning = false;

  constructor(
    private readonly root: HTMLElement,
    private readonly colors: TypeColors,
    private readonly actions: GapsActions,
  ) {}

  /** Whether the view is showing. */
  get open(): boolean {
    return !this.root.hidden;
  }

  /** Shows the view, starting a fresh scan. */
  async show(): Promise<void> {
    this.root.hidden = false;
    this.orphans = [];
    this.unmentioned = [];
    this.scanned = 0;
    this.cursor = null;
    this.done = false;
    this.orphanCount = (await graphStats()).orphanCount;
    await this.scan();
  }

  /** Hides the view and clears its highlight. */
  hide(): void {
    this.root.hidden = true;
    this.actions.highlight([]);
  }

  private async scan(): Promise<void> {
    if (this.scanning) return;
    this.scanning = true;
    this.render();
    try {
      for (let i = 0; i < PAGES_PER_SCAN && !this.done; i++) {
        const page = await gapsPage(this.cursor);
        this.total = page.total;
        this.scanned += page.nodes.length;
        for (const n of page.nodes) {
          const summary = { id: n.id, type: n.type, name: n.name };
          if (n.relationships.length === 0) this.orphans.push(summary);
          if (n.documents.length === 0) this.unmentioned.push(summary);
        }
        this.cursor = page.endCursor;
        this.done = !page.hasNextPage;
      }
    } finally {
      this.scanning = false;
      this.render();
    }
  }

  private render(): void {
    const status = this.scanning ? `Scanning… ${this.scanned} of ${this.total || '?'} entities checked.` : `${this.scanned} of ${this.total} entities checked.`;
    this.root.replaceChildren(
      el('div', { className: 'panel-head' }, el('h2', { text: 'Gaps' }), button('Close', () => this.hide(), { className: 'quiet', attrs: { 'aria-label': 'Close the gaps view' } })),
      el('p', { className: 'muted', text: status, attrs: { 'data-field': 'gaps-status', 'aria-live': 'polite' } }),
      ...(!this.done && !this.scanning ? [button('Scan further', () => void this.scan())] : []),
      el('div', { className: 'actions' },
        button('Highlight in graph', () => this.actions.highlight(dedupe([...this.orphans, ...this.unmentioned]).slice(0, MAX_LISTED))),
        button('Clear highlight', () => this.actions.highlight([]))),
      this.section('No relationships', 'orphans', this.orphans, this.orphanCount === null ? '' : `The graph counts ${this.orphanCount} in all.`),
      this.section('Not mentioned by any document', 'unmentioned', this.unmentioned, ''),
    );
  }

  private section(title: string, key: string, items: EntitySummary[], note: string): HTMLElement {
    const list = el('ul', { className: 'gap-list', attrs: { 'data-list': key } });
    for (const e of items.slice(0, MAX_LISTED)) {
      const swatch = el('span', { className: 'swatch', attrs: { 'aria-hidden': 'true' } });
      swatch.style.background = this.colors.of(e.type);
      const pick = button('', () => this.actions.select(e.id), { className: 'linklike', attrs: { 'data-id': e.id } });
      pick.append(swatch, e.name);
      list.append(el('li', {}, pick, el('span', { className: 'muted', text: e.type })));
    }
    if (items.length > MAX_LISTED) list.append(el('li', { className: 'muted', text: `…and ${items.length - MAX_LISTED} more` }));
    return el('section', {}, el('h3', { text: `${title} (${items.length}${this.done ? '' : '+'})` }), note ? el('p', { className: 'muted small', text: note }) : null, items.length ? list : el('p', { className: 'muted', text: 'None found.' }));
  }
}

function dedupe(list: EntitySummary[]): EntitySummary[] {
  return [...new Map(list.map((e) => [e.id, e])).values()];
}
