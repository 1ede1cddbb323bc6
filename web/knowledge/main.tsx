// The knowledge pages: a dashboard at /knowledge and a document inspector at /knowledge/<id>.
import { useCallback, useEffect, useState } from 'react';
import { createRoot } from 'react-dom/client';
import '../shared/admin.css';
import '../shared/topbar.css';
import './knowledge.css';
import { AgentView } from './AgentView';
import { DocumentInspector } from './DocumentInspector';
import { DocumentTable } from './DocumentTable';
import { GapsList } from './GapsList';
import { HistoryPanel } from './HistoryPanel';
import { ImportForm } from './ImportForm';
import { UploadDrop } from './UploadDrop';
import { changeApiKey, KeyGate } from './KeyGate';
import { dashboardHref, Link, useRoute } from './router';
import { SearchPanel } from './SearchPanel';
import { SourcesPanel } from './SourcesPanel';
import { SummaryCards } from './SummaryCards';
import { useRights } from './role';

function Dashboard({ params }: { params: URLSearchParams }) {
  // Bumped after a delete or a finished import so the counts, the table and the gaps reload.
  const [refresh, setRefresh] = useState(0);
  const changed = useCallback(() => setRefresh((n) => n + 1), []);
  const { canEdit, isAdmin } = useRights();
  return (
    <>
      <h1>Knowledge</h1>
      <SummaryCards refresh={refresh} />
      <SearchPanel />
      <AgentView onGapRecorded={changed} />
      <DocumentTable params={params} refresh={refresh} onDeleted={changed} />
      <SourcesPanel />
      <div className="two-columns">
        {canEdit && <ImportForm onFinished={changed} />}
        {canEdit && <UploadDrop onFinished={changed} />}
        <GapsList refresh={refresh} />
      </div>
      {isAdmin && <HistoryPanel refresh={refresh} onChanged={changed} />}
    </>
  );
}

function App() {
  const route = useRoute();
  useEffect(() => {
    document.title = route.page === 'document' ? `${route.id} · Cairn` : 'Knowledge · Cairn';
  }, [route]);
  return (
    <>
      <header className="cairn-topbar">
        <Link href={dashboardHref()} className="brand">
          Cairn
        </Link>
        <nav aria-label="Admin pages">
          <Link href={dashboardHref()} aria-current="page">
            Knowledge
          </Link>
          <a href="/explorer">Graph explorer</a>
          <a href="/graphiql">GraphiQL</a>
        </nav>
        <button type="button" className="key-button" onClick={() => void changeApiKey()}>
          API key…
        </button>
      </header>
      <main className="page">
        <KeyGate>
          {route.page === 'document' ? (
            <DocumentInspector key={route.id} id={route.id} />
          ) : (
            <Dashboard params={route.params} />
          )}
        </KeyGate>
      </main>
    </>
  );
}

const root = document.getElementById('app');
if (!root) throw new Error('index.html has no #app element');
createRoot(root).render(<App />);
