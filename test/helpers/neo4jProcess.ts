import { execFile } from 'node:child_process';
import fs from 'node:fs';
import { promisify } from 'node:util';
import { projectPath } from '../../src/paths.js';
import { eventually } from './eventually.js';

const run = promisify(execFile);

/** Runs scripts/neo4j-server.sh asynchronously: blocking would stall an in-process HTTP server and its timers. */
export function neo4jScript(cmd: 'start' | 'stop' | 'status'): Promise<{ stdout: string; stderr: string }> {
  return run('bash', [projectPath('scripts/neo4j-server.sh'), cmd], { timeout: 180_000 });
}

const isNeo4j = (pid: number): boolean => {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('CommunityEntryPoint');
  } catch {
    return false;
  }
};

/** The pid of the Neo4j server: the script's pid file, else `pgrep -f CommunityEntryPoint`; undefined when none runs. */
export async function neo4jPid(): Promise<number | undefined> {
  const file = projectPath('.cairn/neo4j/neo4j.pid');
  const fromFile = fs.existsSync(file) ? Number(fs.readFileSync(file, 'utf8').trim()) : NaN;
  if (Number.isInteger(fromFile) && isNeo4j(fromFile)) return fromFile;
  const found = await run('pgrep', ['-f', 'org.neo4j.server.CommunityEntryPoint']).catch(() => ({ stdout: '' }));
  const pids = found.stdout
    .split('\n')
    .map(Number)
    .filter((p) => Number.isInteger(p) && p > 0 && isNeo4j(p));
  return pids[0];
}

/** Kills the Neo4j server with SIGKILL (no shutdown, no checkpoint) and resolves once the process is gone. */
export async function killNeo4j(): Promise<number> {
  const pid = await neo4jPid();
  if (pid === undefined) throw new Error('no Neo4j server process found to kill');
  process.kill(pid, 'SIGKILL');
  await eventually(() => !isNeo4j(pid), { within: 10_000, what: `Neo4j (pid ${pid}) ending after SIGKILL` });
  return pid;
}
