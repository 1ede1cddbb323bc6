// Pointer and keyboard input on the canvas: d3-zoom pans and zooms, d3-drag moves (and pins) nodes, clicks select.
import { drag, type D3DragEvent } from 'd3-drag';
import { pointer, select, type Selection } from 'd3-selection';
import { zoom, zoomIdentity, type D3ZoomEvent, type ZoomBehavior } from 'd3-zoom';
import type { Engine } from './Engine.js';
import type { GraphModel, GraphNode } from './GraphModel.js';
import type { ViewState } from './ViewState.js';

/** What the canvas asks the app to do. */
export interface CanvasActions {
  /** A click on a node (or on the background, with null); shift asks for a path to it. */
  select(id: string | null, shift: boolean): void;
  /** A double-click: expand or collapse. */
  toggleExpand(id: string): void;
  /** Escape: clear the path, then the selection. */
  escape(): void;
  /** An alt-drag from one node onto another: draw a relationship between them. */
  linkDrop(fromId: string, toId: string): void;
}

type DragEvent = D3DragEvent<HTMLCanvasElement, unknown, GraphNode | undefined>;

/** Wires zoom, drag, hover, click and keys to the canvas and offers camera moves (centre, fit). */
export class Interaction {
  readonly zoom: ZoomBehavior<HTMLCanvasElement, unknown>;
  private readonly selection: Selection<HTMLCanvasElement, unknown, null, undefined>;

  constructor(
    private readonly canvas: HTMLCanvasElement,
    private readonly engine: Engine,
    private readonly model: GraphModel,
    private readonly view: ViewState,
    actions: CanvasActions,
  ) {
    this.selection = select(canvas);
    this.zoom = zoom<HTMLCanvasElement, unknown>()
      .scaleExtent([0.03, 8])
      .on('zoom', (event: D3ZoomEvent<HTMLCanvasElement, unknown>) => {
        engine.transform = event.transform;
        if (event.sourceEvent) view.follow = null;
        engine.request();
      });
    const dragBehavior = this.dragBehavior(actions);
    // Drag first: on a node it stops the event before zoom would start a pan.
    this.selection.call(dragBehavior).call(this.zoom).on('dblclick.zoom', null);

    canvas.addEventListener('click', (e) => actions.select(this.hit(e.offsetX, e.offsetY)?.id ?? null, e.shiftKey));
    canvas.addEventListener('dblclick', (e) => {
      const node = this.hit(e.offsetX, e.offsetY);
      if (node) actions.toggleExpand(node.id);
    });
    canvas.addEventListener('mousemove', (e) => this.hover(this.hit(e.offsetX, e.offsetY)));
    canvas.addEventListener('mouseleave', () => this.hover(null));
    canvas.addEventListener('keydown', (e) => this.key(e, actions));
  }

  // Dragging a node moves and pins it; with alt held it draws a relationship onto the node where it is dropped.
  private dragBehavior(actions: CanvasActions) {
    const { engine, view } = this;
    let moved = false;
    let linking = false;
    return drag<HTMLCanvasElement, unknown, GraphNode | undefined>()
      .subject((event: DragEvent) => this.hit(event.x, event.y) ?? undefined)
      .on('start', (event: DragEvent) => {
        moved = false;
        linking = Boolean((event.sourceEvent as MouseEvent | undefined)?.altKey);
        if (linking) this.canvas.style.cursor = 'crosshair';
      })
      .on('drag', (event: DragEvent) => {
        const node = event.subject;
        if (!node || linking) return;
        if (!moved) {
          engine.layout.setTarget(0.25);
          view.follow = null;
        }
        moved = true;
        // Dragging pins: the node keeps its new place until "Unpin".
        [node.fx, node.fy] = engine.transform.invert([event.x, event.y]);
        [node.x, node.y] = [node.fx, node.fy];
        engine.layout.fix(node);
        engine.request();
      })
      .on('end', (event: DragEvent) => {
        if (moved) engine.layout.setTarget(0);
        if (!linking) return;
        this.canvas.style.cursor = '';
        // event.x and y follow the subject's layout position; the drop point is where the pointer is.
        const [px, py] = pointer(event.sourceEvent, this.canvas);
        const target = this.hit(px, py);
        if (event.subject && target && target.id !== event.subject.id) actions.linkDrop(event.subject.id, target.id);
      });
  }

