// Checks access with one cheap request before the dashboard's parallel loads, so a server that needs an API key
// prompts once (web/shared/graphql.ts asks on UNAUTHENTICATED) instead of once per panel.
import { useCallback, useEffect, useState, type ReactNode } from 'react';
import { apiKey, gql, setApiKey } from '../shared/graphql';
import { askForApiKey } from '../shared/keyDialog';
import { ACCESS_CHECK_QUERY } from './api';
import { loadRights, RightsContext, type Rights } from './role';
import { describeError, ErrorNotice, Loading } from './ui';

/** Asks for a key (or to forget the stored one) and reloads so every panel uses the change. */
export async function changeApiKey(): Promise<void> {
  const stored = apiKey() !== null;
  const choice = await askForApiKey(
    stored ? 'Enter another API key, or forget the one this tab uses.' : 'Enter an API key for this tab.',
    stored,
  );
  if (choice.kind === 'cancel') return;
  setApiKey(choice.kind === 'use' ? choice.key : null);
  window.location.reload();
}

/** Renders `children` once the server accepts this tab's requests; otherwise the error and a way to enter a key. */
export function KeyGate({ children }: { children: ReactNode }) {
  const [state, setState] = useState<
    { status: 'checking' } | { status: 'ok'; rights: Rights } | { status: 'error'; error: unknown }
  >({ status: 'checking' });
  const check = useCallback(() => {
    setState({ status: 'checking' });
    gql(ACCESS_CHECK_QUERY)
      .then(loadRights)
      .then(
        (rights) => {
          // For the browser tests and styles: which controls the page offers (the server decides what it allows).
          document.body.dataset.editRole = rights.isAdmin ? 'admin' : rights.canEdit ? 'editor' : 'reader';
          setState({ status: 'ok', rights });
        },
        (error: unknown) => setState({ status: 'error', error }),
      );
  }, []);
  useEffect(check, [check]);

  if (state.status === 'ok') return <RightsContext.Provider value={state.rights}>{children}</RightsContext.Provider>;
  if (state.status === 'checking') return <Loading what="Connecting" />;
  const needsKey = describeError(state.error).code === 'UNAUTHENTICATED';
  return (
    <>
      <ErrorNotice error={state.error} title={needsKey ? 'This server needs an API key' : 'Cannot reach the server'} />
      {needsKey ? (
        <button type="button" className="primary" onClick={() => void changeApiKey()}>
          Enter an API key
        </button>
      ) : (
        <button type="button" onClick={check}>
          Retry
        </button>
      )}
    </>
  );
}
