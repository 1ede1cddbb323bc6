// The explorer's actions: loading pieces of the graph, expand/collapse, selection, paths, pins, gaps and the camera.
import { graphStats, neighborIds, subgraph, type EntitySummary, type GraphPiece } from './api.js';
import { TypeColors } from './TypeColors.js';
import { Engine } from './Engine.js';
import { GapsView } from './GapsView.js';
import { Interaction } from './Interaction.js';
import { Legend } from './Legend.js';
import { expandOwner, GraphModel, type GraphNode } from './GraphModel.js';
import { Panel } from './Panel.js';
import { Editor } from './Editor.js';
import { PathTool } from './PathTool.js';
import { DOCUMENT_FILL, DOCUMENT_TYPE, DocumentNodes, isDocumentNode } from './DocumentNodes.js';
import { ViewState } from './ViewState.js';

/** The page elements the app draws into. */
export interface AppElements {
  canvas: HTMLCanvasElement;
  panel: HTMLElement;
  legend: HTMLElement;
  gaps: HTMLElement;
  pathbar: HTMLElement;
  status: HTMLElement;
}

/** Neighbours one expansion loads. */
export const EXPAND_LIMIT = 100;
// "+N more" loads the next ones through subgraph, which takes at most 100 seeds: the entity plus 99.
const MORE_BATCH = 99;
// Entity.neighbors lists at most this many, so a count that reaches it reads "500+".
const NEIGHBOR_COUNT_CAP = 500;

/** Wires the model, view, canvas and panels together and carries out what the user asks. */
export class App {
  readonly model = new GraphModel();
  readonly view = new ViewState();
  readonly colors = new TypeColors();
  readonly engine: Engine;
  readonly interaction: Interaction;
  readonly panel: Panel;
  readonly legend: Legend;
  readonly gaps: GapsView;
  /** Requests in flight; the stats hook exposes it so tests can wait for quiet. */
  busy = 0;
  readonly paths: PathTool;
  readonly editor: Editor;
  readonly documents = new DocumentNodes(this.model);

  constructor(private readonly els: AppElements) {
    this.colors.fix(DOCUMENT_TYPE, DOCUMENT_FILL);
    this.engine = new Engine(els.canvas, this.model, this.view, this.colors);
    this.interaction = new Interaction(els.canvas, this.engine, this.model, this.view, {
      select: (id, shift) => void this.select(id, shift),
      toggleExpand: (id) => void this.toggleExpand(id),
      linkDrop: (fromId, toId) => {
        if (!isDocumentNode(fromId) && !isDocumentNode(toId)) this.editor.linkDrop(fromId, toId);
      },
      escape: () => (this.view.path || this.view.pathFromId ? this.paths.clear() : void this.select(null)),
    });
    this.editor = new Editor(this);
    this.panel = new Panel(
      els.panel,
      this.colors,
      this.model,
      this.view,
      {
        select: (id) => void this.select(id),
        expand: (id) => void this.toggleExpand(id),
        collapse: (id) => void this.toggleExpand(id),
        loadMore: (id) => void this.loadMore(id),
        togglePin: (id) => this.togglePin(id),
        pathFrom: (id) => this.paths.from(id),
        pathTo: (id) => void this.paths.to(id),
        center: (id) => this.center(id),
        close: () => void this.select(null),
        toggleDocuments: (id, documents) => {
          this.documents.toggle(id, documents);
          this.graphChanged(0.5);
        },
        documentsShown: (id) => this.documents.showing(id),
      },
      this.editor,
    );
    this.legend = new Legend(els.legend, this.model, this.view, this.colors, () => this.engine.request());
    this.gaps = new GapsView(els.gaps, this.colors, {
      select: (id) => void this.select(id),
      highlight: (list) => this.highlightGaps(list),
    });
    this.paths = new PathTool(els.pathbar, this);
    this.engine.beforeDraw = () => this.followCamera();
  }

  /** Shows a line in the status area (read out by screen readers). */
  status(text: string, error = false): void {
    this.els.status.textContent = text;
    this.els.status.classList.toggle('error', error);
  }

  /** Fetches graph counts for the legend and fixes the type colours in the server's order. */
  async loadStats(): Promise<Awaited<ReturnType<typeof graphStats>> | undefined> {
    const stats = await this.task('Loading graph counts', graphStats);
    if (stats) {
      this.legend.totals = new Map(stats.byType.map((t) => [t.key, t.count]));
      this.legend.relationshipTotals = new Map(stats.relationshipsByType.map((t) => [t.key, t.count]));
      this.colors.seed([...this.legend.totals.keys()].sort());
      this.colors.seedRelationships([...this.legend.relationshipTotals.keys()].sort());
      this.legend.update();
    }
    return stats;
  }

