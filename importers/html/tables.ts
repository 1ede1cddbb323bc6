import { collapsedText, type DomElement } from './dom.js';

const SECTIONS = new Set(['thead', 'tbody', 'tfoot']);

/** The rows of a table in document order (direct rows and rows of its sections, not of nested tables). */
function tableRows(table: DomElement): DomElement[] {
  const rows: DomElement[] = [];
  for (const child of Array.from(table.children)) {
    if (child.localName === 'tr') rows.push(child);
    else if (SECTIONS.has(child.localName)) {
      for (const row of Array.from(child.children)) if (row.localName === 'tr') rows.push(row);
    }
  }
  return rows;
}

/** Replaces a layout table (marked presentational, or holding another table) with its cells' content, in reading order. */
function unwrapLayoutTable(table: DomElement, rows: DomElement[]): void {
  const container = table.ownerDocument.createElement('div');
  for (const row of rows) {
    for (const cell of Array.from(row.children)) {
      const block = table.ownerDocument.createElement('div');
      block.append(...Array.from(cell.childNodes));
      container.append(block);
    }
  }
  table.replaceWith(container);
}

// GFM needs a header row, and the plugin keeps header-less tables as raw HTML: the first row is promoted.
/** Shapes a table so turndown-plugin-gfm writes it as a GFM table (or unwraps it when it is only layout). */
export function normaliseTable(table: DomElement): void {
  const rows = tableRows(table);
  if (rows.length === 0 || collapsedText(table) === '') {
    table.remove();
    return;
  }
  const role = table.getAttribute('role')?.trim().toLowerCase();
  if (role === 'presentation' || role === 'none' || table.querySelector('table')) {
    unwrapLayoutTable(table, rows);
    return;
  }
  const first = rows[0];
  if (!first) return;
  const sections = Array.from(table.children).filter((child) => SECTIONS.has(child.localName));
  let head = first.parentElement?.localName === 'thead' ? first.parentElement : null;
  if (!head) {
    for (const section of sections) if (section.localName === 'thead' && !section.querySelector('tr')) section.remove();
    head = table.ownerDocument.createElement('thead');
    head.append(first);
    table.prepend(head);
  }
  // The plugin writes a separator under every row of a <thead>: only the first may stay there.
  const extra = Array.from(head.children).filter((row) => row !== first && row.localName === 'tr');
  if (extra.length > 0) {
    const body = table.ownerDocument.createElement('tbody');
    body.append(...extra);
    head.after(body);
  }
}
