// Knowledge gaps: queries enrichContext answered poorly, most frequent first, in cursor pages.
import { useState } from 'react';
import { GAPS_QUERY } from './api';
import { Empty, ErrorNotice, formatDate, formatScore, Loading, Panel } from './ui';
import { useQuery } from './useQuery';

const PAGE = 20;

/** The knowledge-gaps list; `refresh` reloads it. */
export function GapsList({ refresh }: { refresh: number }) {
  const [cursors, setCursors] = useState<(string | null)[]>([null]);
  const q = useQuery(GAPS_QUERY, { first: PAGE, after: cursors.at(-1) ?? null }, refresh);
  const endCursor = q.status === 'ok' ? q.data.knowledgeGaps.pageInfo.endCursor : null;
  return (
    <Panel title="Knowledge gaps" id="gaps">
      <p className="muted">
        Questions agents asked that the knowledge base answered poorly: candidates for new documents.
      </p>
      {q.status === 'loading' && <Loading what="Loading gaps" />}
      {q.status === 'error' && <ErrorNotice error={q.error} title="Could not load the gaps" />}
      {q.status === 'ok' &&
        (q.data.knowledgeGaps.nodes.length === 0 ? (
          <Empty>No gaps recorded: every question so far found good matches.</Empty>
        ) : (
          <>
            <table className="gaps">
              <thead>
                <tr>
                  <th>Query</th>
                  <th className="num">Times</th>
                  <th className="num">Best score</th>
                  <th>Last seen</th>
                </tr>
              </thead>
              <tbody>
                {q.data.knowledgeGaps.nodes.map((g) => (
                  <tr key={g.query} data-testid="gap-row">
                    <td className="wrap">{g.query}</td>
                    <td className="num">{g.count}</td>
                    <td className="num">{formatScore(g.bestScore)}</td>
                    <td className="nowrap">{formatDate(g.lastSeenAt)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
            {(cursors.length > 1 || q.data.knowledgeGaps.pageInfo.hasNextPage) && (
              <nav className="pager" aria-label="Gap pages">
                <span>{q.data.knowledgeGaps.totalCount} gaps</span>
                <button type="button" onClick={() => setCursors((c) => c.slice(0, -1))} disabled={cursors.length <= 1}>
                  Previous
                </button>
                <button
                  type="button"
                  onClick={() => setCursors((c) => [...c, endCursor])}
                  disabled={!q.data.knowledgeGaps.pageInfo.hasNextPage}
                >
                  Next
                </button>
              </nav>
            )}
          </>
        ))}
    </Panel>
  );
}
