import { execFileSync } from 'node:child_process';
import fs from 'node:fs';

const TICKS_PER_SECOND = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;

/** CPU time (user + system) a process has used so far, in ms; 0 once it has gone. */
function cpuMsOf(pid: number): number {
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
  } catch {
    return 0;
  }
}

/** Pids of local processes whose command line matches (e.g. every Postgres backend, the Neo4j JVM). */
function pidsMatching(pattern: RegExp): number[] {
  return fs
    .readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .map(Number)
    .filter((pid) => {
      try {
        return pattern.test(fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' '));
      } catch {
        return false;
      }
    });
}

/** CPU ms used so far by each process of the Cairn server, the local Postgres server and the local Neo4j JVM. */
export interface CpuSnapshot {
  server: Map<number, number>;
  postgres: Map<number, number>;
  neo4j: Map<number, number>;
}

/** Reads CPU time of the server and of the local database servers' processes (each Postgres backend is one). */
export function cpuSnapshot(serverPid: number): CpuSnapshot {
  const read = (pids: number[]) => new Map(pids.map((p) => [p, cpuMsOf(p)]));
  return { server: read([serverPid]), postgres: read(pidsMatching(/^postgres[: ]/)), neo4j: read(pidsMatching(/CommunityEntryPoint|org\.neo4j/)) };
}

/** CPU ms each group used between two snapshots (processes that started in between count whole; exited ones are lost). */
export function cpuBetween(before: CpuSnapshot, after: CpuSnapshot): { server: number; postgres: number; neo4j: number } {
  const delta = (a: Map<number, number>, b: Map<number, number>) => [...b].reduce((s, [pid, ms]) => s + ms - (a.get(pid) ?? 0), 0);
  return { server: delta(before.server, after.server), postgres: delta(before.postgres, after.postgres), neo4j: delta(before.neo4j, after.neo4j) };
}
