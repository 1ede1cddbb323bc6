// Small presentational pieces shared by the knowledge pages: errors, loading and empty states, formatting.
import type { ReactNode } from 'react';
import { GraphQLRequestError } from '../shared/graphql';

/** The code and message of any error: GraphQL errors keep theirs, network failures become NETWORK_ERROR. */
export function describeError(error: unknown): { code: string; message: string } {
  if (error instanceof GraphQLRequestError) return { code: error.code, message: error.message };
  if (error instanceof TypeError)
    return { code: 'NETWORK_ERROR', message: `the server could not be reached (${error.message})` };
  return { code: 'ERROR', message: error instanceof Error ? error.message : String(error) };
}

/** A friendly error box naming the GraphQL error code. */
export function ErrorNotice({ error, title = 'Something went wrong' }: { error: unknown; title?: string }) {
  const { code, message } = describeError(error);
  return (
    <div className="notice notice-error" role="alert">
      <strong>{title}</strong> <code className="error-code">{code}</code>
      <div className="error-message">{message}</div>
    </div>
  );
}

/** A loading line (announced to screen readers). */
export function Loading({ what = 'Loading' }: { what?: string }) {
  return (
    <p className="loading" role="status">
      {what}…
    </p>
  );
}

/** What an empty list shows instead of nothing. */
export function Empty({ children }: { children: ReactNode }) {
  return <p className="empty">{children}</p>;
}

/** A score from 0 to 1 with three decimals, or a dash when the lane did not rank the hit. */
export function formatScore(score: number | null | undefined): string {
  return typeof score === 'number' ? score.toFixed(3) : '–';
}

/** A timestamp in the reader's locale. */
export function formatDate(iso: string | null | undefined): string {
  return iso ? new Date(iso).toLocaleString() : '–';
}

/** A titled section of the dashboard. */
export function Panel({
  title,
  actions,
  children,
  id,
}: {
  title: string;
  actions?: ReactNode;
  children: ReactNode;
  id?: string;
}) {
  return (
    <section className="panel" aria-labelledby={id ? `${id}-title` : undefined} id={id}>
      <header className="panel-header">
        <h2 id={id ? `${id}-title` : undefined}>{title}</h2>
        {actions}
      </header>
      {children}
    </section>
  );
}
