import autocannon from 'autocannon';
import { percentile } from '../metrics.js';

/** One finished request: when it completed (ms since the epoch) and how long it took. */
type Sample = [at: number, ms: number];

/** What a load run measured. */
export interface LoadResult {
  requests: number;
  seconds: number;
  non2xx: number;
  graphqlErrors: number;
  /** Socket errors and timeouts. */
  transportErrors: number;
  /** Latencies of all requests, with completion times, for percentiles over any window. */
  samples: Sample[];
  /** A few error bodies, to say what went wrong. */
  errorExamples: string[];
}

/** Latency percentiles (ms) of the samples completed within [from, to). */
export function latencyOf(
  samples: readonly Sample[],
  from = 0,
  to = Infinity,
): { n: number; p50: number; p95: number; p99: number } {
  const ms = samples.filter(([at]) => at >= from && at < to).map(([, v]) => v);
  return { n: ms.length, p50: percentile(ms, 50), p95: percentile(ms, 95), p99: percentile(ms, 99) };
}

/** Runs `clients` concurrent connections for `seconds`, each request an `enrichContext` built by `nextBody`. */
export async function runLoad(
  url: string,
  clients: number,
  seconds: number,
  nextBody: () => string,
): Promise<LoadResult> {
  let graphqlErrors = 0;
  const errorExamples: string[] = [];
  const samples: Sample[] = [];
  const instance = autocannon({
    url: `${url}/graphql`,
    connections: clients,
    duration: seconds,
    timeout: 10,
    requests: [
      {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        setupRequest: (req) => ({ ...req, body: nextBody() }),
        // A GraphQL error arrives with HTTP 200: only the body tells (an `"errors":` key cannot occur inside a string).
        onResponse: (status, body) => {
          if (status < 300 && body.includes('"errors":')) {
            graphqlErrors++;
            if (errorExamples.length < 3) errorExamples.push(body.slice(0, 500));
          }
        },
      },
    ],
  });
  // autocannon passes the client first; its type definitions leave it out.
  (instance as unknown as NodeJS.EventEmitter).on(
    'response',
    (_client: unknown, _status: number, _bytes: number, ms: number) => samples.push([Date.now(), ms]),
  );
  const result = await instance;
  return {
    requests: result.requests.total,
    seconds: result.duration,
    non2xx: result.non2xx,
    graphqlErrors,
    transportErrors: result.errors + result.timeouts,
    samples,
    errorExamples,
  };
}
