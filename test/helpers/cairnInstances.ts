import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { projectPath } from '../../src/paths.js';
import { childEnv, CLI_ARGS } from './cli.js';
import { NO_BACKGROUND_EXTRACTION } from './backgroundWork.js';

/** Neo4j connection settings for the instances' shared graph store. */
export interface Neo4jSettings {
  uri: string;
  user: string;
  password: string;
}

/** What `startInstances` starts. */
export interface StartInstancesOptions {
  count: number;
  /** The Postgres database every instance shares (CAIRN_DATABASE_URL). */
  databaseUrl: string;
  /** Neo4j as the shared graph store; absent: the graph lives in the Postgres tables. */
  neo4j?: Neo4jSettings;
  /** More settings for every instance (they win over the defaults here). */
  env?: Record<string, string>;
}

/** One running `cairn serve` process. */
export interface CairnInstance {
  /** Its base URL on 127.0.0.1 (GraphQL at `${url}/graphql`). */
  url: string;
  pid: number;
  /** Sends `signal` (default SIGKILL) and resolves once the process has exited. */
  kill(signal?: NodeJS.Signals): Promise<void>;
  /** Everything it wrote to stdout and stderr so far. */
  logs(): string;
}

/** Running instances and how to stop them all. */
export interface CairnInstances {
  instances: CairnInstance[];
  /** Stops every instance still running (SIGTERM, then SIGKILL after 10 s) and removes their data folders. */
  stop(): Promise<void>;
}

/** Settings every instance gets unless `env` says otherwise: quick, quiet, and the hashing embedder. */
const DEFAULTS: Record<string, string> = {
  CAIRN_HOST: '127.0.0.1',
  CAIRN_PORT: '0',
  CAIRN_EMBEDDING_PROVIDER: 'hashing',
  CAIRN_EMBEDDING_DIMENSIONS: '256',
  CAIRN_EXPIRY_SWEEP_INTERVAL_MS: '0',
  CAIRN_RATE_LIMIT_PER_SECOND: '0',
  CAIRN_LOG_LEVEL: 'info',
  CAIRN_DATABASE_POOL_SIZE: '8',
  ...NO_BACKGROUND_EXTRACTION,
};

/**
 * Starts `count` Cairn servers (the CLI that test/globalSetup.mjs compiled, `cairn serve`) on one Postgres database
 * and, when given, one Neo4j, each on its own ephemeral port. Resolves once every one has logged that it is ready.
 */
export async function startInstances(options: StartInstancesOptions): Promise<CairnInstances> {
  const children: ChildProcess[] = [];
  const dataDirs: string[] = [];
  const stop = async () => {
    await Promise.all(children.map((child) => stopProcess(child)));
    for (const dir of dataDirs) fs.rmSync(dir, { recursive: true, force: true });
  };
  try {
    const instances = await Promise.all(
      Array.from({ length: options.count }, () => {
        // Each instance its own folder: the model cache and git clones live there, the database does not.
        const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-instance-'));
        dataDirs.push(dataDir);
        const neo4j: Record<string, string> = options.neo4j
          ? {
              CAIRN_NEO4J_URI: options.neo4j.uri,
              CAIRN_NEO4J_USER: options.neo4j.user,
              CAIRN_NEO4J_PASSWORD: options.neo4j.password,
            }
          : {};
        const env = {
          ...DEFAULTS,
          CAIRN_DATA_DIR: dataDir,
          CAIRN_DATABASE_URL: options.databaseUrl,
          ...neo4j,
          ...options.env,
        };
        return startOne(env, children);
      }),
    );
    return { instances, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

function startOne(env: Record<string, string>, children: ChildProcess[]): Promise<CairnInstance> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...CLI_ARGS, 'serve'], { env: childEnv(env), cwd: projectPath() });
    children.push(child);
    let out = '';
    const timer = setTimeout(() => reject(new Error(`a Cairn instance did not start within 60 s:\n${out}`)), 60_000);
    const onExit = (code: number | null, signal: NodeJS.Signals | null) => {
      clearTimeout(timer);
      reject(new Error(`a Cairn instance exited (${code ?? signal}) before it was ready:\n${out}`));
    };
    child.on('exit', onExit);
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const ready = /"url":"(http:\/\/[^"]+)\/graphql"/.exec(out);
      if (!ready?.[1] || child.pid === undefined) return;
      clearTimeout(timer);
      child.off('exit', onExit);
      resolve({
        url: ready[1],
        pid: child.pid,
        kill: (signal = 'SIGKILL') => stopProcess(child, signal),
        logs: () => out,
      });
    });
  });
}

/** Sends `signal` and resolves once the process has exited; SIGTERM turns into SIGKILL after 10 s. */
function stopProcess(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const force = signal === 'SIGKILL' ? undefined : setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.once('exit', () => {
      if (force) clearTimeout(force);
      resolve();
    });
    child.kill(signal);
  });
}