  /** Loads an entity with its neighbourhood (`depth` hops, at most `limit` entities), selects it and centres on it. */
  async open(id: string, depth = 1, limit = EXPAND_LIMIT + 1): Promise<void> {
    const found = await this.task('Loading', () => this.loadAround(id, depth, limit, true));
    if (found === false) this.status(`No entity with id ${id}.`, true);
    if (!found) return;
    this.view.follow = { id };
    await this.select(id);
  }

  /** Replaces the canvas with the neighbourhood of the most connected entities. */
  async overview(depth: number, limit: number): Promise<void> {
    const stats = await this.loadStats();
    const seeds = stats?.topDegree.map((d) => d.entity.id) ?? [];
    if (seeds.length === 0) {
      if (stats) this.status('The graph is empty.');
      document.getElementById('empty-graph')?.removeAttribute('hidden');
      return;
    }
    const piece = await this.task('Loading the overview', () => subgraph(seeds, depth, limit));
    if (!piece) return;
    this.model.clear();
    this.add(piece, () => 'root');
    this.view.follow = 'all';
    this.status(
      `Showing ${piece.entities.length} entities around the ${seeds.length} most connected${piece.truncated ? ` (limited to ${limit})` : ''}.`,
    );
  }

  /** Selects an entity (loading it when needed) and shows its panel; shift asks for a path to it; null deselects. */
  async select(id: string | null, shift = false): Promise<void> {
    const from = this.view.pathFromId ?? this.view.selectedId;
    if (shift && id && from && from !== id && !isDocumentNode(id) && !isDocumentNode(from)) {
      this.view.pathFromId = from;
      await this.paths.to(id);
      return;
    }
    if (id !== this.view.selectedId) this.editor.selected();
    this.view.selectedId = id;
    this.syncUrl();
    this.status('');
    this.engine.request();
    if (!id) {
      this.panel.hide();
      return;
    }
    if (isDocumentNode(id)) {
      this.showDocumentCard(id);
      return;
    }
    if (!this.model.nodes.has(id)) {
      if (!(await this.task('Loading', () => this.loadAround(id, 1, EXPAND_LIMIT + 1, true)))) return;
      this.view.follow = { id };
    }
    await this.task('Loading details', () => this.panel.show(id));
  }

  /** Expands a node (loading up to 100 neighbours) or collapses it (hiding what its expansion brought). */
  async toggleExpand(id: string): Promise<void> {
    if (isDocumentNode(id)) return; // a document has no neighbourhood to load; its entity shows it
    const node = this.model.nodes.get(id);
    if (node?.expanded) {
      this.model.removeOwner(expandOwner(id));
      node.expanded = false;
      node.more = [];
      if (this.view.hoverId && !this.model.nodes.has(this.view.hoverId)) this.view.hoverId = null;
      this.graphChanged(0.3);
    } else {
      await this.task('Expanding', () => this.loadAround(id, 1, EXPAND_LIMIT + 1, false));
    }
  }

  /** Loads the next batch of an expanded node's neighbours ("+N more"). */
  async loadMore(id: string): Promise<void> {
    const node = this.model.nodes.get(id);
    if (!node || node.more.length === 0) return;
    const batch = node.more.slice(0, MORE_BATCH);
    // With the entity and the batch as seeds and limit = their count, subgraph returns exactly them and their links.
    const piece = await this.task('Loading more neighbours', () => subgraph([id, ...batch], 1, batch.length + 1));
    if (!piece) return;
    node.more = node.more.slice(MORE_BATCH);
    this.add(piece, (e) => (e.id === id ? null : expandOwner(id)), node);
    node.more = node.more.filter((n) => !this.model.nodes.has(n));
    this.panel.render();
  }

  /** Pins a node where it is, or lets it move again. */
  togglePin(id: string): void {
    const n = this.model.nodes.get(id);
    if (!n) return;
    [n.fx, n.fy] = n.fx == null ? [n.x, n.y] : [null, null];
    this.engine.layout.fix(n);
    this.engine.reheat(0.2);
    this.panel.render();
  }

  /** Unpins every node. */
  unpinAll(): void {
    for (const n of this.model.nodes.values()) {
      if (n.fx == null) continue;
      n.fx = n.fy = null;
      this.engine.layout.fix(n);
    }
    this.engine.reheat(0.3);
    this.panel.render();
  }

