/** POSTs an operation to a running Cairn's /graphql and returns `data`, throwing on any GraphQL error. */
export async function gql<T>(url: string, query: string, variables: Record<string, unknown> = {}): Promise<T> {
  const res = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query, variables }),
  });
  const body = (await res.json()) as { data?: T; errors?: unknown[] };
  if (body.errors) throw new Error(`GraphQL error: ${JSON.stringify(body.errors).slice(0, 1000)}`);
  return body.data as T;
}
