import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';

/** A real git repository served over smart HTTP (`git http-backend` as CGI) on 127.0.0.1, with a work tree to commit from. */
export interface GitHttpServer {
  /** Clone URL of the repository. */
  url: string;
  /** Writes (or with `null` deletes) files in the work tree, commits and pushes them; returns the new commit. */
  commit(files: Record<string, string | null>, message?: string): string;
  /** Requests the server answered. */
  requests: number;
  close(): Promise<void>;
}

const GIT_ENV = {
  ...process.env,
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_AUTHOR_NAME: 't',
  GIT_AUTHOR_EMAIL: 't@example.com',
  GIT_COMMITTER_NAME: 't',
  GIT_COMMITTER_EMAIL: 't@example.com',
};

function run(cwd: string, args: string[]): string {
  return execFileSync('git', args, { cwd, env: GIT_ENV, encoding: 'utf8' }).trim();
}

/** Starts a server for a new repository `name.git` whose branch `main` is empty until the first commit. */
export async function startGitHttpServer(name = 'docs'): Promise<GitHttpServer> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-git-'));
  const bare = path.join(root, `${name}.git`);
  const work = path.join(root, 'work');
  run(root, ['init', '-q', '--bare', '-b', 'main', bare]);
  run(bare, ['config', 'http.receivepack', 'true']);
  run(root, ['init', '-q', '-b', 'main', work]);
  run(work, ['remote', 'add', 'origin', bare]);
  const state = { requests: 0 };
  const server = http.createServer((req, res) => {
    state.requests += 1;
    const url = new URL(req.url ?? '/', 'http://x');
    const cgi = spawn('git', ['http-backend'], {
      env: {
        ...GIT_ENV,
        GIT_PROJECT_ROOT: root,
        GIT_HTTP_EXPORT_ALL: '1',
        PATH_INFO: decodeURIComponent(url.pathname),
        QUERY_STRING: url.search.replace(/^\?/, ''),
        REQUEST_METHOD: req.method ?? 'GET',
        CONTENT_TYPE: req.headers['content-type'] ?? '',
        HTTP_CONTENT_ENCODING: req.headers['content-encoding'] ?? '',
        HTTP_GIT_PROTOCOL: (req.headers['git-protocol'] as string | undefined) ?? '',
        REMOTE_ADDR: '127.0.0.1',
      },
    });
    req.pipe(cgi.stdin);
    let head = Buffer.alloc(0);
    let headersDone = false;
    cgi.stdout.on('data', (chunk: Buffer) => {
      if (headersDone) return void res.write(chunk);
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf('\r\n\r\n');
      if (end === -1) return;
      headersDone = true;
      let status = 200;
      for (const line of head.subarray(0, end).toString('latin1').split('\r\n')) {
        const [key, ...rest] = line.split(':');
        const value = rest.join(':').trim();
        if (key?.toLowerCase() === 'status') status = Number.parseInt(value, 10);
        else if (key) res.setHeader(key, value);
      }
      res.statusCode = status;
      res.write(head.subarray(end + 4));
    });
    cgi.stdout.on('end', () => res.end());
    cgi.on('error', () => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/${name}.git`,
    get requests() {
      return state.requests;
    },
    commit(files, message = 'change') {
      for (const [file, content] of Object.entries(files)) {
        const full = path.join(work, file);
        if (content === null) fs.rmSync(full, { force: true });
        else {
          fs.mkdirSync(path.dirname(full), { recursive: true });
          fs.writeFileSync(full, content);
        }
      }
      run(work, ['add', '-A']);
      run(work, ['commit', '-q', '--allow-empty', '-m', message]);
      run(work, ['push', '-q', 'origin', 'main']);
      return run(work, ['rev-parse', 'HEAD']);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          fs.rmSync(root, { recursive: true, force: true });
          resolve();
        });
      }),
  };
}
