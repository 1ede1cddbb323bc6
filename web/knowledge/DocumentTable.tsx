// The document table: filters kept in the URL (so tag links can point at it), cursor pages, delete with confirmation.
import { useEffect, useState, type FormEvent } from 'react';
import { gql } from '../shared/graphql';
import { BulkActions } from './BulkActions';
import { useRights } from './role';
import { DELETE_MUTATION, DOCUMENT_TYPES, DOCUMENTS_QUERY, type DocumentFilter, type DocumentRow } from './api';
import { dashboardHref, documentHref, Link, navigate } from './router';
import { Empty, ErrorNotice, formatDate, Loading, Panel } from './ui';
import { useQuery } from './useQuery';

const FILTER_KEYS = ['type', 'source', 'tags', 'text'] as const;
type FilterValues = Record<(typeof FILTER_KEYS)[number], string>;
const PAGE_SIZES = [10, 20, 50, 100];

function readFilters(params: URLSearchParams): FilterValues {
  return {
    type: params.get('type') ?? '',
    source: params.get('source') ?? '',
    tags: params.get('tags') ?? '',
    text: params.get('text') ?? '',
  };
}

function toFilter(v: FilterValues): DocumentFilter | undefined {
  const f: DocumentFilter = {};
  // A type from the URL goes as it is: the server answers an unknown one with an error naming the valid types.
  if (v.type) f.types = [v.type] as DocumentFilter['types'];
  if (v.source.trim()) f.sources = [v.source.trim()];
  if (v.tags.trim()) f.tags = v.tags.trim();
  if (v.text.trim()) f.text = v.text.trim();
  return Object.keys(f).length > 0 ? f : undefined;
}

function FilterForm({ initial }: { initial: FilterValues }) {
  const [values, setValues] = useState(initial);
  const set = (k: keyof FilterValues) => (e: { target: { value: string } }) =>
    setValues({ ...values, [k]: e.target.value });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    navigate(dashboardHref(values));
  };
  const active = FILTER_KEYS.some((k) => initial[k]);
  return (
    <form className="form-row" onSubmit={submit} aria-label="Filter documents">
      <label>
        Type
        <select name="type" value={values.type} onChange={set('type')}>
          <option value="">any</option>
          {DOCUMENT_TYPES.map((t) => (
            <option key={t}>{t}</option>
          ))}
        </select>
      </label>
      <label>
        Source
        <input name="source" value={values.source} onChange={set('source')} placeholder="exact source" />
      </label>
      <label>
        Tags
        <input name="tags" value={values.tags} onChange={set('tags')} placeholder="payments+ach|billing" />
      </label>
      <label className="grow">
        Text
        <input name="text" type="search" value={values.text} onChange={set('text')} placeholder="in title or content" />
      </label>
      <button type="submit">Filter</button>
      {active && (
        <Link href={dashboardHref()} className="button-link">
          Clear
        </Link>
      )}
    </form>
  );
}

function Row({
  doc,
  onDeleted,
  selected,
  onSelect,
}: {
  doc: DocumentRow;
  onDeleted(): void;
  selected: boolean;
  onSelect(on: boolean): void;
}) {
  const [state, setState] = useState<{ busy: boolean; error?: unknown }>({ busy: false });
  const { canEdit, isAdmin } = useRights();
  const remove = async () => {
    const question = `Delete “${doc.title}” (${doc.id}) and its ${doc.chunkCount} chunks? It can be undone from History.`;
    if (!window.confirm(question)) return;
    setState({ busy: true });
    try {
      await gql(DELETE_MUTATION, { id: doc.id });
      onDeleted();
    } catch (error) {
      setState({ busy: false, error });
    }
  };
  return (
    <tr data-testid="document-row" data-id={doc.id}>
      <td>
        {canEdit && (
          <input
            type="checkbox"
            checked={selected}
            onChange={(e) => onSelect(e.target.checked)}
            aria-label={`Select ${doc.title}`}
          />
        )}
      </td>
      <td>
        <Link href={documentHref(doc.id)}>{doc.title}</Link>
        <div className="muted mono">{doc.id}</div>
        {state.error !== undefined && <ErrorNotice error={state.error} title="Could not delete" />}
      </td>
      <td>
        <span className="badge">{doc.documentType}</span>
      </td>
      <td className="wrap">{doc.source ?? <span className="muted">–</span>}</td>
      <td>
        {doc.tags.map((t) => (
          <Link key={t} href={dashboardHref({ tags: t })} className="tag">
            {t}
          </Link>
        ))}
      </td>
      <td className="num">{doc.chunkCount}</td>
      <td className="nowrap">{formatDate(doc.updatedAt)}</td>
      <td>
        {isAdmin && (
          <button
            type="button"
            className="danger"
            onClick={remove}
            disabled={state.busy}
            aria-label={`Delete ${doc.title}`}
          >
            {state.busy ? 'Deleting…' : 'Delete'}
          </button>
        )}
      </td>
    </tr>
  );
}

