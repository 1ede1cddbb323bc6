// Registered sources, kept live over graphql-ws: status, next run, the last sync's counts and error, "Sync now".
import { useRights } from './role';
import { createClient } from 'graphql-ws';
import { useEffect, useState } from 'react';
import { apiKey, gql } from '../shared/graphql';
import { SOURCES_SUBSCRIPTION, SYNC_SOURCE_MUTATION, type SourceRow } from './api';
import { dashboardHref, Link } from './router';
import { Empty, ErrorNotice, formatDate, Loading, Panel } from './ui';

type Live =
  { status: 'connecting' } | { status: 'error'; error: unknown } | { status: 'ok'; rows: Map<string, SourceRow> };

/** Every source, updated as syncs run (the server sends each change). */
function useLiveSources(): Live {
  const [live, setLive] = useState<Live>({ status: 'connecting' });
  useEffect(() => {
    const url = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/graphql`;
    const key = apiKey();
    const client = createClient({
      url,
      lazy: true,
      retryAttempts: 3,
      connectionParams: key ? { authorization: `Bearer ${key}` } : {},
    });
    // The first answer of each source arrives at once; an empty list shows after a moment with none.
    const empty = setTimeout(
      () => setLive((l) => (l.status === 'connecting' ? { status: 'ok', rows: new Map() } : l)),
      1500,
    );
    const stop = client.subscribe<{ sourceUpdated: SourceRow }>(
      { query: SOURCES_SUBSCRIPTION.toString() },
      {
        next: (result) => {
          const row = result.data?.sourceUpdated;
          if (result.errors?.length)
            setLive({ status: 'error', error: new Error(result.errors[0]?.message ?? 'subscription failed') });
          else if (row)
            setLive((l) => ({ status: 'ok', rows: new Map(l.status === 'ok' ? l.rows : []).set(row.id, row) }));
        },
        error: (error) =>
          setLive({
            status: 'error',
            error: error instanceof Error ? error : new Error('the live connection to the server failed'),
          }),
        complete: () => undefined,
      },
    );
    return () => {
      clearTimeout(empty);
      stop();
      void client.dispose();
    };
  }, []);
  return live;
}

function SyncButton({ source }: { source: SourceRow }) {
  const [state, setState] = useState<{ busy: boolean; error?: unknown }>({ busy: false });
  const { canEdit } = useRights();
  const sync = async () => {
    setState({ busy: true });
    try {
      await gql(SYNC_SOURCE_MUTATION, { id: source.id });
      setState({ busy: false });
    } catch (error) {
      setState({ busy: false, error });
    }
  };
  if (!canEdit) return null;
  return (
    <>
      <button
        type="button"
        onClick={sync}
        disabled={state.busy || source.status === 'SYNCING'}
        aria-label={`Sync ${source.name} now`}
      >
        {source.status === 'SYNCING' ? 'Syncing…' : 'Sync now'}
      </button>
      {state.error !== undefined && <ErrorNotice error={state.error} title="Could not start the sync" />}
    </>
  );
}

/** The sources panel. */
export function SourcesPanel() {
  const live = useLiveSources();
  return (
    <Panel title="Sources" id="sources">
      <p className="muted">
        Git repositories, sites, spec URLs and folders kept in sync (cairn sources add, or createSource).
      </p>
      {live.status === 'connecting' && <Loading what="Loading sources" />}
      {live.status === 'error' && <ErrorNotice error={live.error} title="Could not load the sources" />}
      {live.status === 'ok' &&
        (live.rows.size === 0 ? (
          <Empty>No sources yet.</Empty>
        ) : (
          <div className="table-wrap">
            <table className="sources">
              <thead>
                <tr>
                  <th>Name</th>
                  <th>Kind</th>
                  <th>Status</th>
                  <th className="num">Documents</th>
                  <th>Last sync</th>
                  <th>Next run</th>
                  <th aria-label="Actions" />
                </tr>
              </thead>
              <tbody>
                {[...live.rows.values()]
                  .sort((a, b) => a.name.localeCompare(b.name))
                  .map((s) => (
                    <tr key={s.id} data-testid="source-row" data-name={s.name}>
                      <td>{s.name}</td>
                      <td>
                        <span className="badge">{s.kind}</span>
                      </td>
                      <td>
                        <span className="badge" data-testid="source-status">
                          {s.status}
                        </span>
                        {s.lastError && (
                          <div className="error-message" data-testid="source-error">
                            <code className="error-code">{s.lastErrorCode}</code> {s.lastError}
                          </div>
                        )}
                      </td>
                      <td className="num">
                        <Link
                          href={`${dashboardHref({ sourceId: s.id, sourceName: s.name })}#documents`}
                          data-testid="source-documents"
                        >
                          {s.documentCount}
                        </Link>
                      </td>
                      <td className="nowrap">
                        {formatDate(s.lastRunAt)}
                        {s.lastRunAt && (
                          <div className="muted" data-testid="source-counts">
                            +{s.counts.added} ~{s.counts.updated} −{s.counts.removed} ={s.counts.unchanged}
                            {s.counts.skipped > 0 ? ` skipped ${s.counts.skipped}` : ''}
                          </div>
                        )}
                      </td>
                      <td className="nowrap">
                        {s.schedule ? formatDate(s.nextRunAt) : <span className="muted">manual</span>}
                      </td>
                      <td>
                        <SyncButton source={s} />
                      </td>
                    </tr>
                  ))}
              </tbody>
            </table>
          </div>
        ))}
    </Panel>
  );
}
