// Loads data for a component: loading, error and data states, with a reload; stale answers are dropped.
import { useCallback, useEffect, useRef, useState } from 'react';
import { gql } from '../shared/graphql';
import type { TypedDocumentString } from '../shared/generated/graphql';

/** What a component renders from: one of loading, error, or data. */
export type QueryState<T> = { status: 'loading' } | { status: 'error'; error: unknown } | { status: 'ok'; data: T };

/** Runs `query` with `variables` whenever the key (the variables as JSON, plus `refresh`) changes. */
export function useQuery<T, V>(
  query: TypedDocumentString<T, V>,
  variables: V,
  refresh = 0,
): QueryState<T> & { reload(): void } {
  const [state, setState] = useState<QueryState<T>>({ status: 'loading' });
  const [tick, setTick] = useState(0);
  const latest = useRef(0);
  const key = JSON.stringify(variables);
  useEffect(() => {
    const id = ++latest.current;
    setState((s) => (s.status === 'ok' ? s : { status: 'loading' })); // keep old rows on screen while refreshing
    gql(query, JSON.parse(key) as V).then(
      (data) => id === latest.current && setState({ status: 'ok', data }),
      (error: unknown) => id === latest.current && setState({ status: 'error', error }),
    );
  }, [query, key, refresh, tick]);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  return { ...state, reload };
}