  /** Centres the camera on a node. */
  center(id: string): void {
    const n = this.model.nodes.get(id);
    if (!n) return;
    this.view.follow = null;
    this.interaction.centerOn(n);
  }

  /** Fits everything in view, and keeps doing so while the layout settles. */
  fit(): void {
    this.view.follow = 'all';
    this.interaction.fit();
    this.engine.request();
  }

  private highlightGaps(list: EntitySummary[]): void {
    this.view.gapIds = new Set(list.map((e) => e.id));
    if (list.length === 0) this.model.removeOwner('gaps');
    else {
      this.add({ entities: list, relationships: [], truncated: false }, () => 'gaps');
      this.view.follow = 'all';
    }
    this.graphChanged(0.3);
  }

  // Loads `id` and its neighbourhood; `root` marks the entity as explicitly opened (collapsing others keeps it).
  private async loadAround(id: string, depth: number, limit: number, root: boolean): Promise<boolean> {
    const existing = this.model.nodes.get(id);
    const [piece, ids] = await Promise.all([
      subgraph([id], depth, limit),
      depth === 1 ? neighborIds(id) : Promise.resolve([]),
    ]);
    if (!piece.entities.some((e) => e.id === id)) return false;
    this.add(piece, (e) => (e.id === id ? (root ? 'root' : null) : expandOwner(id)), existing);
    const node = this.model.nodes.get(id) as GraphNode;
    node.expanded = true;
    node.more = ids.filter((n) => !this.model.nodes.has(n));
    node.moreCapped = ids.length >= NEIGHBOR_COUNT_CAP;
    this.panel.render();
    return true;
  }

  /** Loads an entity's neighbourhood again (after a merge or its undo rewired it). */
  async reload(id: string): Promise<void> {
    await this.task('Loading', () => this.loadAround(id, 1, EXPAND_LIMIT + 1, false));
  }

  /** Merges a piece of the graph into the canvas; `owner` says why each entity is there, `near` where new ones start. */
  add(piece: GraphPiece, owner: (e: EntitySummary) => string | null, near?: GraphNode): void {
    this.model.addEntities(piece.entities, owner, near && { x: near.x ?? 0, y: near.y ?? 0 });
    this.model.addRelationships(piece.relationships);
    this.graphChanged(piece.entities.length > 300 ? 1 : 0.7);
  }

  /** Redraws the panel and the canvas after a view change. */
  refresh(): void {
    this.panel.render();
    this.engine.request();
  }

  /** Re-syncs the layout, legend and panel after the model changed. */
  graphChanged(alpha = 0.7): void {
    const empty = document.getElementById('empty-graph');
    if (empty && this.model.nodes.size > 0) empty.hidden = true;
    this.documents.prune();
    this.engine.sync(alpha);
    this.legend.update();
    this.panel.render();
  }

  /** The panel of a selected document node, naming the loaded entities it is linked to. */
  private showDocumentCard(id: string): void {
    const node = this.model.nodes.get(id);
    if (!node) return;
    const names = [...this.model.neighborsOf(id)].map((n) => this.model.nodes.get(n)?.name ?? n);
    this.panel.showContent(this.documents.card(node, names, () => void this.select(null)));
  }

  private followCamera(): void {
    const f = this.view.follow;
    if (f === 'all') this.interaction.fit();
    else if (f) {
      const node = this.model.nodes.get(f.id);
      if (!node) return;
      const around = [...this.model.neighborsOf(f.id)].flatMap((id) => this.model.nodes.get(id) ?? []);
      this.interaction.frameAround(node, around);
    }
  }

  private syncUrl(): void {
    const url = new URL(window.location.href);
    if (isDocumentNode(this.view.selectedId)) return;
    if (this.view.selectedId) url.searchParams.set('entity', this.view.selectedId);
    else url.searchParams.delete('entity');
    url.searchParams.delete('depth');
    url.searchParams.delete('limit');
    window.history.replaceState(null, '', url);
  }

  /** Runs a request, counting it as busy; a failure shows in the status line and resolves to undefined. */
  async task<T>(what: string, run: () => Promise<T>): Promise<T | undefined> {
    this.busy++;
    try {
      return await run();
    } catch (e) {
      this.status(`${what} failed: ${e instanceof Error ? e.message : String(e)}`, true);
      return undefined;
    } finally {
      this.busy--;
    }
  }
}
