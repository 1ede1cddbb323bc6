// The one GraphQL client of the admin pages: same-origin POST /graphql, with the API key kept in session storage.
import type { TypedDocumentString } from './generated/graphql';
import { askForApiKey } from './keyDialog';

/** Session-storage key under which the pages keep the API key. */
export const API_KEY_STORAGE = 'cairn.apiKey';

/** A GraphQL error as the server sends it. */
export interface GraphQLErrorPayload {
  message: string;
  extensions?: { code?: string; [key: string]: unknown };
}

/** A failed operation: the first error's code and message, plus all errors. */
export class GraphQLRequestError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly errors: GraphQLErrorPayload[],
  ) {
    super(message);
    this.name = 'GraphQLRequestError';
  }
}

/** The API key for this browser tab, if one was entered. */
export function apiKey(): string | null {
  return sessionStorage.getItem(API_KEY_STORAGE);
}

/** Stores (or, with null, forgets) the API key for this tab. */
export function setApiKey(key: string | null): void {
  if (key) sessionStorage.setItem(API_KEY_STORAGE, key);
  else sessionStorage.removeItem(API_KEY_STORAGE);
}

/** Headers for a GraphQL request, with the bearer key when there is one. */
export function authHeaders(): Record<string, string> {
  const key = apiKey();
  return key ? { authorization: `Bearer ${key}` } : {};
}

/**
 * Asks for a key with the masked form (requests refused at the same time share one form) and stores it; null when
 * none was given.
 */
export async function askForKey(): Promise<string | null> {
  const choice = await askForApiKey('This Cairn server needs an API key.', false);
  if (choice.kind !== 'use') return null;
  setApiKey(choice.key);
  return choice.key;
}

/**
 * Runs one operation. On UNAUTHENTICATED it asks for a key once (the key form), stores it and retries;
 * any other error is thrown as GraphQLRequestError.
 */
export async function gql<T, V>(document: TypedDocumentString<T, V>, variables?: V, retried = false): Promise<T> {
  const query = document.toString();
  const res = await fetch('/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...authHeaders() },
    body: JSON.stringify({ query, variables: variables ?? {} }),
  });
  const body = (await res
    .json()
    .catch(() => ({ errors: [{ message: `HTTP ${res.status}`, extensions: { code: 'HTTP_ERROR' } }] }))) as {
    data?: T;
    errors?: GraphQLErrorPayload[];
  };
  const first = body.errors?.[0];
  if (first) {
    const code = first.extensions?.code ?? 'UNKNOWN';
    if (code === 'UNAUTHENTICATED' && !retried) {
      const key = await askForKey();
      if (key) return gql(document, variables, true);
    }
    throw new GraphQLRequestError(code, first.message, body.errors ?? []);
  }
  if (body.data === undefined) throw new GraphQLRequestError('EMPTY_RESPONSE', 'the server sent no data', []);
  return body.data;
}
