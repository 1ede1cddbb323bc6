// The forces of the layout, shared by the worker and the main-thread fallback so both lay out the same way.
import {
  forceCollide,
  forceLink,
  forceManyBody,
  forceX,
  forceY,
  type Simulation,
  type SimulationLinkDatum,
  type SimulationNodeDatum,
} from 'd3-force';

/** What the forces need of a node. */
export interface LayoutNode extends SimulationNodeDatum {
  radius: number;
}

// Collision keeps small graphs tidy but costs a quadtree per tick, so large graphs skip it.
const COLLIDE_MAX_NODES = 600;

/** Sets the forces for a graph of `nodeCount` nodes and `links` (sources and targets as nodes or indexes). */
export function applyForces<N extends LayoutNode, L extends SimulationLinkDatum<N>>(
  sim: Simulation<N, L>,
  links: L[],
): void {
  const n = sim.nodes().length;
  const small = n <= COLLIDE_MAX_NODES;
  sim
    .force(
      'link',
      forceLink<N, L>(links).distance((l) => (small ? 36 : 22) + radiusOf(l.source) + radiusOf(l.target)),
    )
    .force(
      'charge',
      forceManyBody<N>()
        .strength(small ? -220 : -45)
        .theta(small ? 0.9 : 1.2)
        .distanceMax(small ? 800 : 400),
    )
    .force('x', forceX<N>(0).strength(small ? 0.06 : 0.05))
    .force('y', forceY<N>(0).strength(small ? 0.06 : 0.05))
    .force('collide', small ? forceCollide<N>((d) => d.radius + 10) : null);
}

function radiusOf(end: unknown): number {
  return typeof end === 'object' && end !== null && 'radius' in end ? Number((end as LayoutNode).radius) : 6;
}
