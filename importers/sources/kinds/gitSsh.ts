import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { commandSearchPath } from '../../../src/importerPort.js';
import { AppError, ErrorCode, badInput } from '../../../src/errors.js';
import type { GitRemote } from './gitRemote.js';

const MAX_KEY_CHARS = 16_384;
const MAX_KNOWN_HOSTS_CHARS = 65_536;

/** A deploy key as a source stores it: the private key (sealed by the caller) and its public half. */
export interface CheckedDeployKey {
  privateKey: string;
  /** The public key line ("ssh-ed25519 AAAA…"), to register with the git host. */
  publicKey: string;
  /** SHA256 fingerprint as ssh prints it ("SHA256:…"). */
  fingerprint: string;
}

function run(
  command: string,
  args: readonly string[],
  timeoutMs = 10_000,
): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    execFile(
      command,
      args,
      { timeout: timeoutMs, env: { PATH: commandSearchPath(), HOME: '/nonexistent', LC_ALL: 'C' } },
      (err, stdout, stderr) => (err ? reject(Object.assign(err, { stderr })) : resolve({ stdout, stderr })),
    );
  });
}

/** A private folder (0700) for key material, removed by the caller. */
const privateDir = () => mkdtemp(path.join(os.tmpdir(), 'cairn-ssh-'));

/**
 * Checks that `raw` is an unencrypted private key ssh can use (OpenSSH or PEM), through `ssh-keygen -y`, and returns
 * it with its public half. The key is never repeated in an error.
 */
