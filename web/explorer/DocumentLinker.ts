// "Link a document": find a document by id or by text in its title or content, and link it to the entity.
import type { EntityDetail } from './api.js';
import { button, el } from './dom.js';
import { errorText, findDocuments, linkDocument } from './editApi.js';

/** A search box with results; choosing one links that document to the entity. */
export function documentLinker(d: EntityDetail, linked: (title: string) => void, cancel: () => void): HTMLElement {
  const query = el('input', {
    attrs: { type: 'search', id: 'link-document-query', placeholder: 'Document id or title…', spellcheck: 'false' },
  });
  const results = el('ul', { className: 'docs', attrs: { 'data-field': 'document-choices' } });
  const error = el('p', { className: 'form-error', attrs: { role: 'alert' } });
  error.hidden = true;
  const fail = (e: unknown) => {
    error.textContent = errorText(e);
    error.hidden = false;
  };
  const choose = (id: string) => linkDocument(id, d.id).then(linked, fail);
  const form = el(
    'form',
    { className: 'link-document', attrs: { 'aria-label': `Link a document to ${d.name}` } },
    el('label', { text: `Link a document to ${d.name}`, attrs: { for: 'link-document-query' } }),
    query,
    el(
      'div',
      { className: 'actions' },
      el('button', { text: 'Find', attrs: { type: 'submit', 'data-action': 'find-documents' } }),
      button('Cancel', cancel, { className: 'quiet' }),
    ),
    error,
    results,
  );
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    error.hidden = true;
    const text = query.value.trim();
    if (!text) return;
    findDocuments(text).then((docs) => {
      results.replaceChildren(
        ...(docs.length === 0 ? [el('li', { className: 'muted', text: 'No document matches.' })] : []),
        ...docs.map((doc) =>
          el(
            'li',
            {},
            button(doc.title, () => void choose(doc.id), {
              className: 'linklike',
              attrs: { 'data-action': 'choose-document', title: `Link ${doc.id}` },
            }),
            el('span', { className: 'muted', text: `${doc.documentType} · ${doc.id}` }),
          ),
        ),
      );
    }, fail);
  });
  return form;
}
