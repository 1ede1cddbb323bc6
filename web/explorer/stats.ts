// window.__explorerStats: a read-only window into the explorer for the browser tests (counts, frames, positions).
import type { App } from './app.js';

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
}

/** Installs `window.__explorerStats`. */
export function installStatsHook(app: App): void {
  const hook: ExplorerStatsHook = {
    snapshot() {
      const { model, view, engine } = app;
      const nodes = [...model.nodes.values()];
      const visible = nodes.filter((n) => view.nodeVisible(n));
      const box = engine.canvas.getBoundingClientRect();
      return {
        nodes: visible.length,
        links: [...model.links.values()].filter((l) => view.linkVisible(l)).length,
        totalNodes: nodes.length,
        totalLinks: model.links.size,
        nodeIds: visible.map((n) => n.id),
        expandedIds: nodes.filter((n) => n.expanded).map((n) => n.id),
        pinnedIds: nodes.filter((n) => n.fx != null).map((n) => n.id),
        selectedId: view.selectedId,
        pathFromId: view.pathFromId,
        pathNodeIds: view.path?.nodeIds ?? [],
        pathLinkIds: view.path?.linkIds ?? [],
        gapIds: [...view.gapIds],
        hiddenTypes: [...view.hiddenTypes],
        frames: engine.frames,
        fps: engine.fps(),
        frameMs: engine.frameMs,
        layoutThread: engine.layout.thread,
        running: engine.running(),
        busy: app.busy,
        zoom: engine.transform.k,
        canvas: { left: box.left, top: box.top, width: box.width, height: box.height },
      };
    },
    position: (id) => app.interaction.pagePosition(id),
    measureFps(ms) {
      const f0 = app.engine.frames;
      const t0 = performance.now();
      return new Promise((resolve) =>
        setTimeout(() => {
          const elapsed = performance.now() - t0;
          const frames = app.engine.frames - f0;
          resolve({ frames, ms: elapsed, fps: (frames * 1000) / elapsed });
        }, ms),
      );
    },
    reheat: () => app.engine.reheat(1),
  };
  (window as unknown as { __explorerStats: ExplorerStatsHook }).__explorerStats = hook;
}
