// Edits a document's title, type, tags, expiry and content through updateDocument; the change is audited and can be
// undone from the dashboard's History.
import { useState, type FormEvent } from 'react';
import { gql } from '../shared/graphql';
import { DOCUMENT_TYPES, UPDATE_DOCUMENT_MUTATION, type DocumentDetail } from './api';
import { ErrorNotice, Panel } from './ui';

type DocumentTypeName = (typeof DOCUMENT_TYPES)[number];

/** An ISO time as the value of a datetime-local input (local time, minutes), or '' for none. */
function toLocalInput(iso: string | null | undefined): string {
  if (!iso) return '';
  const d = new Date(iso);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/** The edit form; `onSaved` reloads the inspector, `onCancel` closes the form. */
export function DocumentEditor({ doc, onSaved, onCancel }: { doc: DocumentDetail; onSaved(): void; onCancel(): void }) {
  const [title, setTitle] = useState(doc.title);
  const [type, setType] = useState<DocumentTypeName>(doc.documentType);
  const [tags, setTags] = useState(doc.tags.join(', '));
  const [expires, setExpires] = useState(toLocalInput(doc.expiresAt as string | null));
  const [content, setContent] = useState(doc.content);
  const [state, setState] = useState<{ saving: boolean; error?: unknown }>({ saving: false });

  const save = async (e: FormEvent) => {
    e.preventDefault();
    setState({ saving: true });
    try {
      await gql(UPDATE_DOCUMENT_MUTATION, {
        id: doc.id,
        input: {
          title,
          documentType: type,
          tags: tags
            .split(',')
            .map((t) => t.trim())
            .filter(Boolean),
          expiresAt: expires ? new Date(expires).toISOString() : null,
          content,
        },
      });
      onSaved();
    } catch (error) {
      setState({ saving: false, error });
    }
  };

  return (
    <Panel title="Edit document" id="edit-document">
      <form className="edit-form" onSubmit={save} aria-label="Edit document">
        <label>
          Title
          <input name="title" value={title} onChange={(e) => setTitle(e.target.value)} required />
        </label>
        <label>
          Type
          <select name="documentType" value={type} onChange={(e) => setType(e.target.value as DocumentTypeName)}>
            {DOCUMENT_TYPES.map((t) => (
              <option key={t}>{t}</option>
            ))}
          </select>
        </label>
        <label>
          Tags (comma-separated)
          <input name="tags" value={tags} onChange={(e) => setTags(e.target.value)} />
        </label>
        <label>
          Expires (empty: never)
          <input name="expiresAt" type="datetime-local" value={expires} onChange={(e) => setExpires(e.target.value)} />
        </label>
        <label>
          Content
          <textarea name="content" rows={16} value={content} onChange={(e) => setContent(e.target.value)} required />
        </label>
        {state.error ? <ErrorNotice error={state.error} title="Not saved" /> : null}
        <div className="form-actions">
          <button type="submit" className="primary" disabled={state.saving}>
            {state.saving ? 'Saving…' : 'Save'}
          </button>
          <button type="button" onClick={onCancel} disabled={state.saving}>
            Cancel
          </button>
        </div>
      </form>
    </Panel>
  );
}