export async function checkDeployKey(raw: string, field: string): Promise<CheckedDeployKey> {
  const text = raw.replace(/\r\n?/g, '\n').trim();
  if (
    text.length > MAX_KEY_CHARS ||
    !/^-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----\n[\s\S]+\n-----END [A-Z0-9 ]*PRIVATE KEY-----$/.test(text)
  ) {
    throw badInput(
      field,
      'must be a private key in OpenSSH or PEM form ("-----BEGIN OPENSSH PRIVATE KEY-----" … "-----END OPENSSH PRIVATE KEY-----"), e.g. made by `ssh-keygen -t ed25519 -N ""`',
    );
  }
  const dir = await privateDir();
  try {
    const file = path.join(dir, 'key');
    await writeFile(file, `${text}\n`, { mode: 0o600 });
    let publicKey: string;
    try {
      publicKey = (await run('ssh-keygen', ['-y', '-P', '', '-f', file])).stdout.trim();
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw sshMissing('ssh-keygen');
      throw badInput(
        field,
        'is not a private key ssh can read, or it has a passphrase (deploy keys must have none): make one with `ssh-keygen -t ed25519 -N ""`',
      );
    }
    return { privateKey: `${text}\n`, publicKey, fingerprint: fingerprintOf(publicKey) };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** SHA256 fingerprint of a public key line, as `ssh-keygen -l` prints it. */
export function fingerprintOf(publicKey: string): string {
  const blob = Buffer.from(publicKey.split(/\s+/)[1] ?? '', 'base64');
  return `SHA256:${createHash('sha256').update(blob).digest('base64').replace(/=+$/, '')}`;
}

/** Validates known_hosts lines given for a source (the git host's keys, as `ssh-keyscan` prints them). */
export function checkKnownHosts(raw: string, field: string): string {
  const lines = raw
    .replace(/\r\n?/g, '\n')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'));
  if (
    raw.length > MAX_KNOWN_HOSTS_CHARS ||
    lines.length === 0 ||
    lines.some((l) => !/^(@cert-authority |@revoked )?\S+ (ssh-|ecdsa-|sk-)\S+ [A-Za-z0-9+/=]+( .*)?$/.test(l))
  ) {
    throw badInput(field, 'must be known_hosts lines ("host ssh-ed25519 AAAA…"), as `ssh-keyscan host` prints them');
  }
  return `${lines.join('\n')}\n`;
}

/** How git reaches an ssh remote for one sync: its environment, and the host keys ssh learned. */
export interface SshSession {
  env: Record<string, string>;
  /** The host keys of the remote after the fetch (with those learned on first contact). */
  knownHosts(): Promise<string>;
  dispose(): Promise<void>;
}

/** The name known_hosts uses for a remote: `host`, or `[host]:port` off port 22. */
export function knownHostsName(remote: GitRemote): string {
  return remote.port === 22 ? remote.host : `[${remote.host}]:${remote.port}`;
}

/**
 * Writes the deploy key (0600) and an ssh configuration into a private temporary folder, for `GIT_SSH_COMMAND`.
 * ssh connects only to `address` (the address that was checked against the SSRF policy) and checks the host key
 * against `knownHosts`; without any, it accepts the key of this first contact, which the caller then records.
 * Agents, forwarding, local commands and proxies are off, and nothing is read from ~/.ssh.
 */
export async function openSshSession(
  remote: GitRemote,
  privateKey: string,
  knownHosts: string | null,
  address: string | undefined,
  connectTimeoutMs: number,
): Promise<SshSession> {
  const dir = await privateDir();
  if (/["'\\\s]/.test(dir))
    throw new AppError(
      ErrorCode.CONFIG_INVALID,
      `the temporary folder ${dir} has a space or quote in its path, which ssh's command line cannot carry; set TMPDIR`,
    );
  const file = (name: string) => path.join(dir, name);
  await writeFile(file('key'), privateKey, { mode: 0o600 });
  await writeFile(file('known_hosts'), knownHosts ?? '', { mode: 0o600 });
  const config = [
    'Host *',
    `  HostName ${address ?? remote.host}`,
    `  HostKeyAlias ${knownHostsName(remote)}`,
    `  Port ${remote.port}`,
    `  IdentityFile "${file('key')}"`,
    '  IdentitiesOnly yes',
    '  IdentityAgent none',
    '  BatchMode yes',
    `  StrictHostKeyChecking ${knownHosts ? 'yes' : 'accept-new'}`,
    `  UserKnownHostsFile "${file('known_hosts')}"`,
    '  GlobalKnownHostsFile /dev/null',
    '  HashKnownHosts no',
    '  UpdateHostKeys no',
    '  CheckHostIP no',
    `  ConnectTimeout ${Math.max(1, Math.ceil(connectTimeoutMs / 1000))}`,
    // A connection that stalls ends within a minute instead of outliving the sync's timeout.
    '  ServerAliveInterval 15',
    '  ServerAliveCountMax 4',
    '  PasswordAuthentication no',
    '  KbdInteractiveAuthentication no',
    '  ForwardAgent no',
    '  ForwardX11 no',
    '  ClearAllForwardings yes',
    '  PermitLocalCommand no',
    '  ProxyCommand none',
    '  ControlMaster no',
    '  ControlPath none',
    '  LogLevel ERROR',
  ];
  await writeFile(file('config'), `${config.join('\n')}\n`, { mode: 0o600 });
  return {
    env: { GIT_SSH_COMMAND: `ssh -F '${file('config')}'`, GIT_SSH_VARIANT: 'ssh' },
    knownHosts: () => readFile(file('known_hosts'), 'utf8'),
    dispose: () => rm(dir, { recursive: true, force: true }),
  };
}

/** A clearer error for ssh's own failures (a changed host key, a key the host refuses); others pass unchanged. */
export function sshFailure(err: unknown, remote: GitRemote): unknown {
  if (!(err instanceof AppError)) return err;
  const where = knownHostsName(remote);
  if (/Host key verification failed|REMOTE HOST IDENTIFICATION HAS CHANGED/i.test(err.message)) {
    return new AppError(
      ErrorCode.IMPORT_FETCH_FAILED,
      `the ssh host key of ${where} does not match the one recorded for this source: if the server's key changed on purpose, set the source's sshKnownHosts to its new key (or to "" to accept the next one)`,
      { host: where, reason: 'host key mismatch' },
    );
  }
  if (/Permission denied \(publickey|Permission denied, please try again/i.test(err.message)) {
    return new AppError(
      ErrorCode.IMPORT_FETCH_FAILED,
      `${where} refused the source's deploy key: add its public key (the source's deployKeyPublicKey) to the repository's deploy keys`,
      {
        host: where,
        reason: 'key refused',
      },
    );
  }
  return err;
}

function sshMissing(command: string): AppError {
  return new AppError(
    ErrorCode.CONFIG_INVALID,
    `${command} is not installed on the server; GIT sources over ssh need the OpenSSH client (Debian: apt-get install openssh-client)`,
  );
}
