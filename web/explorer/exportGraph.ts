// Export of the visible subgraph (what the legend lets show) as JSON or GraphML, downloaded as a file.
import type { GraphModel } from './GraphModel.js';
import type { ViewState } from './ViewState.js';

/** The visible entities and the visible relationships among them. */
export interface ExportedGraph {
  entities: { id: string; type: string; name: string; origin: string }[];
  relationships: { id: string; type: string; origin: string; fromId: string; toId: string }[];
}

/** What the canvas shows now: hidden types and origins are left out, with the relationships they end. */
export function visibleGraph(model: GraphModel, view: ViewState): ExportedGraph {
  const entities = [...model.nodes.values()]
    .filter((n) => view.nodeVisible(n))
    .map((n) => ({ id: n.id, type: n.type, name: n.name, origin: n.origin }));
  const shown = new Set(entities.map((e) => e.id));
  const relationships = [...model.links.values()]
    .filter((l) => view.linkVisible(l) && shown.has(l.source.id) && shown.has(l.target.id))
    .map((l) => ({ id: l.id, type: l.type, origin: l.origin, fromId: l.source.id, toId: l.target.id }));
  return { entities, relationships };
}

function xml(text: string): string {
  return text.replace(
    /[<>&"']/g,
    (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c] ?? c,
  );
}

/** GraphML with the entities as nodes and the relationships as directed edges; type, name and origin as data keys. */
export function toGraphML(g: ExportedGraph): string {
  const data = (key: string, value: string) => `<data key="${key}">${xml(value)}</data>`;
  const nodes = g.entities.map(
    (e) =>
      `    <node id="${xml(e.id)}">${data('type', e.type)}${data('name', e.name)}${data('origin', e.origin)}</node>`,
  );
  const edges = g.relationships.map(
    (r) =>
      `    <edge id="${xml(r.id)}" source="${xml(r.fromId)}" target="${xml(r.toId)}">${data('rtype', r.type)}${data('rorigin', r.origin)}</edge>`,
  );
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<graphml xmlns="http://graphml.graphdrawing.org/xmlns">',
    '  <key id="type" for="node" attr.name="type" attr.type="string"/>',
    '  <key id="name" for="node" attr.name="name" attr.type="string"/>',
    '  <key id="origin" for="node" attr.name="origin" attr.type="string"/>',
    '  <key id="rtype" for="edge" attr.name="type" attr.type="string"/>',
    '  <key id="rorigin" for="edge" attr.name="origin" attr.type="string"/>',
    '  <graph id="cairn" edgedefault="directed">',
    ...nodes,
    ...edges,
    '  </graph>',
    '</graphml>',
    '',
  ].join('\n');
}

/** Offers `text` as a file download. */
export function download(fileName: string, type: string, text: string): void {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = document.createElement('a');
  a.href = url;
  a.download = fileName;
  a.hidden = true;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000); // after the browser has taken the file
}

/** Downloads the visible subgraph in the chosen format. */
export function exportVisible(model: GraphModel, view: ViewState, format: 'json' | 'graphml'): void {
  const g = visibleGraph(model, view);
  if (format === 'json') download('cairn-graph.json', 'application/json', `${JSON.stringify(g, null, 2)}\n`);
  else download('cairn-graph.graphml', 'application/graphml+xml', toGraphML(g));
}
