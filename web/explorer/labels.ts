// Node and relationship labels, drawn in screen space so that text stays crisp and the same size at every zoom.
// Labels are placed greedily by priority and skipped where they would overlap one already placed.
import type { ZoomTransform } from 'd3-zoom';
import type { GraphLink, GraphNode } from './GraphModel.js';
import type { ViewState } from './ViewState.js';

/** Zoom level from which every on-screen relationship gets its type drawn. */
export const LINK_LABEL_ZOOM = 2.2;
const NODE_LABEL_ZOOM = 1.6;
const MAX_LABELS = 250;
const NODE_FONT = '12px system-ui, sans-serif';
const LINK_FONT = '10px system-ui, sans-serif';

/** The nodes and links the current hover or path puts forward. */
export interface Emphasis {
  nodes: Set<string>;
  links: Set<string>;
  kind: 'path' | 'hover' | 'none';
}

interface Label {
  text: string;
  x: number;
  y: number;
  font: string;
  color: string;
}

function truncate(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** Labels, in order: the selection and hovered node, emphasised nodes and links, then large nodes and, zoomed in, the rest. */
export function drawLabels(
  ctx: CanvasRenderingContext2D,
  dpr: number,
  t: ZoomTransform,
  view: ViewState,
  onScreen: GraphNode[],
  emph: Emphasis,
  strong: GraphLink[],
  normal: GraphLink[],
): void {
  const k = t.k;
  const nodeLabel = (n: GraphNode, color: string): Label => {
    const [x, y] = t.apply([n.x ?? 0, n.y ?? 0]);
    return { text: truncate(n.name, 32), x, y: y + n.radius * k + 10, font: NODE_FONT, color };
  };
  const linkLabel = (l: GraphLink, color: string): Label => {
    const [x, y] = t.apply([((l.source.x ?? 0) + (l.target.x ?? 0)) / 2, ((l.source.y ?? 0) + (l.target.y ?? 0)) / 2]);
    return { text: l.type, x, y, font: LINK_FONT, color };
  };
  const first = onScreen.filter((n) => n.id === view.selectedId || n.id === view.hoverId);
  const emphasised = onScreen.filter((n) => !first.includes(n) && (emph.nodes.has(n.id) || view.gapIds.has(n.id)));
  const taken = new Set([...first, ...emphasised]);
  const zoomedIn = k >= NODE_LABEL_ZOOM;
  const others = onScreen
    .filter((n) => !taken.has(n) && (zoomedIn || n.radius * k >= 9))
    .sort((a, b) => b.radius - a.radius);
  const dim = emph.kind !== 'none';
  const candidates: Label[] = [
    ...first.map((n) => nodeLabel(n, '#0f172a')),
    ...emphasised.map((n) => nodeLabel(n, '#0f172a')),
    ...strong.slice(0, MAX_LABELS).map((l) => linkLabel(l, '#0f172a')),
    ...others.slice(0, MAX_LABELS).map((n) => nodeLabel(n, dim ? '#94a3b8' : '#0f172a')),
    ...(k >= LINK_LABEL_ZOOM ? normal.slice(0, MAX_LABELS).map((l) => linkLabel(l, '#64748b')) : []),
  ];

  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  ctx.globalAlpha = 1;
  ctx.lineJoin = 'round';
  ctx.lineWidth = 3;
  ctx.textAlign = 'center';
  ctx.textBaseline = 'middle';
  ctx.strokeStyle = 'rgba(248,250,252,0.92)';
  const placed: [number, number, number, number][] = [];
  for (const label of candidates) {
    if (placed.length >= MAX_LABELS) break;
    ctx.font = label.font;
    const halfWidth = ctx.measureText(label.text).width / 2 + 2;
    const box: [number, number, number, number] = [label.x - halfWidth, label.y - 7, label.x + halfWidth, label.y + 7];
    if (placed.some((b) => b[0] < box[2] && box[0] < b[2] && b[1] < box[3] && box[1] < b[3])) continue;
    placed.push(box);
    ctx.strokeText(label.text, label.x, label.y);
    ctx.fillStyle = label.color;
    ctx.fillText(label.text, label.x, label.y);
  }
}
