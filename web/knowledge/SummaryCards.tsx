// The dashboard's counts: documents, chunks, entities, relationships, by type, top tags and the embedder.
import { SUMMARY_QUERY, type CountByKey } from './api';
import { dashboardHref, Link } from './router';
import { Empty, ErrorNotice, Loading } from './ui';
import { useQuery } from './useQuery';

function Card({ label, value, testId }: { label: string; value: number | string; testId: string }) {
  return (
    <div className="card" data-testid={testId}>
      <div className="card-value">{typeof value === 'number' ? value.toLocaleString() : value}</div>
      <div className="card-label">{label}</div>
    </div>
  );
}

function Counts({
  title,
  counts,
  link,
  testId,
}: {
  title: string;
  counts: CountByKey[];
  link?: (key: string) => string;
  testId: string;
}) {
  return (
    <div className="card card-list" data-testid={testId}>
      <div className="card-label">{title}</div>
      {counts.length === 0 ? (
        <Empty>None yet.</Empty>
      ) : (
        <ul className="counts">
          {counts.map((c) => (
            <li key={c.key}>
              {link ? <Link href={link(c.key)}>{c.key}</Link> : <span>{c.key}</span>}{' '}
              <span className="count">{c.count}</span>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

/** Summary cards; `refresh` changes after writes so the counts follow. */
export function SummaryCards({ refresh }: { refresh: number }) {
  const q = useQuery(SUMMARY_QUERY, {}, refresh);
  if (q.status === 'loading') return <Loading what="Loading counts" />;
  if (q.status === 'error') return <ErrorNotice error={q.error} title="Could not load the counts" />;
  const { knowledgeStats: k, graphStats: g } = q.data;
  const e = k.embedder;
  return (
    <div className="cards" aria-label="Summary">
      <Card label="Documents" value={k.documentCount} testId="count-documents" />
      <Card label="Chunks" value={k.chunkCount} testId="count-chunks" />
      <Card label="Entities" value={g.entityCount} testId="count-entities" />
      <Card label="Relationships" value={g.relationshipCount} testId="count-relationships" />
      <Counts title="Documents by type" counts={k.byType} link={(t) => dashboardHref({ type: t })} testId="by-type" />
      <Counts title="Entities by type" counts={g.byType} testId="entities-by-type" />
      <Counts title="Top tags" counts={k.topTags} link={(t) => dashboardHref({ tags: t })} testId="top-tags" />
      <div className="card" data-testid="embedder">
        <div className="card-value card-value-small">{e.provider}</div>
        <div className="card-label">
          Embedder: {e.model}, {e.dimensions} dimensions
        </div>
      </div>
    </div>
  );
}
