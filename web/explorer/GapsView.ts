// The "Gaps" view: entities with no relationship and entities no document mentions. Each list pages by name through
// `entities(filter: { hasRelationships: false })` / `{ hasDocuments: false }`, whose totalCount is the exact count.
import { gapPage, type EntitySummary, type GapKind } from './api.js';
import type { TypeColors } from './TypeColors.js';
import { button, el } from './dom.js';

/** What the gaps view asks the app to do. */
export interface GapsActions {
  select(id: string): void;
  /** Marks these entities in the graph (loading them when needed); an empty list clears the marks. */
  highlight(entities: EntitySummary[]): void;
}

/** One gap list: the entities loaded so far and where the next page starts. */
interface GapList {
  items: EntitySummary[];
  total: number | null;
  cursor: string | null;
  more: boolean;
  loading: boolean;
  error: string | null;
}

const PAGE = 100;
const MAX_HIGHLIGHTED = 200;
const KINDS: { kind: GapKind; title: string }[] = [
  { kind: 'orphans', title: 'No relationships' },
  { kind: 'unmentioned', title: 'Not mentioned by any document' },
];

const emptyList = (): GapList => ({ items: [], total: null, cursor: null, more: true, loading: false, error: null });

/** Lists the graph's gaps in `root`, a page at a time. */
export class GapsView {
  private lists: Record<GapKind, GapList> = { orphans: emptyList(), unmentioned: emptyList() };

  constructor(
    private readonly root: HTMLElement,
    private readonly colors: TypeColors,
    private readonly actions: GapsActions,
  ) {}

  /** Whether the view is showing. */
  get open(): boolean {
    return !this.root.hidden;
  }

  /** Shows the view with the first page of both lists (fetched together, so they appear at once). */
  async show(): Promise<void> {
    this.root.hidden = false;
    const lists = { orphans: emptyList(), unmentioned: emptyList() };
    this.lists = lists;
    lists.orphans.loading = lists.unmentioned.loading = true;
    this.render();
    try {
      const [orphans, unmentioned] = await Promise.all([
        gapPage('orphans', null, PAGE),
        gapPage('unmentioned', null, PAGE),
      ]);
      if (this.lists !== lists) return; // a newer show() started over
      apply(lists.orphans, orphans);
      apply(lists.unmentioned, unmentioned);
    } finally {
      lists.orphans.loading = lists.unmentioned.loading = false;
      if (this.lists === lists) this.render();
    }
  }

  /** Hides the view and clears its highlight. */
  hide(): void {
    this.root.hidden = true;
    this.actions.highlight([]);
  }

  private async more(kind: GapKind): Promise<void> {
    const list = this.lists[kind];
    if (list.loading || !list.more) return;
    list.loading = true;
    list.error = null;
    this.render();
    try {
      apply(list, await gapPage(kind, list.cursor, PAGE));
    } catch (e) {
      list.error = e instanceof Error ? e.message : String(e);
    } finally {
      list.loading = false;
      if (this.lists[kind] === list) this.render();
    }
  }

  private render(): void {
    const { orphans, unmentioned } = this.lists;
    const status =
      orphans.total === null || unmentioned.total === null
        ? 'Looking for gaps…'
        : `${orphans.total} without relationships, ${unmentioned.total} not mentioned by any document.`;
    this.root.replaceChildren(
      el(
        'div',
        { className: 'panel-head' },
        el('h2', { text: 'Gaps' }),
        button('Close', () => this.hide(), { className: 'quiet', attrs: { 'aria-label': 'Close the gaps view' } }),
      ),
      el('p', { className: 'muted', text: status, attrs: { 'data-field': 'gaps-status', 'aria-live': 'polite' } }),
      el(
        'div',
        { className: 'actions' },
        button('Highlight in graph', () =>
          this.actions.highlight(dedupe([...orphans.items, ...unmentioned.items]).slice(0, MAX_HIGHLIGHTED)),
        ),
        button('Clear highlight', () => this.actions.highlight([])),
      ),
      ...KINDS.map(({ kind, title }) => this.section(title, kind)),
    );
  }

  private section(title: string, kind: GapKind): HTMLElement {
    const { items, total, more, loading, error } = this.lists[kind];
    const list = el('ul', { className: 'gap-list', attrs: { 'data-list': kind } });
    for (const e of items) {
      const swatch = el('span', { className: 'swatch', attrs: { 'aria-hidden': 'true' } });
      swatch.style.background = this.colors.of(e.type);
      const pick = button('', () => this.actions.select(e.id), { className: 'linklike', attrs: { 'data-id': e.id } });
      pick.append(swatch, e.name);
      list.append(el('li', {}, pick, el('span', { className: 'muted', text: e.type })));
    }
    const shown =
      total !== null && total > items.length
        ? el('p', { className: 'muted small', text: `Showing ${items.length} of ${total}.` })
        : null;
    const next =
      more && total !== null && !loading
        ? button('Show more', () => void this.more(kind), { attrs: { 'aria-label': `Show more: ${title}` } })
        : null;
    return el(
      'section',
      {},
      el('h3', { text: `${title} (${total ?? '…'})` }),
      items.length ? list : el('p', { className: 'muted', text: loading ? 'Loading…' : 'None found.' }),
      shown,
      next,
      error ? el('p', { className: 'gap-error small', attrs: { role: 'alert' }, text: error }) : null,
    );
  }
}

function apply(list: GapList, page: Awaited<ReturnType<typeof gapPage>>): void {
  list.items.push(...page.nodes);
  list.total = page.total;
  list.cursor = page.endCursor;
  list.more = page.hasNextPage;
}

function dedupe(list: EntitySummary[]): EntitySummary[] {
  return [...new Map(list.map((e) => [e.id, e])).values()];
}
