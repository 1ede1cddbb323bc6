// The shortest-path tool: "Path from here" / "Path to here" (or shift-click), and the bar that spells the path out.
import { shortestPath, type EntitySummary, type GraphPiece, type RelationshipSummary } from './api.js';
import { button, el } from './dom.js';
import type { GraphModel, GraphNode } from './GraphModel.js';
import type { ViewState } from './ViewState.js';

/** What the path tool needs from the app. */
export interface PathHost {
  readonly model: GraphModel;
  readonly view: ViewState;
  select(id: string): Promise<void>;
  add(piece: GraphPiece, owner: (e: EntitySummary) => string | null, near?: GraphNode): void;
  task<T>(what: string, run: () => Promise<T>): Promise<T | undefined>;
  refresh(): void;
}

/** Asks for shortest paths, highlights them (through the view state) and renders the bar in `root`. */
export class PathTool {
  constructor(
    private readonly root: HTMLElement,
    private readonly host: PathHost,
  ) {}

  /** Starts the tool at an entity (again on the same entity cancels it). */
  from(id: string): void {
    const view = this.host.view;
    view.pathFromId = view.pathFromId === id ? null : id;
    view.path = null;
    const name = this.host.model.nodes.get(id)?.name ?? id;
    if (view.pathFromId)
      this.message(`Path from ${name}: shift-click an entity, or choose "Path to here" in its panel.`, 'Cancel');
    else this.hide();
    this.host.refresh();
  }

  /** Asks for the shortest path from the tool's start (or the selection) to `toId` and highlights it. */
  async to(toId: string): Promise<void> {
    const { view, model } = this.host;
    const from = view.pathFromId ?? view.selectedId;
    if (!from || from === toId) return;
    const result = await this.host.task('Finding a path', async () => ({ path: await shortestPath(from, toId) }));
    if (!result) return;
    view.pathFromId = null;
    const { path } = result;
    if (!path) {
      view.path = null;
      this.message('No path within 6 hops between these entities.');
    } else {
      this.host.add(
        { entities: path.entities, relationships: path.relationships, truncated: false },
        () => 'path',
        model.nodes.get(from),
      );
      view.path = { nodeIds: path.entities.map((e) => e.id), linkIds: path.relationships.map((r) => r.id) };
      this.show(path.entities, path.relationships);
    }
    this.host.refresh();
  }

  /** Removes the highlight and cancels the tool. */
  clear(): void {
    this.host.view.path = null;
    this.host.view.pathFromId = null;
    this.hide();
    this.host.refresh();
  }

  // "A —TYPE→ B ←TYPE— C", each name a button that selects the entity.
  private show(entities: EntitySummary[], relationships: RelationshipSummary[]): void {
    const steps = el('span', { className: 'path-steps', attrs: { 'data-field': 'path' } });
    entities.forEach((e, i) => {
      steps.append(
        button(e.name, () => void this.host.select(e.id), { className: 'linklike', attrs: { 'data-id': e.id } }),
      );
      const r = relationships[i];
      if (r)
        steps.append(
          el('span', { className: 'rel-type', text: r.from.id === e.id ? ` —${r.type}→ ` : ` ←${r.type}— ` }),
        );
    });
    const hops = relationships.length;
    this.fill(el('strong', { text: `Shortest path, ${hops} hop${hops === 1 ? '' : 's'}: ` }), steps, 'Clear path');
  }

  private message(text: string, action = 'Clear path'): void {
    this.fill(el('span', { text }), null, action);
  }

  private hide(): void {
    this.root.hidden = true;
    this.root.replaceChildren();
  }

  private fill(label: HTMLElement, body: HTMLElement | null, action: string): void {
    this.root.hidden = false;
    this.root.replaceChildren(
      label,
      ...(body ? [body] : []),
      button(action, () => this.clear(), { className: 'quiet', attrs: { 'data-action': 'clear-path' } }),
    );
  }
}
