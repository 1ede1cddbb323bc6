import { mkdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { minimatch } from 'minimatch';
import { AppError, ErrorCode } from '../../../src/errors.js';
import { SUPPORTED_FILE_EXTENSIONS } from '../../files/detectFileFormat.js';
import { checkUrl, normalizeAllowList, systemResolver, vetTarget } from '../../http/fetchTarget.js';
import { documentIdForFile, planFile } from '../../pipeline/planSources.js';
import { skippedFile, type SkippedFile } from '../../pipeline/walkDirectory.js';
import type { GitConfig } from '../types.js';
import type { DriverContext, SourceDriver, SyncItem } from './driver.js';
import { git, listTree } from './gitCli.js';
import { parseGitRemote, repositoryName, type GitRemote } from './gitRemote.js';
import { openSshSession, sshFailure, type SshSession } from './gitSsh.js';

/** How a GIT source over ssh logs in: its deploy key (opened for one sync) and the host keys it trusts. */
export interface GitSshAccess {
  privateKey(): Promise<string>;
  knownHosts: string | null;
  /** Records the host keys learned on a first contact. */
  learn(knownHosts: string): Promise<void>;
}

const EXTENSIONS = new Set(SUPPORTED_FILE_EXTENSIONS.map((e) => e.toLowerCase()));

/**
 * A git repository, shallow-fetched with the `git` CLI into a clone kept between syncs. Each file's blob id is its
 * fingerprint: a file whose blob is the one last synced is unchanged, so a sync imports only what changed since the
 * last synced commit, and the documents of deleted files go.
 */
export function gitDriver(config: GitConfig, sourceId: string, ssh?: GitSshAccess): SourceDriver {
  let commit = '';
  return {
    async *items(context: DriverContext): AsyncIterable<SyncItem> {
      const dir = path.join(context.runtime.cacheDir, 'git', sourceId);
      const { remote, pin } = await vetGitUrl(
        config.url,
        context.runtime.importConfig.allowPrivateHosts,
        context.runtime.resolve,
      );
      commit = await fetchBranch(dir, config, remote, pin, ssh, context);
      const chosen = (await listTree(dir, commit, context.signal)).filter((f) => selected(f.path, config));
      const files = chosen.filter((f) => importable(f.path));
      context.skipFiles(
        chosen.flatMap((f): SkippedFile[] => {
          const skipped = importable(f.path) ? undefined : skippedFile(f.path);
          return skipped ? [skipped] : [];
        }),
      );
      context.setTotal(files.length);
      const cap = context.runtime.importConfig.uploadMaxBytes;
      const repo = repositoryName(remote);
      for (const file of files) {
        yield {
          key: file.path,
          label: file.path,
          fingerprint: file.blob,
          async load() {
            const size = Number((await git(['cat-file', '-s', file.blob], { cwd: dir })).toString().trim());
            if (size > cap)
              throw new AppError(
                ErrorCode.IMPORT_TOO_LARGE,
                `${file.path} is ${size} bytes; the limit is ${cap} (CAIRN_UPLOAD_MAX_BYTES)`,
                { size, limit: cap },
              );
            const bytes = await git(['cat-file', 'blob', file.blob], { cwd: dir, maxBuffer: cap + 1024 });
            const id = documentIdForFile(`${repo}/${file.path}`).replace(/^file:/, 'git:');
            const webUrl = fileWebUrl(remote, commit, file.path);
            const metadata = {
              repository: config.url,
              branch: config.branch,
              commit,
              path: file.path,
              ...(webUrl ? { webUrl } : {}),
            };
            const defaults = {
              ...context.defaults,
              source: webUrl ?? `${config.url}#${file.path}`,
              metadata: { ...context.defaults.metadata, ...metadata },
            };
            const plan = await planFile(
              { fileName: path.posix.basename(file.path), bytes },
              id,
              defaults,
              context.planDeps,
              file.path,
            );
            return { plan, fingerprint: file.blob, state: { commit } };
          },
        };
      }
    },
    finalState: () => ({ commit }),
  };
}

/** A file of a format an importer reads. */
const importable = (file: string): boolean => EXTENSIONS.has(path.posix.extname(file).toLowerCase());

/** A path the include globs take and the exclude globs leave. */
function selected(file: string, config: GitConfig): boolean {
  const match = (glob: string) => minimatch(file, glob, { dot: true });
  return config.include.some(match) && !config.exclude.some(match);
}

/** Where git may connect for a remote: the address checked (ssh's HostName), as curl's resolve entry for http. */
interface GitPin {
  address: string | undefined;
  curloptResolve: string | undefined;
}

/**
 * Refuses a repository URL whose host resolves to a blocked address (see importers/http/addressPolicy.ts), unless it
 * is allow-listed (the port counts, as for every fetch); returns the remote and the address git is pinned to.
 */
export async function vetGitUrl(
  raw: string,
  allowPrivateHosts: readonly string[],
  resolve = systemResolver,
): Promise<{ remote: GitRemote; pin: GitPin }> {
  const remote = parseGitRemote(raw, 'url');
  const host = remote.host.includes(':') ? `[${remote.host}]` : remote.host;
  const url = remote.transport === 'http' ? checkUrl(raw) : new URL(`ssh://${host}:${remote.port}/`);
  const target = await vetTarget(url, normalizeAllowList(allowPrivateHosts), resolve);
  const address = target.addresses[0];
  if (!address || address.address === target.hostname)
    return { remote, pin: { address: undefined, curloptResolve: undefined } };
  const shown = address.family === 6 ? `[${address.address}]` : address.address;
  return { remote, pin: { address: address.address, curloptResolve: `${target.hostname}:${remote.port}:${shown}` } };
}

/** Shallow-fetches the branch into `dir` (created on first use) and returns its commit; over ssh with the deploy key. */
async function fetchBranch(
  dir: string,
  config: GitConfig,
  remote: GitRemote,
  pin: GitPin,
  ssh: GitSshAccess | undefined,
  context: DriverContext,
): Promise<string> {
  const { signal } = context;
  const exists = await stat(path.join(dir, 'HEAD')).then(
    () => true,
    () => false,
  );
  if (!exists) {
    await mkdir(dir, { recursive: true });
    await git(['init', '--bare', '-q', dir], { signal });
  }
  const ref = `refs/remotes/origin/${config.branch}`;
  let session: SshSession | undefined;
  try {
    if (remote.transport === 'ssh') {
      if (!ssh)
        throw new AppError(
          ErrorCode.BAD_USER_INPUT,
          `the repository ${config.url} is reached over ssh, which needs the source's deploy key`,
        );
      session = await openSshSession(
        remote,
        await ssh.privateKey(),
        ssh.knownHosts,
        pin.address,
        context.runtime.importConfig.connectTimeoutMs,
      );
    }
    const extraConfig = session
      ? ['protocol.ssh.allow=always']
      : pin.curloptResolve
        ? [`http.curloptResolve=${pin.curloptResolve}`]
        : [];
    await git(['fetch', '-q', '--depth', '1', '--no-tags', config.url, `+refs/heads/${config.branch}:${ref}`], {
      cwd: dir,
      signal,
      extraConfig,
      env: session?.env ?? {},
    }).catch((err: unknown) => {
      if (err instanceof AppError && /couldn't find remote ref|not found/i.test(err.message)) {
        throw new AppError(ErrorCode.NOT_FOUND, `the repository ${config.url} has no branch "${config.branch}"`, {
          url: config.url,
          branch: config.branch,
        });
      }
      throw sshFailure(err, remote);
    });
    const learned = session && ssh && !ssh.knownHosts ? (await session.knownHosts()).trim() : '';
    if (learned) await ssh?.learn(`${learned}\n`);
  } finally {
    await session?.dispose();
  }
  return (await git(['rev-parse', ref], { cwd: dir, signal })).toString().trim();
}

/** The web page of a file at a commit on hosts whose URL pattern is known (GitHub, GitLab, Bitbucket), else undefined. */
export function fileWebUrl(remote: GitRemote | string, commit: string, file: string): string | undefined {
  const { host, port, transport, project } = typeof remote === 'string' ? parseGitRemote(remote, 'url') : remote;
  const encoded = file.split('/').map(encodeURIComponent).join('/');
  // The web pages are served on the https URL's own port, or the standard one for an ssh remote.
  const base = `https://${host}${transport === 'http' && port !== 443 && port !== 80 ? `:${port}` : ''}/${project}`;
  if (host === 'github.com') return `${base}/blob/${commit}/${encoded}`;
  if (host === 'gitlab.com' || host.startsWith('gitlab.')) return `${base}/-/blob/${commit}/${encoded}`;
  if (host === 'bitbucket.org') return `${base}/src/${commit}/${encoded}`;
  return undefined;
}
