// The document inspector: metadata, tags linking to the filtered table, sanitised markdown, chunks and entities.
import { useRights } from './role';
import { useMemo, useState, type ReactNode } from 'react';
import { DOCUMENT_QUERY, type DocumentDetail } from './api';
import { DocumentEditor } from './DocumentEditor';
import { renderMarkdown } from './markdown';
import { dashboardHref, explorerHref, Link } from './router';
import { Empty, ErrorNotice, formatDate, Loading, Panel } from './ui';
import { useQuery } from './useQuery';

function Content({ markdown }: { markdown: string }) {
  const html = useMemo(() => renderMarkdown(markdown), [markdown]);
  // Sanitised by DOMPurify in renderMarkdown; the CSP blocks inline scripts as a second line.
  return <article className="markdown" data-testid="document-content" dangerouslySetInnerHTML={{ __html: html }} />;
}

function Metadata({ doc }: { doc: DocumentDetail }) {
  const rows: [string, ReactNode][] = [
    ['Id', <code>{doc.id}</code>],
    ['Type', <span className="badge">{doc.documentType}</span>],
    ['Source', doc.source ?? <span className="muted">–</span>],
    ['Created', formatDate(doc.createdAt)],
    ['Updated', formatDate(doc.updatedAt)],
    ['Expires', doc.expiresAt ? formatDate(doc.expiresAt) : <span className="muted">never</span>],
    ['Chunks', doc.chunkCount],
    ['Content hash', <code className="wrap">{doc.contentHash}</code>],
  ];
  return (
    <dl className="meta" data-testid="document-meta">
      {rows.map(([k, v]) => (
        <div key={k}>
          <dt>{k}</dt>
          <dd>{v}</dd>
        </div>
      ))}
      <div>
        <dt>Tags</dt>
        <dd data-testid="document-tags">
          {doc.tags.length === 0 ? (
            <span className="muted">none</span>
          ) : (
            doc.tags.map((t) => (
              <Link key={t} href={dashboardHref({ tags: t })} className="tag">
                {t}
              </Link>
            ))
          )}
        </dd>
      </div>
    </dl>
  );
}

/** The content, chunks, metadata and entities of a document. */
function InspectorBody({ doc }: { doc: DocumentDetail }) {
  return (
    <div className="inspector-grid">
      <div className="inspector-main">
        <Panel title="Content">
          <Content markdown={doc.content} />
        </Panel>
        <Panel title={`Chunks (${doc.chunks.length})`}>
          <ol className="chunks">
            {doc.chunks.map((c) => (
              <li key={c.id} data-testid="chunk">
                <div className="muted">
                  #{c.ordinal} · chars {c.charStart}–{c.charEnd}
                </div>
                <pre className="chunk-text">{c.content}</pre>
              </li>
            ))}
          </ol>
        </Panel>
      </div>
      <aside className="inspector-side">
        <Panel title="Metadata">
          <Metadata doc={doc} />
          <h3>JSON metadata</h3>
          <pre className="json" data-testid="document-json">
            {JSON.stringify(doc.metadata, null, 2)}
          </pre>
        </Panel>
        <Panel title={`Entities (${doc.entities.length})`}>
          {doc.entities.length === 0 ? (
            <Empty>No entity is linked to this document.</Empty>
          ) : (
            <ul className="entities">
              {doc.entities.map((e) => (
                <li key={e.id} data-testid="entity">
                  <a href={explorerHref(e.id)}>{e.name}</a> <span className="badge">{e.type}</span>
                  {e.description && <div className="muted">{e.description}</div>}
                </li>
              ))}
            </ul>
          )}
        </Panel>
      </aside>
    </div>
  );
}

/** The inspector for one document id. */
export function DocumentInspector({ id }: { id: string }) {
  const q = useQuery(DOCUMENT_QUERY, { id });
  const [editing, setEditing] = useState(false);
  const { canEdit } = useRights();
  const back = (
    <Link href={dashboardHref()} className="back">
      ← All documents
    </Link>
  );
  if (q.status === 'loading') return <Loading what="Loading the document" />;
  if (q.status === 'error')
    return (
      <>
        {back}
        <ErrorNotice error={q.error} title="Could not load the document" />
      </>
    );
  const doc = q.data.document;
  if (!doc) {
    return (
      <>
        {back}
        <div className="notice" role="alert">
          <strong>Not found</strong> <code className="error-code">NOT_FOUND</code>
          <div>
            No document has the id <code>{id}</code> (it may have been deleted or expired).
          </div>
        </div>
      </>
    );
  }
  return (
    <div className="inspector">
      {back}
      <h1 data-testid="document-title">{doc.title}</h1>
      {editing ? (
        <DocumentEditor
          doc={doc}
          onSaved={() => {
            setEditing(false);
            q.reload();
          }}
          onCancel={() => setEditing(false)}
        />
      ) : (
        canEdit && (
          <button type="button" onClick={() => setEditing(true)}>
            Edit
          </button>
        )
      )}
      <InspectorBody doc={doc} />
    </div>
  );
}
