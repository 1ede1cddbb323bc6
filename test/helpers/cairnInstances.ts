import { spawn, type ChildProcess } from 'node:child_process';
import { projectPath } from '../../src/paths.js';
import { CLI_MAIN, childEnv } from './cli.js';

/** One running `cairn serve` process. */
export interface CairnInstance {
  /** Base URL (http://127.0.0.1:port), without /graphql. */
  url: string;
  pid: number;
  /** Sends `signal` and resolves once the process has exited. */
  kill(signal?: NodeJS.Signals): Promise<void>;
  /** Everything the process printed so far. */
  logs(): string;
}

/** Several Cairn server processes on one database (and Neo4j), each on its own loopback port. */
export interface CairnInstances {
  instances: CairnInstance[];
  /** Stops every instance still running (SIGTERM). */
  stop(): Promise<void>;
}

/** What the instances share: the Postgres database, Neo4j when given, and extra settings. */
export interface StartInstancesOptions {
  count: number;
  databaseUrl: string;
  neo4j?: { uri: string; user: string; password: string };
  env?: Record<string, string>;
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

/** Starts one compiled `cairn serve` and resolves once it logs its URL. */
function startOne(env: NodeJS.ProcessEnv): Promise<CairnInstance> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI_MAIN, 'serve'], { env, cwd: projectPath() });
    let out = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`instance did not start:\n${out}`));
    }, 60_000);
    const onExit = (code: number | null) => {
      clearTimeout(timer);
      reject(new Error(`instance exited with ${code} before it was ready:\n${out}`));
    };
    child.on('exit', onExit);
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /"url":"(http:\/\/[^"]+)\/graphql"/.exec(out);
      if (m?.[1] && child.pid !== undefined) {
        clearTimeout(timer);
        child.off('exit', onExit);
        resolve({
          url: m[1],
          pid: child.pid,
          logs: () => out,
          kill: (signal = 'SIGTERM') => {
            const done = exited(child);
            if (child.exitCode === null && child.signalCode === null) child.kill(signal);
            return done;
          },
        });
      }
    });
  });
}

/**
 * Starts `count` server processes (compiled by test/globalSetup.mjs) on 127.0.0.1, all on `databaseUrl`, with the
 * hashing embedder and, when given, Neo4j as the graph store. They start one after another, so that the first
 * applies migrations and records the embedder before the others look.
 */
export async function startInstances(options: StartInstancesOptions): Promise<CairnInstances> {
  const env = childEnv({
    CAIRN_HOST: '127.0.0.1',
    CAIRN_PORT: '0',
    CAIRN_DATABASE_URL: options.databaseUrl,
    CAIRN_EMBEDDING_PROVIDER: 'hashing',
    CAIRN_LOG_LEVEL: 'info',
    ...(options.neo4j ? { CAIRN_NEO4J_URI: options.neo4j.uri, CAIRN_NEO4J_USER: options.neo4j.user, CAIRN_NEO4J_PASSWORD: options.neo4j.password } : {}),
    ...options.env,
  });
  const instances: CairnInstance[] = [];
  try {
    for (let i = 0; i < options.count; i++) instances.push(await startOne(env));
  } catch (err) {
    await Promise.all(instances.map((i) => i.kill('SIGKILL')));
    throw err;
  }
  return { instances, stop: () => Promise.all(instances.map((i) => i.kill('SIGTERM'))).then(() => undefined) };
}
