import { spawn, type ChildProcess } from 'node:child_process';
import { projectPath } from '../../src/paths.js';
import { NO_BACKGROUND_EXTRACTION } from './backgroundWork.js';

/** Environment for a child Cairn process: the parent's PATH, nothing else inherited implicitly. */
export function childEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH, HOME: process.env.HOME, NODE_ENV: 'test', ...NO_BACKGROUND_EXTRACTION, ...extra };
}

/** The CLI compiled from the current sources by test/globalSetup.mjs (plain node starts it in a third of tsx's CPU). */
export const CLI_MAIN = projectPath('.cairn/test-cli/src/cli/main.js');

/**
 * Node's arguments for a `cairn` child: the compiled CLI, with PGlite's WebAssembly kept on V8's baseline compiler.
 * A test's child lives seconds, and tiering the database's 13,000 functions up to optimized code cost it about a
 * second of CPU (40% of `cairn stats`) that it never won back.
 */
export const CLI_ARGS = ['--liftoff-only', CLI_MAIN];

/** Runs `cairn <args>` from the compiled sources and collects its output; `cwd` defaults to the project. */
export function runCli(
  args: string[],
  env: Record<string, string>,
  cwd = projectPath(),
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...CLI_ARGS, ...args], { env: childEnv(env), cwd });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/**
 * Runs `cairn <args>` inside the test's process, as runCli does in a child: the environment holds only `env` (plus
 * NODE_ENV=test) while it runs, and what it writes to stdout and stderr is collected. The CLI's modules load once per
 * suite instead of once per command (about a second of CPU each), so suites use it for commands that need no process
 * of their own: usage and user errors, and commands sent to a running server. Commands run one at a time.
 */
export async function runCliInProcess(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const { runCommand } = await import('../../src/cli/main.js');
  const savedEnv = { ...process.env };
  const writes = { stdout: process.stdout.write, stderr: process.stderr.write };
  const out = { stdout: '', stderr: '' };
  const capture = (name: 'stdout' | 'stderr') =>
    ((chunk: string | Uint8Array, ...rest: unknown[]) => {
      out[name] += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString();
      const done = rest.find((r) => typeof r === 'function') as (() => void) | undefined;
      done?.();
      return true;
    }) as typeof process.stdout.write;
  for (const key of Object.keys(process.env)) if (key.startsWith('CAIRN_')) delete process.env[key];
  Object.assign(process.env, { NODE_ENV: 'test' }, NO_BACKGROUND_EXTRACTION, env);
  process.stdout.write = capture('stdout');
  process.stderr.write = capture('stderr');
  try {
    const code = await runCommand(args);
    return { code, ...out };
  } finally {
    process.stdout.write = writes.stdout;
    process.stderr.write = writes.stderr;
    for (const key of Object.keys(process.env)) if (!(key in savedEnv)) delete process.env[key];
    Object.assign(process.env, savedEnv);
  }
}

/** Starts `cairn serve` and resolves with its URL once it logs that it is ready. */
export function startCliServer(
  env: Record<string, string>,
): Promise<{ child: ChildProcess; url: string; logs: () => string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...CLI_ARGS, 'serve'], {
      env: childEnv({ CAIRN_HOST: '127.0.0.1', CAIRN_PORT: '0', ...env }),
      cwd: projectPath(),
    });
    let out = '';
    // A bound on a hang, not a measure of speed: a fresh data folder's initdb and migrations take minutes at load 15.
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${out}`)), 180_000);
    const onData = (d: Buffer) => {
      out += d.toString();
      const m = /"url":"(http:\/\/[^"]+)\/graphql"/.exec(out);
      if (m?.[1]) {
        clearTimeout(timer);
        resolve({ child, url: m[1], logs: () => out });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code}:\n${out}`));
    });
  });
}
