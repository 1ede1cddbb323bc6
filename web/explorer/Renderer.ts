// Draws the graph on a 2D canvas: links (batched strokes, or a pixel buffer when there are thousands), nodes as
// pre-drawn sprites, then selection/path/pin markers and labels.
import type { ZoomTransform } from 'd3-zoom';
import type { TypeColors } from './TypeColors.js';
import { drawLabels, type Emphasis } from './labels.js';
import { PixelBuffer } from './PixelBuffer.js';
import type { GraphLink, GraphModel, GraphNode } from './GraphModel.js';
import { MAX_PIXEL_SPRITE_RADIUS, NodeSprites } from './NodeSprites.js';
import type { ViewState } from './ViewState.js';
import { DOCUMENT_FILL, DOCUMENT_ORIGIN, DOCUMENT_STROKE } from './DocumentNodes.js';

/** What one frame needs. */
export interface RenderInput {
  ctx: CanvasRenderingContext2D;
  /** CSS pixels. */
  width: number;
  height: number;
  dpr: number;
  transform: ZoomTransform;
  model: GraphModel;
  view: ViewState;
  colors: TypeColors;
}

const ARROW_ZOOM = 1.1;
// From this many on-screen links or nodes, the frame is rasterised in JavaScript (see PixelBuffer.ts).
const RASTER_LINKS = 1200;
const RASTER_NODES = 800;
const PATH_COLOR = '#ea580c';
const BACKGROUND: [number, number, number] = [248, 250, 252];
const LINK_RGB: [number, number, number] = [100, 116, 139];

function emphasis(model: GraphModel, view: ViewState): Emphasis {
  if (view.path) return { nodes: new Set(view.path.nodeIds), links: new Set(view.path.linkIds), kind: 'path' };
  const hover = view.hoverId ? model.nodes.get(view.hoverId) : undefined;
  if (!hover) return { nodes: new Set(), links: new Set(), kind: 'none' };
  const links = new Set<string>();
  for (const l of model.links.values()) if (l.source === hover || l.target === hover) links.add(l.id);
  return { nodes: new Set([hover.id, ...model.neighborsOf(hover.id)]), links, kind: 'hover' };
}

/** Draws frames; keeps the sprite cache and pixel buffer between them. */
export class Renderer {
  private readonly sprites = new NodeSprites();
  private readonly buffer = new PixelBuffer();
  private readonly normal: GraphLink[] = [];
  private readonly strong: GraphLink[] = [];
  private readonly onScreen: GraphNode[] = [];