function DocumentRows({ nodes, onDeleted }: { nodes: DocumentRow[]; onDeleted(): void }) {
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  const { canEdit } = useRights();
  const rows = nodes.filter((d) => selected.has(d.id));
  const all = nodes.length > 0 && rows.length === nodes.length;
  const select = (id: string, on: boolean) =>
    setSelected((s) => {
      const next = new Set(s);
      if (on) next.add(id);
      else next.delete(id);
      return next;
    });
  return (
    <div className="table-wrap">
      {canEdit && (
        <BulkActions
          selected={rows}
          onDone={() => {
            setSelected(new Set());
            onDeleted();
          }}
        />
      )}
      <table className="documents">
        <thead>
          <tr>
            <th>
              {canEdit && (
                <input
                  type="checkbox"
                  checked={all}
                  onChange={(e) => setSelected(new Set(e.target.checked ? nodes.map((d) => d.id) : []))}
                  aria-label="Select every document on this page"
                />
              )}
            </th>
            <th>Title</th>
            <th>Type</th>
            <th>Source</th>
            <th>Tags</th>
            <th className="num">Chunks</th>
            <th>Updated</th>
            <th aria-label="Actions" />
          </tr>
        </thead>
        <tbody>
          {nodes.map((d) => (
            <Row
              key={d.id}
              doc={d}
              onDeleted={onDeleted}
              selected={selected.has(d.id)}
              onSelect={(on) => select(d.id, on)}
            />
          ))}
        </tbody>
      </table>
    </div>
  );
}

function Pages({
  filter,
  sourceId,
  refresh,
  onDeleted,
}: {
  filter: DocumentFilter | undefined;
  sourceId: string | null;
  refresh: number;
  onDeleted(): void;
}) {
  const [pageSize, setPageSize] = useState(20);
  // Cursors of the pages seen so far: the last one is the current page's `after`.
  const [cursors, setCursors] = useState<(string | null)[]>([null]);
  const after = cursors.at(-1) ?? null;
  const q = useQuery(DOCUMENTS_QUERY, { filter, first: pageSize, after, sourceId }, refresh);
  const emptyLaterPage = q.status === 'ok' && q.data.documents.nodes.length === 0 && cursors.length > 1;
  useEffect(() => {
    if (emptyLaterPage) setCursors((c) => c.slice(0, -1)); // the last row of a later page was deleted
  }, [emptyLaterPage]);

  if (q.status === 'loading') return <Loading what="Loading documents" />;
  if (q.status === 'error') return <ErrorNotice error={q.error} title="Could not load documents" />;
  const { nodes, totalCount, pageInfo } = q.data.documents;
  if (totalCount === 0)
    return (
      <Empty>
        {filter || sourceId
          ? 'No document matches these filters.'
          : 'No documents yet: import a URL below or write one with createDocument.'}
      </Empty>
    );
  const start = (cursors.length - 1) * pageSize;
  return (
    <>
      <DocumentRows nodes={nodes} onDeleted={onDeleted} />
      <nav className="pager" aria-label="Pages">
        <span data-testid="page-status">
          {start + 1}–{start + nodes.length} of {totalCount}
        </span>
        <button type="button" onClick={() => setCursors((c) => c.slice(0, -1))} disabled={cursors.length <= 1}>
          Previous
        </button>
        <button
          type="button"
          onClick={() => setCursors((c) => [...c, pageInfo.endCursor])}
          disabled={!pageInfo.hasNextPage}
        >
          Next
        </button>
        <label className="inline">
          Per page{' '}
          <select
            name="pageSize"
            value={pageSize}
            onChange={(e) => {
              setPageSize(Number(e.target.value));
              setCursors([null]);
            }}
          >
            {PAGE_SIZES.map((n) => (
              <option key={n}>{n}</option>
            ))}
          </select>
        </label>
      </nav>
    </>
  );
}

/** Documents matching the URL's filters (`type`, `source`, `tags`, `text`, and `sourceId`: a registered source's), newest first. */
export function DocumentTable({
  params,
  refresh,
  onDeleted,
}: {
  params: URLSearchParams;
  refresh: number;
  onDeleted(): void;
}) {
  const values = readFilters(params);
  const sourceId = params.get('sourceId');
  const key = JSON.stringify({ ...values, sourceId });
  return (
    <Panel title="Documents" id="documents">
      {sourceId && (
        <p className="notice" data-testid="source-filter">
          Only the documents of source <code>{params.get('sourceName') ?? sourceId}</code>.{' '}
          <Link href={dashboardHref()}>Show all</Link>
        </p>
      )}
      {/* New filters start a fresh form and a fresh cursor stack (sibling keys must differ). */}
      <FilterForm key={`form:${key}`} initial={values} />
      <Pages
        key={`pages:${key}`}
        filter={toFilter(values)}
        sourceId={sourceId}
        refresh={refresh}
        onDeleted={onDeleted}
      />
    </Panel>
  );
}
