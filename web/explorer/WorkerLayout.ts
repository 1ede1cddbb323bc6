// The force layout in a Web Worker. The worker is this same bundle (main.js) started as a module worker, so the
// build needs no second entry point; CSP allows it through worker-src 'self'.
import { forceSimulation, type SimulationLinkDatum } from 'd3-force';
import { applyForces, type LayoutNode } from './forces.js';
import { LocalLayout, type Layout } from './LocalLayout.js';
import type { GraphLink, GraphNode } from './GraphModel.js';

/** Messages to the worker. */
type ToWorker =
  | {
      kind: 'graph';
      version: number;
      xy: Float64Array;
      fixed: Float64Array;
      radius: Float64Array;
      links: Int32Array;
      alpha: number;
    }
  | { kind: 'heat'; alpha?: number; target?: number }
  | { kind: 'fix'; index: number; fx: number; fy: number }
  | { kind: 'ack' };

/** Messages from the worker: positions after a tick, as x0, y0, x1, y1, … */
type FromWorker = { kind: 'positions'; version: number; xy: Float32Array; running: boolean };

interface WorkerScope {
  postMessage(message: FromWorker, transfer: Transferable[]): void;
  onmessage: ((e: MessageEvent<ToWorker>) => void) | null;
}

// At most one tick per display frame: more would only take CPU from drawing.
const MIN_TICK_INTERVAL_MS = 16;

/** The worker side: runs the simulation and posts positions, one batch in flight at a time. */
export function runLayoutWorker(): void {
  const scope = globalThis as unknown as WorkerScope;
  const sim = forceSimulation<LayoutNode, SimulationLinkDatum<LayoutNode>>().stop();
  let version = 0;
  let awaitingAck = false;
  let scheduled = false;
  let lastTick = 0;
  const active = (): boolean => sim.alpha() >= sim.alphaMin() || sim.alphaTarget() > 0;

  const loop = (): void => {
    scheduled = false;
    if (awaitingAck || !active()) return;
    lastTick = performance.now();
    sim.tick();
    const nodes = sim.nodes();
    const xy = new Float32Array(nodes.length * 2);
    nodes.forEach((n, i) => {
      xy[2 * i] = n.x ?? 0;
      xy[2 * i + 1] = n.y ?? 0;
    });
    awaitingAck = true;
    scope.postMessage({ kind: 'positions', version, xy, running: active() }, [xy.buffer]);
  };
  const schedule = (): void => {
    if (scheduled) return;
    scheduled = true;
    setTimeout(loop, Math.max(0, MIN_TICK_INTERVAL_MS - (performance.now() - lastTick)));
  };

  scope.onmessage = (e) => {
    const m = e.data;
    if (m.kind === 'graph') {
      version = m.version;
      const nodes: LayoutNode[] = [];
      for (let i = 0; i < m.radius.length; i++) {
        const fx = m.fixed[2 * i],
          fy = m.fixed[2 * i + 1];
        nodes.push({
          x: m.xy[2 * i],
          y: m.xy[2 * i + 1],
          radius: m.radius[i] ?? 5,
          fx: Number.isNaN(fx) ? null : fx,
          fy: Number.isNaN(fy) ? null : fy,
        });
      }
      const links: SimulationLinkDatum<LayoutNode>[] = [];
      for (let i = 0; i < m.links.length; i += 2) links.push({ source: m.links[i] ?? 0, target: m.links[i + 1] ?? 0 });
      sim.nodes(nodes);
      applyForces(sim, links);
      if (sim.alpha() < m.alpha) sim.alpha(m.alpha);
      awaitingAck = false;
    } else if (m.kind === 'heat') {
      if (m.alpha !== undefined && sim.alpha() < m.alpha) sim.alpha(m.alpha);
      if (m.target !== undefined) sim.alphaTarget(m.target);
    } else if (m.kind === 'fix') {
      const n = sim.nodes()[m.index];
      if (n) [n.fx, n.fy] = Number.isNaN(m.fx) ? [null, null] : [m.fx, m.fy];
    } else {
      awaitingAck = false;
    }
    schedule();
  };
}

/**
 * The main-thread side. Frames show positions eased from the worker's previous batch to its latest over one tick
 * interval, so motion stays smooth at the display's rate even when ticks arrive more slowly (one tick of lag).
 */
export class WorkerLayout implements Layout {
  private readonly worker: Worker;
  private nodes: GraphNode[] = [];
  private links: GraphLink[] = [];
  private index = new Map<GraphNode, number>();
  private version = 0;
  private busy = false;
  private target = 0;
  private fallback: LocalLayout | null = null;
  private previous: Float32Array | null = null;
  private latest: Float32Array | null = null;
  private latestAt = 0;
  private interval = 16;
  private eased = 1;

