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

/**
 * CPU ms used so far by each process of the Cairn server, the local Postgres server, the local Neo4j JVM and this
 * bench (the load generator and the importer), and by the whole machine.
 */
export interface CpuSnapshot {
  server: Map<number, number>;
  postgres: Map<number, number>;
  neo4j: Map<number, number>;
  generator: number;
  machine: { busyMs: number; totalMs: number };
}

/** The machine's busy and total CPU time over all cores, from the first line of /proc/stat (in ms). */
function machineCpu(): { busyMs: number; totalMs: number } {
  const fields = (fs.readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '')
    .trim()
    .split(/\s+/)
    .slice(1, 9)
    .map(Number);
  const total = fields.reduce((a, b) => a + b, 0);
  const idle = (fields[3] ?? 0) + (fields[4] ?? 0); // idle + iowait
  return { busyMs: ((total - idle) * 1000) / TICKS_PER_SECOND, totalMs: (total * 1000) / TICKS_PER_SECOND };
}

/** Reads CPU time of the server (or several) and of the local database servers' processes (each Postgres backend is one). */
export function cpuSnapshot(serverPids: number | readonly number[]): CpuSnapshot {
  const read = (pids: readonly number[]) => new Map(pids.map((p) => [p, cpuMsOf(p)]));
  const own = process.cpuUsage();
  return {
    server: read(typeof serverPids === 'number' ? [serverPids] : serverPids),
    postgres: read(pidsMatching(/^postgres[: ]/)),
    neo4j: read(pidsMatching(/CommunityEntryPoint|org\.neo4j/)),
    generator: (own.user + own.system) / 1000,
    machine: machineCpu(),
  };
}

/** CPU used between two snapshots. */
export interface CpuUse {
  /** ms per group (processes that started in between count whole; exited ones are lost). */
  server: number;
  postgres: number;
  neo4j: number;
  /** ms of this bench's own process: autocannon and the importer. */
  generator: number;
  /** Share of the machine's CPU time (all cores) that was busy, 0 to 1. */
  machineBusy: number;
}

/** CPU each group used between two snapshots, and how busy the machine was. */
export function cpuBetween(before: CpuSnapshot, after: CpuSnapshot): CpuUse {
  const delta = (a: Map<number, number>, b: Map<number, number>) =>
    [...b].reduce((s, [pid, ms]) => s + ms - (a.get(pid) ?? 0), 0);
  const total = after.machine.totalMs - before.machine.totalMs;
  return {
    server: delta(before.server, after.server),
    postgres: delta(before.postgres, after.postgres),
    neo4j: delta(before.neo4j, after.neo4j),
    generator: after.generator - before.generator,
    machineBusy: total > 0 ? (after.machine.busyMs - before.machine.busyMs) / total : 0,
  };
}
