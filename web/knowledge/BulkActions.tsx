// Bulk actions on the rows selected in the document table: add tags, remove tags, delete (after a confirmation that
// says what goes). Each document is one audited updateDocument or deleteDocument, undoable from History.
import { useRights } from './role';
import { useState, type FormEvent } from 'react';
import { gql } from '../shared/graphql';
import { DELETE_MUTATION, UPDATE_DOCUMENT_MUTATION, type DocumentRow } from './api';
import { ErrorNotice } from './ui';

function parseTags(text: string): string[] {
  return text.split(/[\s,]+/).filter(Boolean);
}

/** Runs `write` on every document, all of them even when some fail; throws the first failure, naming how many. */
async function forEach(docs: DocumentRow[], write: (doc: DocumentRow) => Promise<unknown>): Promise<void> {
  const results = await Promise.allSettled(docs.map(write));
  const failed = results.flatMap((r) => (r.status === 'rejected' ? [r.reason as unknown] : []));
  if (failed.length === 0) return;
  const first = failed[0];
  const why = first instanceof Error ? first.message : String(first);
  throw new Error(`${failed.length} of ${docs.length} documents were not changed: ${why}`);
}

/** Asks before a bulk delete, saying what goes. */
function DeleteConfirm(props: { what: string; n: number; busy: boolean; onConfirm(): void; onCancel(): void }) {
  return (
    <span role="alertdialog" aria-label="Delete the selected documents?">
      Delete {props.what}? The change can be undone from History.{' '}
      <button
        type="button"
        className="danger"
        disabled={props.busy}
        data-action="bulk-delete-confirm"
        onClick={props.onConfirm}
      >
        Delete {props.n}
      </button>{' '}
      <button type="button" onClick={props.onCancel}>
        Cancel
      </button>
    </span>
  );
}

/** The bar above the table while rows are selected; `onDone` reloads the table and clears the selection. */
export function BulkActions({ selected, onDone }: { selected: DocumentRow[]; onDone(): void }) {
  const [tags, setTags] = useState('');
  const [confirming, setConfirming] = useState(false);
  const { isAdmin } = useRights();
  const [state, setState] = useState<{ busy: boolean; error?: unknown; note?: string }>({ busy: false });
  const n = selected.length;
  if (n === 0)
    return state.note || state.error !== undefined ? (
      <div className="bulk-bar" data-testid="bulk-bar">
        {state.note && <span role="status">{state.note}</span>}
        {state.error !== undefined && <ErrorNotice error={state.error} title="Bulk change incomplete" />}
      </div>
    ) : null;
  const noun = n === 1 ? 'document' : 'documents';

  const act = async (what: string, write: (doc: DocumentRow) => Promise<unknown>) => {
    setState({ busy: true }); // a new action's note replaces the last one's
    try {
      await forEach(selected, write);
      setState({ busy: false, note: `${what} ${n} ${noun}. Undo from History.` });
      setTags('');
      setConfirming(false);
      onDone();
    } catch (error) {
      setState({ busy: false, error });
      onDone();
    }
  };
  const retag = (e: FormEvent, add: boolean) => {
    e.preventDefault();
    const given = parseTags(tags);
    if (given.length === 0) return;
    void act(add ? 'Tagged' : 'Untagged', (doc) => {
      const next = add ? [...new Set([...doc.tags, ...given])] : doc.tags.filter((t) => !given.includes(t));
      return gql(UPDATE_DOCUMENT_MUTATION, { id: doc.id, input: { tags: next } });
    });
  };
  const chunks = selected.reduce((sum, d) => sum + d.chunkCount, 0);

  return (
    <div className="bulk-bar" role="region" aria-label="Bulk actions" data-testid="bulk-bar">
      <strong data-testid="bulk-count">
        {n} {noun} selected
      </strong>
      <form className="form-row" onSubmit={(e) => retag(e, true)} aria-label="Tag the selected documents">
        <input
          name="bulkTags"
          value={tags}
          onChange={(e) => setTags(e.target.value)}
          placeholder="tags to add or remove"
        />
        <button type="submit" disabled={state.busy} data-action="bulk-tag">
          Add tags
        </button>
        <button type="button" disabled={state.busy} data-action="bulk-untag" onClick={(e) => retag(e, false)}>
          Remove tags
        </button>
      </form>
      {confirming ? (
        <DeleteConfirm
          what={`${n} ${noun} with their ${chunks} chunks`}
          n={n}
          busy={state.busy}
          onConfirm={() => void act('Deleted', (doc) => gql(DELETE_MUTATION, { id: doc.id }))}
          onCancel={() => setConfirming(false)}
        />
      ) : (
        isAdmin && (
          <button type="button" className="danger" data-action="bulk-delete" onClick={() => setConfirming(true)}>
            Delete selected…
          </button>
        )
      )}
      {state.note && <span role="status">{state.note}</span>}
      {state.error !== undefined && <ErrorNotice error={state.error} title="Bulk change incomplete" />}
    </div>
  );
}
