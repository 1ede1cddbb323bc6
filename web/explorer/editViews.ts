// Small views of the editor: the "saved, undo in History" note, the delete confirmation and the relationship form.
import type { EntityDetail } from './api.js';
import { button, el } from './dom.js';
import { errorText } from './editApi.js';

/** Where an admin undoes a change: the History panel of /knowledge. */
export const HISTORY_HREF = '/knowledge#history';

/** What was just done, with a link to History, where it can be undone. */
export function historyNote(text: string): HTMLElement {
  return el(
    'p',
    { className: 'edit-note', attrs: { role: 'status', 'data-field': 'edit-note' } },
    `${text} `,
    el('a', { text: 'Undo in History', attrs: { href: HISTORY_HREF, 'data-action': 'history' } }),
  );
}

function plural(n: number, one: string, many: string, capped = false): string {
  return `${n}${capped ? '+' : ''} ${n === 1 && !capped ? one : many}`;
}

/** What deleting an entity also removes, counted: its relationships and its documents' mention links. */
export function deleteConsequences(d: EntityDetail): string {
  const rels = plural(d.relationships.length, 'relationship', 'relationships');
  // The panel loads at most 50 documents, so 50 means "50 or more".
  const docs = plural(d.documents.length, 'mention link', 'mention links', d.documents.length >= 50);
  return `This also deletes its ${rels} and ${docs} to documents (the documents stay).`;
}

/** Asks before deleting an entity, saying what goes with it. */
export function deleteConfirmation(d: EntityDetail, confirm: () => void, cancel: () => void): HTMLElement {
  const yes = button('Delete', confirm, { className: 'danger', attrs: { 'data-action': 'confirm-delete' } });
  return el(
    'div',
    { className: 'confirm', attrs: { role: 'alertdialog', 'aria-label': `Delete ${d.name}?` } },
    el('p', {}, el('strong', { text: `Delete ${d.name}?` })),
    el('p', { text: deleteConsequences(d), attrs: { 'data-field': 'delete-consequences' } }),
    el('p', { className: 'muted', text: 'The change is recorded; it can be undone from History.' }),
    el('div', { className: 'actions' }, yes, button('Cancel', cancel, { className: 'quiet' })),
  );
}

/** Names the type of a relationship drawn with "Link to…". */
export function relationshipTypeForm(
  fromName: string,
  toName: string,
  o: { save(type: string): Promise<void>; cancel(): void },
): HTMLElement {
  const type = el('input', {
    attrs: { type: 'text', id: 'relationship-type', placeholder: 'e.g. DEPENDS_ON', spellcheck: 'false', required: '' },
  });
  const error = el('p', { className: 'form-error', attrs: { role: 'alert' } });
  error.hidden = true;
  const form = el(
    'form',
    { className: 'relationship-form', attrs: { 'aria-label': 'New relationship' } },
    el('p', { text: `New relationship: ${fromName} → ${toName}` }),
    el('label', { text: 'Type (UPPER_SNAKE)', attrs: { for: 'relationship-type' } }),
    type,
    error,
    el(
      'div',
      { className: 'actions' },
      el('button', { text: 'Create relationship', attrs: { type: 'submit', 'data-action': 'save-relationship' } }),
      button('Cancel', o.cancel, { className: 'quiet', attrs: { 'data-action': 'cancel-link' } }),
    ),
  );
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    error.hidden = true;
    o.save(type.value.trim().toUpperCase()).catch((err: unknown) => {
      error.textContent = errorText(err);
      error.hidden = false;
    });
  });
  return form;
}
