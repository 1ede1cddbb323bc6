// window.__explorerStats: a read-only window into the explorer for the browser tests (counts, frames, positions).
import type { App } from './App.js';
import type { ExplorerStatsHook } from './statsTypes.js';

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
    colorAt(id) {
      const at = app.interaction.pagePosition(id);
      const canvas = app.engine.canvas;
      const ctx = canvas.getContext('2d');
      if (!at || !ctx) return null;
      const box = canvas.getBoundingClientRect();
      const dpr = canvas.width / box.width;
      const [r, g, b] = ctx.getImageData(
        Math.round((at.x - box.left) * dpr),
        Math.round((at.y - box.top) * dpr),
        1,
        1,
      ).data;
      return `#${[r, g, b].map((v) => (v ?? 0).toString(16).padStart(2, '0')).join('')}`;
    },
  };
  (window as unknown as { __explorerStats: ExplorerStatsHook }).__explorerStats = hook;
}
