import { execFileSync } from 'node:child_process';
import fs from 'node:fs';

const TICKS_PER_SECOND = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;

/** utime + stime of a process in ms, and its parent's pid; undefined once it has gone. */
function statOf(pid: number): { cpuMs: number; ppid: number } | undefined {
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    return { cpuMs: ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND, ppid: Number(fields[1]) };
  } catch {
    return undefined;
  }
}

/** A process and all its descendants (a Postgres postmaster and its backends), by pid. */
function treeOf(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    const s = statOf(Number(d));
    if (s) children.set(s.ppid, [...(children.get(s.ppid) ?? []), Number(d)]);
  }
  const out: number[] = [];
  for (const queue = [root]; queue.length > 0;) {
    const pid = queue.pop() as number;
    out.push(pid);
    queue.push(...(children.get(pid) ?? []));
  }
  return out;
}

/** Named process groups whose CPU is read: each is a root pid, counted with its descendants. */
export type ProcessGroups = Record<string, number>;

/** CPU ms so far per pid of each group. */
export type CpuSnapshot = Record<string, Map<number, number>>;

/** Reads the CPU time of every process of each group; this Node process is read with process.cpuUsage (`bench`). */
export function cpuSnapshot(groups: ProcessGroups): CpuSnapshot {
  const snapshot: CpuSnapshot = {};
  for (const [name, root] of Object.entries(groups)) {
    snapshot[name] = new Map(
      treeOf(root).flatMap((pid) => {
        const s = statOf(pid);
        return s ? [[pid, s.cpuMs] as [number, number]] : [];
      }),
    );
  }
  const own = process.cpuUsage();
  snapshot.bench = new Map([[process.pid, (own.user + own.system) / 1000]]);
  return snapshot;
}

/** CPU ms each group used between two snapshots (processes that started in between count whole). */
export function cpuBetween(before: CpuSnapshot, after: CpuSnapshot): Record<string, number> {
  return Object.fromEntries(
    Object.entries(after).map(([name, pids]) => [
      name,
      [...pids].reduce((sum, [pid, ms]) => sum + ms - (before[name]?.get(pid) ?? 0), 0),
    ]),
  );
}

/** The pid in the first line of a pid file (Postgres's postmaster.pid, scripts/neo4j-server.sh's neo4j.pid). */
export function pidFromFile(file: string): number {
  const pid = Number(fs.readFileSync(file, 'utf8').split('\n')[0]);
  if (!Number.isInteger(pid) || pid <= 0) throw new Error(`no pid in ${file}`);
  return pid;
}
