// fetch for GraphiQL that adds the tab's API key on every call (so a key entered later is used at once) and, like
// web/shared/graphql.ts, asks for a key once when the server answers UNAUTHENTICATED.
import { askForKey, authHeaders } from '../shared/graphql';

function isUnauthenticated(body: unknown): boolean {
  const errors = (body as { errors?: { extensions?: { code?: unknown } }[] } | null)?.errors;
  return Array.isArray(errors) && errors.some((e) => e.extensions?.code === 'UNAUTHENTICATED');
}

/** A fetch whose requests carry `authorization: Bearer <key>` unless the headers editor already set one. */
export async function authFetch(input: RequestInfo | URL, init: RequestInit = {}, retried = false): Promise<Response> {
  const headers = new Headers(init.headers);
  for (const [name, value] of Object.entries(authHeaders())) if (!headers.has(name)) headers.set(name, value);
  const res = await fetch(input, { ...init, headers });
  if (retried) return res;
  const body: unknown = await res
    .clone()
    .json()
    .catch(() => null);
  if (!isUnauthenticated(body)) return res;
  if (!(await askForKey())) return res;
  return authFetch(input, init, true);
}