  /** Draws one frame and returns how many nodes and links the legend lets show. */
  draw(input: RenderInput): { nodes: number; links: number } {
    const { ctx, width, height, dpr, transform: t, model, view } = input;
    const k = t.k;
    // The visible rectangle in graph coordinates, with a margin for radii and labels.
    const m = 40 / k;
    const [x0, y0] = t.invert([0, 0]);
    const [x1, y1] = t.invert([width, height]);
    const emph = emphasis(model, view);
    const dimOthers = emph.kind !== 'none';

    // Reused between frames: allocating thousands of entries per frame shows up as GC pauses.
    const normal = this.normal,
      strong = this.strong,
      onScreen = this.onScreen;
    normal.length = strong.length = onScreen.length = 0;
    let linkCount = 0;
    for (const l of model.links.values()) {
      if (!view.linkVisible(l)) continue;
      linkCount++;
      const sx = l.source.x ?? 0,
        sy = l.source.y ?? 0,
        tx = l.target.x ?? 0,
        ty = l.target.y ?? 0;
      if ((sx < x0 && tx < x0) || (sx > x1 && tx > x1) || (sy < y0 && ty < y0) || (sy > y1 && ty > y1)) continue;
      (emph.links.has(l.id) ? strong : normal).push(l);
    }
    const nodeCount = nodesOnScreen(model, view, [x0 - m, y0 - m, x1 + m, y1 + m], onScreen);
    const linkAlpha = dimOthers ? 0.1 : 0.38;
    const fade = (n: GraphNode): number => (dimOthers && !emph.nodes.has(n.id) ? 0.18 : 1);
    const nodeColor = (n: GraphNode): string => input.colors.of(n.type);
    const device = (v: number, offset: number): number => (v * k + offset) * dpr;
    // Drawn with canvas calls after the buffer: emphasised nodes (above the strong links) and very large ones.
    let late: GraphNode[] = onScreen;
    ctx.globalAlpha = 1;
    if (normal.length >= RASTER_LINKS || onScreen.length >= RASTER_NODES) {
      const buffer = this.buffer;
      buffer.begin(ctx, Math.round(width * dpr), Math.round(height * dpr));
      for (const l of normal)
        buffer.line(
          device(l.source.x ?? 0, t.x),
          device(l.source.y ?? 0, t.y),
          device(l.target.x ?? 0, t.x),
          device(l.target.y ?? 0, t.y),
        );
      buffer.paintLines(BACKGROUND, LINK_RGB, linkAlpha);
      late = [];
      for (const n of onScreen) {
        const r = n.radius * k * dpr;
        if ((dimOthers && emph.nodes.has(n.id)) || r > MAX_PIXEL_SPRITE_RADIUS) late.push(n);
        else if (n.origin !== DOCUMENT_ORIGIN)
          buffer.blit(this.sprites.pixelsOf(nodeColor(n), r), device(n.x ?? 0, t.x), device(n.y ?? 0, t.y), fade(n));
      }
      buffer.end(ctx);
      ctx.setTransform(dpr * k, 0, 0, dpr * k, dpr * t.x, dpr * t.y);
    } else {
      ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
      ctx.fillStyle = `rgb(${BACKGROUND.join(',')})`;
      ctx.fillRect(0, 0, width, height);
      ctx.setTransform(dpr * k, 0, 0, dpr * k, dpr * t.x, dpr * t.y);
      strokeLinks(ctx, normal, (l) => input.colors.ofRelationship(l.type), 1 / k, Math.min(1, linkAlpha * 1.6));
    }
    const strongColor = emph.kind === 'path' ? PATH_COLOR : '#334155';
    strokeLinks(ctx, strong, () => strongColor, (emph.kind === 'path' ? 3.5 : 1.6) / k, 1);
    if (k >= ARROW_ZOOM && normal.length + strong.length < 3000) {
      arrows(ctx, normal, dimOthers ? 'rgba(100,116,139,0.15)' : 'rgba(100,116,139,0.6)', k);
      arrows(ctx, strong, emph.kind === 'path' ? PATH_COLOR : '#334155', k);
    }
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    for (const n of late.filter((x) => x.origin !== DOCUMENT_ORIGIN)) {
      ctx.globalAlpha = fade(n);
      this.sprites.draw(ctx, nodeColor(n), device(n.x ?? 0, t.x), device(n.y ?? 0, t.y), n.radius * k * dpr);
    }
    ctx.globalAlpha = 1;
    ctx.setTransform(dpr * k, 0, 0, dpr * k, dpr * t.x, dpr * t.y);
    markers(ctx, onScreen, view, emph, k);
    drawLabels(ctx, dpr, t, view, onScreen, emph, strong, normal);
    return { nodes: nodeCount, links: linkCount };
  }
}

/** Collects the visible nodes inside `box` (x0, y0, x1, y1) into `out`; returns how many are visible in all. */
function nodesOnScreen(model: GraphModel, view: ViewState, box: number[], out: GraphNode[]): number {
  const [x0 = 0, y0 = 0, x1 = 0, y1 = 0] = box;
  let count = 0;
  for (const n of model.nodes.values()) {
    if (!view.nodeVisible(n)) continue;
    count++;
    const x = n.x ?? 0,
      y = n.y ?? 0;
    if (x >= x0 && x <= x1 && y >= y0 && y <= y1) out.push(n);
  }
  return count;
}

/**
 * Strokes links in one path per style: each colour (the relationship type's, matching the legend) solid for curated
 * links and dashed for extracted ones.
 */
function strokeLinks(
  ctx: CanvasRenderingContext2D,
  links: GraphLink[],
  colorOf: (l: GraphLink) => string,
  width: number,
  alpha: number,
): void {
  if (links.length === 0) return;
  const groups = new Map<string, GraphLink[]>();
  for (const l of links) {
    const key = `${l.origin === 'EXTRACTED' ? 'd' : 's'}${colorOf(l)}`;
    const group = groups.get(key);
    if (group) group.push(l);
    else groups.set(key, [l]);
  }
  ctx.lineWidth = width;
  ctx.globalAlpha = alpha;
  for (const [key, group] of groups) {
    ctx.beginPath();
    for (const l of group) {
      ctx.moveTo(l.source.x ?? 0, l.source.y ?? 0);
      ctx.lineTo(l.target.x ?? 0, l.target.y ?? 0);
    }
    ctx.setLineDash(key.startsWith('d') ? [4 * width, 3 * width] : []);
    ctx.strokeStyle = key.slice(1);
    ctx.stroke();
  }
  ctx.setLineDash([]);
  ctx.globalAlpha = 1;
}

