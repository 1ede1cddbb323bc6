import { badInput } from '../../../src/errors.js';

/** A repository URL taken apart: where git connects, and the repository's path there. */
export interface GitRemote {
  /** The URL git is given. */
  url: string;
  transport: 'http' | 'ssh';
  /** Host name or IP address (IPv6 without brackets). */
  host: string;
  /** The port connected to (the transport's default when the URL names none). */
  port: number;
  /** ssh only: the user logged in as. */
  user: string | undefined;
  /** The repository's path on the host, "/"-separated, without a trailing ".git". */
  project: string;
}

const HOST = /^(?:[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?|\[[0-9A-Fa-f:.]{2,45}\])$/;
const USER = /^[A-Za-z0-9_][A-Za-z0-9._-]{0,63}$/;
// scp-like syntax as git reads it: [user@]host:path, with no "/" before the colon.
const SCP_LIKE = /^(?:([^@/:]+)@)?([^@/:[\]]+|\[[^\]/]+\]):(?!\/\/)(.+)$/;

const project = (path: string) =>
  path
    .replace(/^~?\/*/, '')
    .replace(/\/+$/, '')
    .replace(/\.git$/, '');

/**
 * Parses a repository URL: https:// or http://, or ssh as `ssh://[user@]host[:port]/path` or `[user@]host:path`.
 * Host and user must be plain names (no leading "-", which ssh would read as an option), and the path must not
 * start with "-" either; anything else is BAD_USER_INPUT naming `field`.
 */
export function parseGitRemote(raw: string | null | undefined, field: string): GitRemote {
  const url = (raw ?? '').trim();
  if (url === '' || url.length > 2000)
    throw badInput(
      field,
      'must be a repository URL such as https://github.com/acme/docs.git or git@github.com:acme/docs.git (at most 2000 characters)',
    );
  // Control characters, spaces and quotes have no place in a remote and could reach ssh's command line.
  // eslint-disable-next-line no-control-regex -- control characters are exactly what this check refuses
  if (/[\s\0-\x1f\x7f'"\\`]/.test(url))
    throw badInput(field, 'must not contain spaces, quotes, backslashes or control characters');
  refuseOtherTransports(url, field);
  if (/^https?:\/\//i.test(url)) return httpRemote(url, field);
  if (/^ssh:\/\//i.test(url)) return sshUrlRemote(url, field);
  const scp = /^[a-z][a-z0-9+.-]*:\/\//i.test(url) ? null : SCP_LIKE.exec(url);
  if (!scp)
    throw badInput(
      field,
      'must be an https:// URL or an ssh remote (ssh://git@host/org/repo.git or git@host:org/repo.git); other schemes are not allowed',
    );
  const [, user, host = '', path = ''] = scp;
  return sshRemote(url, user, host, undefined, path, field);
}

const ALLOWED =
  "a source's repository must be an https:// URL or an ssh remote (ssh://git@host/org/repo.git or git@host:org/repo.git)";
// git's `<transport>::<address>` runs the remote helper git-remote-<transport>; `ext::` runs any command given.
const REMOTE_HELPER = /^([A-Za-z][A-Za-z0-9+.-]*)::/;
// What git reads as a path on this machine: absolute, relative, home-relative, or file://.
const LOCAL_PATH = /^(?:\/|\.{1,2}(?:\/|$)|~|file:)/i;

/** Refuses the remote forms git accepts besides http(s) and ssh: remote helpers (`ext::`, `fd::`) and local paths. */
function refuseOtherTransports(url: string, field: string): void {
  const helper = REMOTE_HELPER.exec(url)?.[1];
  if (helper !== undefined)
    throw badInput(
      field,
      `"${helper.slice(0, 40)}::" selects git's remote helper "${helper.slice(0, 40)}" (ext:: runs a command on this server), which is not allowed; ${ALLOWED}`,
    );
  if (LOCAL_PATH.test(url))
    throw badInput(
      field,
      `"${url.slice(0, 100)}" is a path on this server, which GIT sources do not read; ${ALLOWED}, or use a FOLDER source for files on this machine`,
    );
}

function httpRemote(url: string, field: string): GitRemote {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw badInput(field, 'is not a valid URL (e.g. https://github.com/acme/docs.git)');
  }
  if (parsed.username || parsed.password)
    throw badInput(
      field,
      'must not carry a user name or password; private repositories are reached over ssh with a deploy key',
    );
  const port = parsed.port ? Number(parsed.port) : parsed.protocol === 'https:' ? 443 : 80;
  return {
    url: parsed.href,
    transport: 'http',
    host: parsed.hostname.replace(/^\[|\]$/g, ''),
    port,
    user: undefined,
    project: project(parsed.pathname),
  };
}

function sshUrlRemote(url: string, field: string): GitRemote {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw badInput(field, 'is not a valid ssh URL (e.g. ssh://git@example.com/acme/docs.git)');
  }
  if (parsed.password) throw badInput(field, 'must not carry a password; ssh sources log in with their deploy key');
  const port = parsed.port ? Number(parsed.port) : undefined;
  return sshRemote(
    url,
    parsed.username === '' ? undefined : decodeURIComponent(parsed.username),
    parsed.hostname,
    port,
    decodeURIComponent(parsed.pathname),
    field,
  );
}

function sshRemote(
  url: string,
  user: string | undefined,
  host: string,
  port: number | undefined,
  path: string,
  field: string,
): GitRemote {
  if (!HOST.test(host)) throw badInput(field, `"${host.slice(0, 100)}" is not a host name or IP address`);
  if (user !== undefined && !USER.test(user))
    throw badInput(field, `"${user.slice(0, 64)}" is not an ssh user name (letters, digits, ".", "_", "-")`);
  const name = project(path);
  if (name === '' || name.startsWith('-') || name.split('/').includes('..'))
    throw badInput(field, 'must name a repository path such as acme/docs.git');
  return { url, transport: 'ssh', host: host.replace(/^\[|\]$/g, ''), port: port ?? 22, user, project: name };
}

/** "host/owner/repo" of a remote, for document ids: the same for a repository's https and ssh URLs. */
export function repositoryName(remote: GitRemote): string {
  const defaultPort = remote.transport === 'ssh' ? 22 : remote.url.startsWith('https:') ? 443 : 80;
  const host = remote.host.includes(':') ? `[${remote.host}]` : remote.host;
  return `${host}${remote.port === defaultPort ? '' : `:${remote.port}`}/${remote.project}`;
}