  /** The visible node under a canvas point (CSS pixels), if any. */
  hit(px: number, py: number): GraphNode | null {
    const t = this.engine.transform;
    const [x, y] = t.invert([px, py]);
    let best: GraphNode | null = null;
    let bestDistance = Infinity;
    for (const n of this.model.nodes.values()) {
      if (!this.view.nodeVisible(n)) continue;
      const d = Math.hypot((n.x ?? 0) - x, (n.y ?? 0) - y);
      if (d <= n.radius + 4 / t.k && d < bestDistance) {
        best = n;
        bestDistance = d;
      }
    }
    return best;
  }

  /** Puts a node in the middle of the canvas, keeping the zoom (or using `k`). */
  centerOn(node: GraphNode, k = this.engine.transform.k): void {
    const t = zoomIdentity
      .translate(this.engine.width / 2 - k * (node.x ?? 0), this.engine.height / 2 - k * (node.y ?? 0))
      .scale(k);
    this.selection.call(this.zoom.transform, t);
  }

  /** Centres a node, zoomed so that `around` fits as well. */
  frameAround(node: GraphNode, around: Iterable<GraphNode>): void {
    let dx = 80,
      dy = 80;
    for (const n of around) {
      if (!this.view.nodeVisible(n)) continue;
      dx = Math.max(dx, Math.abs((n.x ?? 0) - (node.x ?? 0)) + n.radius + 40);
      dy = Math.max(dy, Math.abs((n.y ?? 0) - (node.y ?? 0)) + n.radius + 40);
    }
    this.centerOn(node, Math.max(0.03, Math.min(2, this.engine.width / 2 / dx, this.engine.height / 2 / dy)));
  }

  /** Zooms so that every visible node fits, with a margin. */
  fit(): void {
    let x0 = Infinity,
      y0 = Infinity,
      x1 = -Infinity,
      y1 = -Infinity;
    for (const n of this.model.nodes.values()) {
      if (!this.view.nodeVisible(n)) continue;
      x0 = Math.min(x0, (n.x ?? 0) - n.radius);
      y0 = Math.min(y0, (n.y ?? 0) - n.radius);
      x1 = Math.max(x1, (n.x ?? 0) + n.radius);
      y1 = Math.max(y1, (n.y ?? 0) + n.radius);
    }
    if (!Number.isFinite(x0)) return;
    const { width, height } = this.engine;
    const k = Math.max(
      0.03,
      Math.min(2.5, 0.9 * Math.min(width / Math.max(1, x1 - x0), height / Math.max(1, y1 - y0))),
    );
    const t = zoomIdentity.translate(width / 2 - (k * (x0 + x1)) / 2, height / 2 - (k * (y0 + y1)) / 2).scale(k);
    this.selection.call(this.zoom.transform, t);
  }

  /** Where a node is on the page (CSS pixels), for tests and tooltips; null when it is not loaded. */
  pagePosition(id: string): { x: number; y: number } | null {
    const n = this.model.nodes.get(id);
    if (!n) return null;
    const [x, y] = this.engine.transform.apply([n.x ?? 0, n.y ?? 0]);
    const box = this.canvas.getBoundingClientRect();
    return { x: box.left + x, y: box.top + y };
  }

  private hover(node: GraphNode | null): void {
    const id = node?.id ?? null;
    if (id === this.view.hoverId) return;
    this.view.hoverId = id;
    this.canvas.style.cursor = node ? 'pointer' : '';
    this.canvas.title = node ? `${node.name} (${node.type})` : '';
    this.engine.request();
  }

  private key(e: KeyboardEvent, actions: CanvasActions): void {
    const step = 60 / this.engine.transform.k;
    const moves: Record<string, [number, number]> = {
      ArrowLeft: [step, 0],
      ArrowRight: [-step, 0],
      ArrowUp: [0, step],
      ArrowDown: [0, -step],
    };
    const move = moves[e.key];
    if (move) this.selection.call(this.zoom.translateBy, move[0], move[1]);
    else if (e.key === '+' || e.key === '=') this.selection.call(this.zoom.scaleBy, 1.25);
    else if (e.key === '-') this.selection.call(this.zoom.scaleBy, 0.8);
    else if (e.key === 'Enter' && this.view.selectedId) actions.toggleExpand(this.view.selectedId);
    else if (e.key === 'Escape') actions.escape();
    else return;
    this.view.follow = null;
    e.preventDefault();
  }
}
