import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import { projectPath } from '../../src/paths.js';

/** A `cairn serve` child process on 127.0.0.1. */
export interface ServerProcess {
  child: ChildProcess;
  url: string;
  /** Its resident set size now, in MB (from /proc/<pid>/status). */
  rssMb(): number;
  /** Its stderr and stdout so far (warnings and errors only: the log level is warn). */
  logs(): string;
  stop(): Promise<void>;
}

/** A port that was free a moment ago (the child binds it; `CAIRN_PORT=0` would hide it behind the info log). */
async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Reads VmRSS of a process, in MB; 0 once it has exited. */
export function rssMbOf(pid: number): number {
  try {
    const line = /^VmRSS:\s+(\d+) kB/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return line ? Number(line[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

/** CAIRN_* settings from the bench's own environment (not its CAIRN_TEST_/CAIRN_BENCH_ ones), to try configurations. */
function cairnSettings(): Record<string, string> {
  return Object.fromEntries(
    Object.entries(process.env).filter(
      (e): e is [string, string] => /^CAIRN_(?!TEST_|BENCH_)/.test(e[0]) && e[1] !== undefined,
    ),
  );
}

/**
 * Starts the built `cairn serve` (dist/, as `npm start` runs it; `npm run bench:load` builds first) with `env` (and e.g.
 * `--cpu-prof` in `nodeArgs`); resolves once /healthz answers. Running from source under tsx would measure its
 * source-map stack traces too (their cost is in RESULTS.md's load notes). CAIRN_* settings in the bench's environment pass
 * through, under those in `env`.
 */
export async function startServerProcess(env: Record<string, string>, nodeArgs: string[] = []): Promise<ServerProcess> {
  const port = await freePort();
  const entry = projectPath('dist/src/cli/main.js');
  if (!fs.existsSync(entry))
    throw new Error(`${entry} is missing: run \`npm run build\` first (\`npm run bench:load\` does)`);
  const child = spawn(process.execPath, [...nodeArgs, entry, 'serve'], {
    cwd: projectPath(),
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      NODE_ENV: 'production',
      CAIRN_HOST: '127.0.0.1',
      CAIRN_PORT: String(port),
      CAIRN_LOG_LEVEL: 'warn',
      ...cairnSettings(),
      ...env,
    },
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out = (out + d.toString()).slice(-20_000)));
  child.stderr.on('data', (d: Buffer) => (out = (out + d.toString()).slice(-20_000)));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`cairn serve exited with ${child.exitCode}:\n${out}`);
    const ok = await fetch(`${url}/healthz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`cairn serve did not answer /healthz within 120 s:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    child,
    url,
    rssMb: () => rssMbOf(child.pid as number),
    logs: () => out,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** Samples a value every `intervalMs` and keeps every sample with its time (ms since start). */
export function sampler(read: () => number, intervalMs = 500): { samples: [number, number][]; stop(): void } {
  const t0 = Date.now();
  const samples: [number, number][] = [[0, read()]];
  const timer = setInterval(() => samples.push([Date.now() - t0, read()]), intervalMs);
  return { samples, stop: () => clearInterval(timer) };
}
