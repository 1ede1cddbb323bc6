import { execFileSync, spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { projectPath } from '../../src/paths.js';

/** The peer, pinned: neo4j-graphrag from PyPI brings the `neo4j` Python driver with it. */
export const PEER_PACKAGE = 'neo4j-graphrag==1.22.0';
const VENV = projectPath('.cairn', 'peer', 'venv-neo4j-graphrag-1.22.0');
const PYTHON = path.join(VENV, 'bin', 'python');

/** Creates the venv with the peer in it unless it is there (as scripts/postgres-server.sh does for its server). */
export function ensurePeerVenv(log: (m: string) => void): string {
  const marker = path.join(VENV, '.complete');
  if (fs.existsSync(marker)) return PYTHON;
  log(`creating ${path.relative(projectPath(), VENV)} with ${PEER_PACKAGE} from PyPI …`);
  fs.mkdirSync(path.dirname(VENV), { recursive: true });
  execFileSync('python3', ['-m', 'venv', VENV], { stdio: 'inherit' });
  execFileSync(path.join(VENV, 'bin', 'pip'), ['install', '--quiet', '--disable-pip-version-check', PEER_PACKAGE], {
    stdio: 'inherit',
  });
  fs.writeFileSync(marker, `${PEER_PACKAGE}\n`);
  return PYTHON;
}

/** A query as both sides receive it: its text and Cairn's embedding of it. */
export interface PeerQuery {
  text: string;
  vector: number[];
}

export type PeerRetriever = 'vector' | 'hybrid';

/** One search's time (measured in Python around `retriever.search`) and the documents of its items, in rank order. */
export interface PeerSearch {
  ms: number;
  documents: string[];
  entities: number;
}

/** A load window's latencies. */
export interface PeerLoad {
  seconds: number;
  ms: number[];
  errors: number;
  errorExamples: string[];
}

/** The Python process driving neo4j-graphrag (bench/peer/peer.py), one JSON command and answer per line. */
export class PeerProcess {
  private readonly answers: ((line: string) => void)[] = [];
  private stderr = '';

  private constructor(private readonly child: ChildProcessWithoutNullStreams) {
    readline.createInterface({ input: child.stdout }).on('line', (line) => this.answers.shift()?.(line));
    child.stderr.on('data', (d: Buffer) => (this.stderr = (this.stderr + d.toString()).slice(-5_000)));
  }

  get pid(): number {
    return this.child.pid as number;
  }

  static async start(
    python: string,
    init: {
      uri: string;
      user: string;
      password: string;
      queries: PeerQuery[];
      vectorIndex: string;
      fulltextIndex: string;
    },
  ): Promise<PeerProcess> {
    const child = spawn(python, [projectPath('bench', 'peer', 'peer.py')], { stdio: ['pipe', 'pipe', 'pipe'] });
    const peer = new PeerProcess(child);
    await peer.call({ op: 'init', ...init });
    return peer;
  }

  private call<T>(command: Record<string, unknown>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      if (this.child.exitCode !== null)
        return reject(new Error(`peer.py exited with ${this.child.exitCode}: ${this.stderr}`));
      this.answers.push((line) => {
        const answer = JSON.parse(line) as T & { error?: string };
        if (answer.error) reject(new Error(`peer.py: ${answer.error}\n${this.stderr}`));
        else resolve(answer);
      });
      this.child.stdin.write(`${JSON.stringify(command)}\n`);
    });
  }

  search(retriever: PeerRetriever, i: number): Promise<PeerSearch> {
    return this.call({ op: 'search', retriever, i });
  }

  load(retriever: PeerRetriever, clients: number, seconds: number, offset: number): Promise<PeerLoad> {
    return this.call({ op: 'load', retriever, clients, seconds, offset });
  }

  async close(): Promise<void> {
    await this.call({ op: 'close' }).catch(() => undefined);
    this.child.stdin.end();
    if (this.child.exitCode === null) await new Promise((resolve) => this.child.once('exit', resolve));
  }
}
