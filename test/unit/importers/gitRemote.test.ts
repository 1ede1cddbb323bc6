import { describe, expect, it } from '@jest/globals';
import { AppError, redactCredentials } from '../../../src/errors.js';
import { parseGitRemote, repositoryName } from '../../../importers/sources/kinds/gitRemote.js';
import { checkKnownHosts } from '../../../importers/sources/kinds/gitSsh.js';

const refused = (url: string): string => {
  try {
    parseGitRemote(url, 'input.url');
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    return (err as AppError).message;
  }
  throw new Error(`${url} was accepted`);
};

describe('parseGitRemote', () => {
  it('reads https, ssh:// and scp-like remotes, naming a repository the same way over each', () => {
    const https = parseGitRemote('https://github.com/acme/docs.git', 'u');
    const scp = parseGitRemote('git@github.com:acme/docs.git', 'u');
    const ssh = parseGitRemote('ssh://git@github.com/acme/docs.git', 'u');
    expect(scp).toMatchObject({ transport: 'ssh', host: 'github.com', port: 22, user: 'git', project: 'acme/docs' });
    expect(ssh).toMatchObject({ transport: 'ssh', host: 'github.com', port: 22, user: 'git', project: 'acme/docs' });
    expect([https, scp, ssh].map(repositoryName)).toEqual([
      'github.com/acme/docs',
      'github.com/acme/docs',
      'github.com/acme/docs',
    ]);
    expect(repositoryName(parseGitRemote('ssh://git@[::1]:2222/srv/repo.git', 'u'))).toBe('[::1]:2222/srv/repo');
    expect(repositoryName(parseGitRemote('http://127.0.0.1:8080/docs.git', 'u'))).toBe('127.0.0.1:8080/docs');
  });

  it('refuses what ssh or git would read as options or other transports', () => {
    expect(refused('ssh://-oProxyCommand=touch%20x/repo.git')).toMatch(/not a host name/);
    expect(refused('-oProxyCommand=x:repo.git')).toMatch(/^input\.url: /);
    expect(refused('git@host:-upload-pack=x')).toMatch(/must name a repository path/);
    expect(refused('ssh://-user@host/repo.git')).toMatch(/not an ssh user name/);
    expect(refused('ext::sh -c touch% /tmp/pwned')).toMatch(/spaces/);
    expect(refused('file:///etc/repo.git')).toMatch(/is a path on this server, which GIT sources do not read/);
    expect(refused('https://user:secret@github.com/acme/docs.git')).toMatch(/deploy key/);
    expect(refused('ssh://git:secret@github.com/acme/docs.git')).toMatch(/must not carry a password/);
  });

  it('checks known_hosts lines', () => {
    expect(
      checkKnownHosts(
        'github.com ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl\r\n',
        'f',
      ),
    ).toBe('github.com ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl\n');
    expect(() => checkKnownHosts('not a host key', 'input.sshKnownHosts')).toThrow(/known_hosts lines/);
  });
});

describe('redactCredentials and private keys', () => {
  it('hides a private key block wherever it appears, even cut short', () => {
    const key = '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----';
    expect(redactCredentials(`Variable "$input" got invalid value { deployKey: "${key}" }`)).toBe(
      'Variable "$input" got invalid value { deployKey: "[private key redacted]" }',
    );
    expect(redactCredentials('x -----BEGIN RSA PRIVATE KEY-----\\nMIIEow')).toBe('x [private key redacted]');
    // Linear on hostile input.
    const started = performance.now();
    redactCredentials('-----BEGIN PRIVATE KEY-----'.repeat(20_000));
    expect(performance.now() - started).toBeLessThan(1000);
  });
});

describe('fileWebUrl over ssh', () => {
  it('links an ssh remote of a known host to its https pages', async () => {
    const { fileWebUrl } = await import('../../../importers/sources/kinds/git.js');
    expect(fileWebUrl('git@github.com:acme/docs.git', 'abc', 'a b.md')).toBe(
      'https://github.com/acme/docs/blob/abc/a%20b.md',
    );
    expect(fileWebUrl('ssh://git@gitlab.example.com:2222/group/docs.git', 'abc', 'x.md')).toBe(
      'https://gitlab.example.com/group/docs/-/blob/abc/x.md',
    );
    expect(fileWebUrl('https://gitlab.example.com:8443/group/docs.git', 'abc', 'x.md')).toBe(
      'https://gitlab.example.com:8443/group/docs/-/blob/abc/x.md',
    );
  });
});