  /** Starts the worker from this bundle's own URL. */
  constructor(private readonly moved: () => void) {
    this.worker = new Worker(new URL(import.meta.url), { type: 'module', name: 'cairn-explorer-layout' });
    this.worker.onmessage = (e: MessageEvent<FromWorker>) => this.receive(e.data);
    // Browsers without module workers: run the layout here instead.
    this.worker.onerror = () => {
      this.worker.terminate();
      this.fallback = new LocalLayout();
      this.fallback.setGraph(this.nodes, this.links, 1);
      this.moved();
    };
  }

  get thread(): 'worker' | 'main' {
    return this.fallback ? 'main' : 'worker';
  }

  setGraph(nodes: GraphNode[], links: GraphLink[], alpha: number): void {
    this.nodes = nodes;
    this.links = links;
    this.index = new Map(nodes.map((n, i) => [n, i]));
    if (this.fallback) return this.fallback.setGraph(nodes, links, alpha);
    const xy = new Float64Array(nodes.length * 2);
    const fixed = new Float64Array(nodes.length * 2);
    const radius = new Float64Array(nodes.length);
    nodes.forEach((n, i) => {
      xy[2 * i] = n.x ?? NaN;
      xy[2 * i + 1] = n.y ?? NaN;
      fixed[2 * i] = n.fx ?? NaN;
      fixed[2 * i + 1] = n.fy ?? NaN;
      radius[i] = n.radius;
    });
    const pairs = new Int32Array(links.length * 2);
    links.forEach((l, i) => {
      pairs[2 * i] = this.index.get(l.source) ?? 0;
      pairs[2 * i + 1] = this.index.get(l.target) ?? 0;
    });
    this.version++;
    this.previous = this.latest = null;
    this.busy = true;
    this.post({ kind: 'graph', version: this.version, xy, fixed, radius, links: pairs, alpha }, [
      xy.buffer,
      fixed.buffer,
      radius.buffer,
      pairs.buffer,
    ]);
  }

  reheat(alpha: number): void {
    if (this.fallback) return this.fallback.reheat(alpha);
    this.busy = true;
    this.post({ kind: 'heat', alpha });
  }

  setTarget(alphaTarget: number): void {
    this.target = alphaTarget;
    if (this.fallback) return this.fallback.setTarget(alphaTarget);
    if (alphaTarget > 0) this.busy = true;
    this.post({ kind: 'heat', target: alphaTarget });
  }

  fix(node: GraphNode): void {
    const index = this.index.get(node);
    if (this.fallback || index === undefined) return;
    this.post({ kind: 'fix', index, fx: node.fx ?? NaN, fy: node.fy ?? NaN });
  }

  running(): boolean {
    return this.fallback ? this.fallback.running() : this.busy || this.target > 0;
  }

  step(now: number): boolean {
    if (this.fallback) return this.fallback.step();
    const { previous: a, latest: b } = this;
    if (!a || !b) return false;
    const t = Math.min(1, Math.max(0, (now - this.latestAt) / this.interval));
    if (t === this.eased) return false;
    this.eased = t;
    this.nodes.forEach((n, i) => {
      // A pinned node stays exactly where the pointer put it, even between a drag and the worker's next tick.
      n.x = n.fx ?? a[2 * i]! + (b[2 * i]! - a[2 * i]!) * t;
      n.y = n.fy ?? a[2 * i + 1]! + (b[2 * i + 1]! - a[2 * i + 1]!) * t;
    });
    return true;
  }

  animating(): boolean {
    return this.fallback ? this.fallback.animating() : this.running() || this.eased < 1;
  }

  private receive(m: FromWorker): void {
    this.post({ kind: 'ack' });
    if (m.version !== this.version) return;
    const now = performance.now();
    // Ease over the time ticks actually take (between one display frame and a fifth of a second).
    if (this.latest) this.interval += (Math.min(200, Math.max(16, now - this.latestAt)) - this.interval) * 0.3;
    this.previous = this.latest && this.latest.length === m.xy.length ? this.currentPositions() : m.xy;
    this.latest = m.xy;
    this.latestAt = now;
    this.eased = -1;
    this.busy = m.running;
    this.moved();
  }

  // Where the nodes are drawn now, so that a new batch eases on from there without a jump.
  private currentPositions(): Float32Array {
    const xy = new Float32Array(this.nodes.length * 2);
    this.nodes.forEach((n, i) => {
      xy[2 * i] = n.x ?? 0;
      xy[2 * i + 1] = n.y ?? 0;
    });
    return xy;
  }

  private post(message: ToWorker, transfer: Transferable[] = []): void {
    this.worker.postMessage(message, transfer);
  }
}
