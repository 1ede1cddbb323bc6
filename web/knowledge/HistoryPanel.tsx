// The audit log's latest entries (admins), each with an undo where one is possible.
import { useState } from 'react';
import { gql } from '../shared/graphql';
import { AUDIT_LOG_QUERY, UNDO_JOB_MUTATION, UNDO_MUTATION, type AuditRow } from './api';
import { documentHref, explorerHref, Link } from './router';
import { Empty, ErrorNotice, formatDate, Loading, Panel } from './ui';
import { useQuery } from './useQuery';

/** Entries undo cannot revert (see docs/audit.md). */
const NOT_UNDOABLE = new Set(['undo', 'undoMerge']);

function Target({ row }: { row: AuditRow }) {
  const id = row.targetIds[0] ?? '';
  if (row.targetKind === 'DOCUMENT') return <Link href={documentHref(id)}>{id}</Link>;
  if (row.targetKind === 'ENTITY') return <a href={explorerHref(id)}>{id}</a>;
  return <span>{row.targetIds.join(' → ')}</span>;
}

/** Recent changes with undo; `refresh` reloads them, `onChanged` tells the page an undo changed something. */
export function HistoryPanel({ refresh, onChanged }: { refresh: number; onChanged(): void }) {
  const log = useQuery(AUDIT_LOG_QUERY, { first: 20 }, refresh);
  const [undoing, setUndoing] = useState<string | undefined>();
  const [error, setError] = useState<unknown>();

  /** Undoes one entry, or with `job` everything that entry's import or sync job wrote. */
  const undo = async (id: string, job?: string) => {
    setUndoing(id);
    setError(undefined);
    try {
      if (job) await gql(UNDO_JOB_MUTATION, { id: job });
      else await gql(UNDO_MUTATION, { auditId: id });
      log.reload();
      onChanged();
    } catch (e) {
      setError(e);
    } finally {
      setUndoing(undefined);
    }
  };

  return (
    <Panel title="History" id="history">
      {error ? <ErrorNotice error={error} title="Undo refused" /> : null}
      {log.status === 'loading' ? <Loading what="Loading the audit log" /> : null}
      {log.status === 'error' ? <ErrorNotice error={log.error} title="The audit log is for admins" /> : null}
      {log.status === 'ok' && log.data.auditLog.nodes.length === 0 ? <Empty>No change recorded yet.</Empty> : null}
      {log.status === 'ok' && log.data.auditLog.nodes.length > 0 ? (
        <table className="history" aria-label="Recent changes">
          <thead>
            <tr>
              <th>When</th>
              <th>Who</th>
              <th>What</th>
              <th>Target</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {log.data.auditLog.nodes.map((row) => (
              <tr key={row.id} data-testid="history-row" data-audit-id={row.id}>
                <td>{formatDate(String(row.at))}</td>
                <td>{row.actor.name}</td>
                <td>{row.operation}</td>
                <td>
                  <Target row={row} />
                </td>
                <td>
                  {row.undoneBy ? (
                    <span className="muted">undone</span>
                  ) : NOT_UNDOABLE.has(row.operation) ? null : (
                    <button type="button" disabled={undoing !== undefined} onClick={() => void undo(row.id)}>
                      Undo
                    </button>
                  )}
                  {row.jobId && !row.undoneBy ? (
                    <button
                      type="button"
                      disabled={undoing !== undefined}
                      onClick={() => void undo(row.id, row.jobId ?? undefined)}
                      title={`Undo everything job ${row.jobId} wrote`}
                    >
                      Undo job
                    </button>
                  ) : null}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </Panel>
  );
}
