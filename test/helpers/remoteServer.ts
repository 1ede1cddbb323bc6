import type { ChildProcess } from 'node:child_process';
import type { GqlResponse } from './testServer.js';

/** POSTs a GraphQL operation to a server's base URL and returns the HTTP status and the parsed body. */
export async function gqlAt<T = Record<string, unknown>>(
  baseUrl: string,
  query: string,
  variables: Record<string, unknown> = {},
  timeoutMs = 30_000,
): Promise<GqlResponse<T> & { status: number }> {
  const res = await fetch(`${baseUrl}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query, variables }),
    signal: AbortSignal.timeout(timeoutMs),
  });
  return { status: res.status, ...((await res.json()) as GqlResponse<T>) };
}

/** Sends `signal` to a child process and resolves once it has exited (at once if it already has). */
export function stopChild(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill(signal);
  return exited;
}
