import net from 'node:net';
import os from 'node:os';
import type { Table } from '../report.js';
import { cpuBetween, cpuSnapshot } from './cpu.js';
import { latencyOf, runLoad } from './load.js';
import type { ServerProcess } from './server.js';

/**
 * A TCP round-robin balancer on 127.0.0.1 (each client connection goes to the next server), as a layer-4 load
 * balancer would. It adds no headers, so the servers still see a local client and the bench needs no key.
 */
export async function startRoundRobin(urls: readonly string[]): Promise<{ url: string; close(): Promise<void> }> {
  const targets = urls.map((u) => new URL(u));
  let next = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const target = targets[next++ % targets.length] as URL;
    const upstream = net.connect(Number(target.port), target.hostname);
    for (const s of [client, upstream]) {
      s.setNoDelay(true);
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
    }
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

const WARM_UP_S = 5;

/** One load phase: requests/s, latency, errors and CPU per request of the given servers. */
async function phase(
  url: string,
  servers: readonly ServerProcess[],
  clients: number,
  seconds: number,
  nextBody: () => string,
) {
  const pids = servers.map((s) => s.child.pid as number);
  const before = cpuSnapshot(pids);
  const result = await runLoad(url, clients, seconds, nextBody);
  const cpu = cpuBetween(before, cpuSnapshot(pids));
  const perRequest = [cpu.server, cpu.postgres, cpu.neo4j, cpu.generator]
    .map((v) => (v / Math.max(1, result.requests)).toFixed(1))
    .join(' / ');
  const latency = latencyOf(result.samples);
  return [
    Number((result.requests / result.seconds).toFixed(1)),
    [latency.p50, latency.p95, latency.p99].map((v) => v.toFixed(1)).join(' / '),
    `${result.non2xx} / ${result.graphqlErrors} / ${result.transportErrors}`,
    perRequest,
    `${(cpu.machineBusy * 100).toFixed(0)}%`,
  ];
}

/**
 * The same enrichContext load against one server alone, then against all of them behind a round-robin balancer, in
 * one run on one machine. Both phases send the same kind of requests, without the import.
 */
export async function instancesTable(
  servers: readonly ServerProcess[],
  clients: number,
  seconds: number,
  nextBody: () => string,
): Promise<Table> {
  const first = servers[0] as ServerProcess;
  const balancer = await startRoundRobin(servers.map((s) => s.url));
  let alone: (string | number)[];
  let together: (string | number)[];
  try {
    // Unmeasured warm-up through the balancer, so every server (and the stores' caches) is warm before either phase.
    await runLoad(balancer.url, clients, WARM_UP_S, nextBody);
    alone = await phase(first.url, [first], clients, seconds, nextBody);
    together = await phase(balancer.url, servers, clients, seconds, nextBody);
  } finally {
    await balancer.close();
  }
  return {
    title: `Load: one instance, then ${servers.length} behind a round-robin balancer (${clients} clients, ${seconds} s each)`,
    headers: [
      'setup',
      'requests/s',
      'latency p50 / p95 / p99 ms',
      'errors: non-2xx / GraphQL / socket+timeout',
      'CPU ms per request: servers / Postgres / Neo4j / bench',
      'machine busy',
    ],
    rows: [
      ['1 instance, direct', ...alone],
      [`${servers.length} instances, TCP round robin in the bench process`, ...together],
    ],
    notes: [
      `Machine: ${os.cpus().length} cores shared by every server, Postgres, Neo4j and the load generator. Once the cores are busy a second instance adds no CPU, only processes competing for it (more pool connections, another event loop and heap, the balancer's copying): on such a machine the comparison shows that overhead, not a speed-up, and differences within the run-to-run noise (a quarter or more here) mean nothing. Instances pay off on machines of their own.`,
      `After a ${WARM_UP_S} s warm-up through the balancer, the phases run one after the other. Each client connection is kept alive and sent to the next instance in turn, so each instance holds an equal share of the connections. Both phases run enrichContext only, with no import beside them.`,
    ],
  };
}
