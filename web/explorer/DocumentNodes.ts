// Documents on the canvas: the documents that mention an entity, shown as page-shaped nodes linked to it.
import type { EntityDetail } from './api.js';
import { button, el } from './dom.js';
import type { GraphModel, GraphNode } from './GraphModel.js';

/**
 * The origin, type and link type document nodes carry (the legend lists and hides them like any other). No entity or
 * relationship type can be written with parentheses, so these never share a legend entry with the graph's own.
 */
export const DOCUMENT_ORIGIN = 'DOCUMENT';
export const DOCUMENT_TYPE = '(Documents)';
export const MENTIONS = '(mentions)';
/** Page fill and outline: no entity type colour is this pale, so a document never reads as an entity. */
export const DOCUMENT_FILL = '#fef3c7';
export const DOCUMENT_STROKE = '#b45309';

// Entity ids start with a letter or digit, so this prefix never meets one.
const PREFIX = '~doc:';

/** The canvas id of a document's node. */
export function documentNodeId(documentId: string): string {
  return `${PREFIX}${documentId}`;
}

/** True for a document's node (not an entity). */
export function isDocumentNode(id: string | null | undefined): boolean {
  return id?.startsWith(PREFIX) ?? false;
}

/** The document id behind a document node. */
export function documentIdOf(nodeId: string): string {
  return nodeId.slice(PREFIX.length);
}

const ownerOf = (entityId: string) => `docs:${entityId}`;

type Documents = EntityDetail['documents'];

/** Shows and hides the documents mentioning an entity; each shown set is owned by its entity, so hiding undoes it. */
export class DocumentNodes {
  private readonly shown = new Map<string, Documents>();

  constructor(private readonly model: GraphModel) {}

  /** Whether the entity's documents are on the canvas. */
  showing(entityId: string): boolean {
    return this.shown.has(entityId);
  }

  /** Adds the documents (once each) around the entity, linked to it; or removes them when they are shown. */
  toggle(entityId: string, documents: Documents): void {
    if (this.shown.delete(entityId)) {
      this.model.removeOwner(ownerOf(entityId));
      return;
    }
    const entity = this.model.nodes.get(entityId);
    if (!entity) return;
    this.shown.set(entityId, documents);
    this.model.addEntities(
      documents.map((d) => ({ id: documentNodeId(d.id), type: DOCUMENT_TYPE, name: d.title, origin: DOCUMENT_ORIGIN })),
      () => ownerOf(entityId),
      { x: entity.x ?? 0, y: entity.y ?? 0 },
    );
    this.model.addRelationships(
      documents.map((d) => ({
        id: `~mentions:${d.id}>${entityId}`,
        type: MENTIONS,
        origin: DOCUMENT_ORIGIN,
        from: { id: documentNodeId(d.id) },
        to: { id: entityId },
      })),
    );
  }

  /** Forgets entities whose node left the canvas (their documents left with them). */
  prune(): void {
    for (const id of [...this.shown.keys()]) if (!this.model.nodes.has(id)) this.shown.delete(id);
  }

  /** The panel of a selected document node: its title, the entities it is linked to here, and its inspector link. */
  card(node: GraphNode, entityNames: string[], close: () => void): HTMLElement {
    const id = documentIdOf(node.id);
    return el(
      'div',
      { attrs: { 'data-field': 'document-card' } },
      el(
        'div',
        { className: 'panel-head' },
        el(
          'div',
          {},
          el('div', { className: 'type-line', text: 'Document' }),
          el('h2', { text: node.name, attrs: { 'data-field': 'name' } }),
        ),
        button('Close', close, { className: 'quiet', attrs: { 'data-action': 'close' } }),
      ),
      el('dl', { className: 'facts' }, el('dt', { text: 'Id' }), el('dd', { text: id, className: 'mono' })),
      el('p', { text: `Mentions ${entityNames.join(', ')}.` }),
      el('a', {
        text: 'Open in the document inspector',
        attrs: { href: `/knowledge/${encodeURIComponent(id)}`, 'data-action': 'open-document' },
      }),
    );
  }
}