// Small arrowheads at the target's rim show the relationship's direction.
function arrows(ctx: CanvasRenderingContext2D, links: GraphLink[], color: string, k: number): void {
  if (links.length === 0) return;
  const size = 5 / k;
  ctx.beginPath();
  for (const l of links) {
    const sx = l.source.x ?? 0,
      sy = l.source.y ?? 0,
      tx = l.target.x ?? 0,
      ty = l.target.y ?? 0;
    const len = Math.hypot(tx - sx, ty - sy);
    if (len < l.target.radius + size * 2) continue;
    const ux = (tx - sx) / len,
      uy = (ty - sy) / len;
    const px = tx - ux * (l.target.radius + 1 / k),
      py = ty - uy * (l.target.radius + 1 / k);
    ctx.moveTo(px, py);
    ctx.lineTo(px - ux * size * 1.6 - uy * size, py - uy * size * 1.6 + ux * size);
    ctx.lineTo(px - ux * size * 1.6 + uy * size, py - uy * size * 1.6 - ux * size);
    ctx.closePath();
  }
  ctx.fillStyle = color;
  ctx.fill();
}

function ring(
  ctx: CanvasRenderingContext2D,
  n: GraphNode,
  gap: number,
  color: string,
  width: number,
  dash: number[],
): void {
  ctx.beginPath();
  ctx.arc(n.x ?? 0, n.y ?? 0, n.radius + gap, 0, 2 * Math.PI);
  ctx.setLineDash(dash);
  ctx.strokeStyle = color;
  ctx.lineWidth = width;
  ctx.stroke();
  ctx.setLineDash([]);
}

/** A document: a page with a folded corner, where entities are discs. */
function page(ctx: CanvasRenderingContext2D, n: GraphNode, k: number): void {
  const x = n.x ?? 0,
    y = n.y ?? 0,
    h = n.radius * 1.25,
    w = n.radius,
    fold = w * 0.6;
  ctx.beginPath();
  ctx.moveTo(x - w, y - h);
  ctx.lineTo(x + w - fold, y - h);
  ctx.lineTo(x + w, y - h + fold);
  ctx.lineTo(x + w, y + h);
  ctx.lineTo(x - w, y + h);
  ctx.closePath();
  ctx.fillStyle = DOCUMENT_FILL;
  ctx.fill();
  ctx.strokeStyle = DOCUMENT_STROKE;
  ctx.lineWidth = 1.5 / k;
  ctx.stroke();
}

/** The dashed outline of extracted entities (built from text: less certain than written ones). */
export const EXTRACTED_COLOR = '#64748b';

// Extracted entities' outline, selection, path start, pins and gap highlights.
function markers(
  ctx: CanvasRenderingContext2D,
  onScreen: GraphNode[],
  view: ViewState,
  emph: Emphasis,
  k: number,
): void {
  for (const n of onScreen) {
    if (n.origin === DOCUMENT_ORIGIN) page(ctx, n, k);
    if (n.origin === 'EXTRACTED') ring(ctx, n, 1.5 / k, EXTRACTED_COLOR, 1.5 / k, [2 / k, 2 / k]);
    if (view.gapIds.has(n.id)) ring(ctx, n, 4 / k, '#dc2626', 2 / k, [4 / k, 3 / k]);
    if (n.id === view.pathFromId) ring(ctx, n, 6 / k, PATH_COLOR, 2 / k, [3 / k, 2 / k]);
    if (emph.kind === 'path' && emph.nodes.has(n.id)) ring(ctx, n, 2 / k, PATH_COLOR, 2.5 / k, []);
    if (n.id === view.selectedId) ring(ctx, n, 3 / k, '#0f172a', 2.5 / k, []);
    if (n.fx != null) {
      ctx.beginPath();
      ctx.arc(n.x ?? 0, n.y ?? 0, Math.max(1.5 / k, n.radius * 0.35), 0, 2 * Math.PI);
      ctx.fillStyle = '#1e293b';
      ctx.fill();
    }
  }
}
