import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * The real OpenSSH server of `bash scripts/sshd-server.sh start`, which prints CAIRN_TEST_SSHD
 * (ssh://USER@127.0.0.1:PORT<state folder>). Required when CI is set; otherwise undefined (and the suite skips).
 */
export function sshdUnderTest(): { user: string; port: number; root: string } | undefined {
  const given = process.env.CAIRN_TEST_SSHD;
  if (!given) {
    if (process.env.CI)
      throw new Error(
        'CI is set but CAIRN_TEST_SSHD is not: .ci/run must start the ssh server with `bash scripts/sshd-server.sh start`.',
      );
    console.warn(
      'Skipping the ssh half of the GIT source tests: CAIRN_TEST_SSHD is not set (`bash scripts/sshd-server.sh start` prints one).',
    );
    return undefined;
  }
  const url = new URL(given);
  return { user: url.username, port: Number(url.port), root: decodeURIComponent(url.pathname) };
}

/** A bare repository served by that sshd, with a work tree to commit from and keys to let in. */
export interface SshGitRepo {
  /** `ssh://USER@127.0.0.1:PORT/…/docs.git` */
  url: string;
  /** The server's host key as a known_hosts line for this port. */
  knownHosts: string;
  commit(files: Record<string, string | null>): string;
  /** Lets a public key in, restricted to git-shell (no shell, no forwarding). */
  authorize(publicKey: string): void;
  close(): void;
}

const GIT_ENV = {
  ...process.env,
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_AUTHOR_NAME: 't',
  GIT_AUTHOR_EMAIL: 't@example.com',
  GIT_COMMITTER_NAME: 't',
  GIT_COMMITTER_EMAIL: 't@example.com',
};
const git = (cwd: string, args: string[]) => execFileSync('git', args, { cwd, env: GIT_ENV, encoding: 'utf8' }).trim();

export function createSshGitRepo(server: { user: string; port: number; root: string }, name = 'docs'): SshGitRepo {
  const home = path.join(server.root, 'repos', randomUUID());
  fs.mkdirSync(home, { mode: 0o755 });
  const bare = path.join(home, `${name}.git`);
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-ssh-work-'));
  git(home, ['init', '-q', '--bare', '-b', 'main', bare]);
  git(work, ['init', '-q', '-b', 'main']);
  const hostKey = fs
    .readFileSync(path.join(server.root, 'host_ed25519.pub'), 'utf8')
    .trim()
    .split(/\s+/)
    .slice(0, 2)
    .join(' ');
  const keysFile = path.join(server.root, 'authorized_keys');
  return {
    url: `ssh://${server.user}@127.0.0.1:${server.port}${bare}`,
    knownHosts: `[127.0.0.1]:${server.port} ${hostKey}\n`,
    commit(files) {
      for (const [file, content] of Object.entries(files)) {
        const full = path.join(work, file);
        if (content === null) fs.rmSync(full);
        else {
          fs.mkdirSync(path.dirname(full), { recursive: true });
          fs.writeFileSync(full, content);
        }
      }
      git(work, ['add', '-A']);
      git(work, ['commit', '-q', '--allow-empty', '-m', 'change']);
      git(work, ['push', '-q', bare, 'main']);
      // The server's user (cairnssh when the tests run as root) reads what root pushed.
      execFileSync('chmod', ['-R', 'a+rX', bare]);
      return git(work, ['rev-parse', 'HEAD']);
    },
    authorize(publicKey) {
      // git refuses repositories owned by another user unless told they are safe; the forced command says so.
      const line = `restrict,command="env GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=safe.directory GIT_CONFIG_VALUE_0=* git-shell -c \\"$SSH_ORIGINAL_COMMAND\\"" ${publicKey.trim()}`;
      fs.appendFileSync(keysFile, `${line}\n`);
    },
    close() {
      // The keys stay in authorized_keys: suites in parallel append to it, and rewriting it could drop another's key.
      // Each key is random and made for one repository, which goes now.
      fs.rmSync(home, { recursive: true, force: true });
      fs.rmSync(work, { recursive: true, force: true });
    },
  };
}

/** A new ed25519 key pair without a passphrase, as `ssh-keygen` makes deploy keys. */
export function newKeyPair(): { privateKey: string; publicKey: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-key-'));
  try {
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'cairn-test', '-f', path.join(dir, 'key')]);
    return {
      privateKey: fs.readFileSync(path.join(dir, 'key'), 'utf8'),
      publicKey: fs.readFileSync(path.join(dir, 'key.pub'), 'utf8'),
    };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
