// What the user is looking at: selection, hover, hidden types, the highlighted path and the gaps highlight.
import type { GraphLink, GraphNode } from './GraphModel.js';

/** A highlighted shortest path. */
export interface HighlightedPath {
  /** Entity ids from start to end. */
  nodeIds: string[];
  linkIds: string[];
}

/** What the camera tracks while the layout settles. */
export type CameraFollow = { id: string } | 'all' | null;

/** View state shared by the renderer, the interactions and the side panels. */
export class ViewState {
  selectedId: string | null = null;
  hoverId: string | null = null;
  /** Start of the next shortest-path query ("Path from here"). */
  pathFromId: string | null = null;
  path: HighlightedPath | null = null;
  /** Entities the gaps view highlights. */
  gapIds = new Set<string>();
  readonly hiddenTypes = new Set<string>();
  readonly hiddenRelationshipTypes = new Set<string>();
  /** Origins (MANUAL, IMPORTED, EXTRACTED) the legend hides. */
  readonly hiddenOrigins = new Set<string>();
  /** While the layout moves, the camera keeps an entity centred, or everything in view, until the user pans or zooms. */
  follow: CameraFollow = null;

  /** Whether the legend lets this node show. */
  nodeVisible(n: GraphNode): boolean {
    return !this.hiddenTypes.has(n.type) && !this.hiddenOrigins.has(n.origin);
  }

  /** Whether this link shows: its type and both ends are visible. */
  linkVisible(l: GraphLink): boolean {
    return !this.hiddenRelationshipTypes.has(l.type) && this.nodeVisible(l.source) && this.nodeVisible(l.target);
  }
}
