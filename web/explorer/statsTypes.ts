// The shape of window.__explorerStats, without DOM types, so the browser tests type-check against the same definition.

/** A plain snapshot of what the explorer shows. */
export interface ExplorerSnapshot {
  /** Nodes and links the legend lets show, and all loaded ones. */
  nodes: number;
  links: number;
  totalNodes: number;
  totalLinks: number;
  nodeIds: string[];
  expandedIds: string[];
  pinnedIds: string[];
  selectedId: string | null;
  pathFromId: string | null;
  pathNodeIds: string[];
  pathLinkIds: string[];
  gapIds: string[];
  hiddenTypes: string[];
  frames: number;
  fps: number;
  /** Moving average of the main-thread time of one frame (ms), and where the layout runs. */
  frameMs: number;
  layoutThread: 'worker' | 'main';
  running: boolean;
  busy: number;
  zoom: number;
  canvas: { left: number; top: number; width: number; height: number };
}

/** The hook installed on window. */
export interface ExplorerStatsHook {
  snapshot(): ExplorerSnapshot;
  /** Page coordinates (CSS pixels) of a loaded node. */
  position(id: string): { x: number; y: number } | null;
  /** Counts the frames actually drawn during the next `ms` milliseconds. */
  measureFps(ms: number): Promise<{ frames: number; ms: number; fps: number }>;
  /** Restarts the layout at full heat. */
  reheat(): void;
  /** The colour drawn at a loaded node's centre (`#rrggbb`), as the last frame left it. */
  colorAt(id: string): string | null;
}
