// Where the force simulation runs: in a Web Worker (so ticks never delay a frame), or on the main thread as a fallback.
import { forceSimulation, type Simulation } from 'd3-force';
import { applyForces } from './forces.js';
import type { GraphLink, GraphNode } from './GraphModel.js';

/** A running force layout over the model's nodes; positions land in node.x / node.y. */
export interface Layout {
  /** 'worker' or 'main': where the ticks run. */
  readonly thread: 'worker' | 'main';
  /** Replaces the nodes and links (positions are kept), and warms the layout to `alpha`. */
  setGraph(nodes: GraphNode[], links: GraphLink[], alpha: number): void;
  /** Raises the heat to `alpha` unless it is hotter already. */
  reheat(alpha: number): void;
  /** Keeps the layout warm while something is dragged (0 lets it cool). */
  setTarget(alphaTarget: number): void;
  /** Sends a node's pin (fx/fy, or null to release) to the layout. */
  fix(node: GraphNode): void;
  /** Whether positions are still changing. */
  running(): boolean;
  /** Updates node positions for a frame at `now`; true when they moved. */
  step(now: number): boolean;
  /** Whether the frame loop should keep going (the layout moves, or positions are still being eased in). */
  animating(): boolean;
}

/** The simulation on the main thread: one tick per frame. */
export class LocalLayout implements Layout {
  readonly thread = 'main' as const;
  private readonly sim: Simulation<GraphNode, GraphLink> = forceSimulation<GraphNode, GraphLink>().stop();

  setGraph(nodes: GraphNode[], links: GraphLink[], alpha: number): void {
    this.sim.nodes(nodes);
    applyForces(this.sim, links);
    this.reheat(alpha);
  }

  reheat(alpha: number): void {
    if (this.sim.alpha() < alpha) this.sim.alpha(alpha);
  }

  setTarget(alphaTarget: number): void {
    this.sim.alphaTarget(alphaTarget);
  }

  fix(): void {
    // The nodes are shared with the simulation: fx/fy are already in place.
  }

  running(): boolean {
    return this.sim.alpha() >= this.sim.alphaMin() || this.sim.alphaTarget() > 0;
  }

  step(): boolean {
    if (!this.running()) return false;
    this.sim.tick();
    return true;
  }

  animating(): boolean {
    return this.running();
  }
}
