import { mkdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { minimatch } from 'minimatch';
import { AppError, ErrorCode } from '../../../src/errors.js';
import { SUPPORTED_FILE_EXTENSIONS } from '../../files/detectFileFormat.js';
import { checkUrl, normalizeAllowList, systemResolver, vetTarget } from '../../http/fetchTarget.js';
import { documentIdForFile, planFile } from '../../pipeline/planSources.js';
import type { GitConfig } from '../types.js';
import type { DriverContext, SourceDriver, SyncItem } from './driver.js';
import { git, listTree } from './gitCli.js';

const EXTENSIONS = new Set(SUPPORTED_FILE_EXTENSIONS.map((e) => e.toLowerCase()));

/**
 * A git repository, shallow-fetched with the `git` CLI into a clone kept between syncs. Each file's blob id is its
 * fingerprint: a file whose blob is the one last synced is unchanged, so a sync imports only what changed since the
 * last synced commit, and the documents of deleted files go.
 */
export function gitDriver(config: GitConfig, sourceId: string): SourceDriver {
  let commit = '';
  return {
    async *items(context: DriverContext): AsyncIterable<SyncItem> {
      const dir = path.join(context.runtime.cacheDir, 'git', sourceId);
      const pin = await vetGitUrl(config.url, context.runtime.importConfig.allowPrivateHosts, context.runtime.resolve);
      commit = await fetchBranch(dir, config, pin, context.signal);
      const files = (await listTree(dir, commit, context.signal)).filter((f) => selected(f.path, config));
      context.setTotal(files.length);
      const cap = context.runtime.importConfig.uploadMaxBytes;
      const repo = repositoryName(config.url);
      for (const file of files) {
        yield {
          key: file.path,
          label: file.path,
          fingerprint: file.blob,
          async load() {
            const size = Number((await git(['cat-file', '-s', file.blob], { cwd: dir })).toString().trim());
            if (size > cap) throw new AppError(ErrorCode.IMPORT_TOO_LARGE, `${file.path} is ${size} bytes; the limit is ${cap} (CAIRN_UPLOAD_MAX_BYTES)`, { size, limit: cap });
            const bytes = await git(['cat-file', 'blob', file.blob], { cwd: dir, maxBuffer: cap + 1024 });
            const id = documentIdForFile(`${repo}/${file.path}`).replace(/^file:/, 'git:');
            const webUrl = fileWebUrl(config.url, commit, file.path);
            const metadata = { repository: config.url, branch: config.branch, commit, path: file.path, ...(webUrl ? { webUrl } : {}) };
            const defaults = { ...context.defaults, source: webUrl ?? `${config.url}#${file.path}`, metadata: { ...context.defaults.metadata, ...metadata } };
            const plan = await planFile({ fileName: path.posix.basename(file.path), bytes }, id, defaults, context.planDeps, file.path);
            return { plan, fingerprint: file.blob, state: { commit } };
          },
        };
      }
    },
    finalState: () => ({ commit }),
  };
}

/** Whether a repository path is an importable file the include globs take and the exclude globs leave. */
function selected(file: string, config: GitConfig): boolean {
  if (!EXTENSIONS.has(path.posix.extname(file).toLowerCase())) return false;
  const match = (glob: string) => minimatch(file, glob, { dot: true });
  return config.include.some(match) && !config.exclude.some(match);
}

/**
 * Refuses a repository URL whose host resolves to a blocked address (see importers/http/addressPolicy.ts), unless it
 * is allow-listed; returns the `http.curloptResolve` entry that pins git to the addresses checked.
 */
export async function vetGitUrl(raw: string, allowPrivateHosts: readonly string[], resolve = systemResolver): Promise<string | undefined> {
  const url = checkUrl(raw);
  const target = await vetTarget(url, normalizeAllowList(allowPrivateHosts), resolve);
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  const address = target.addresses[0];
  if (!address || address.address === target.hostname) return undefined;
  return `${target.hostname}:${port}:${address.family === 6 ? `[${address.address}]` : address.address}`;
}

/** Shallow-fetches the branch into `dir` (created on first use) and returns its commit. */
async function fetchBranch(dir: string, config: GitConfig, pin: string | undefined, signal: AbortSignal): Promise<string> {
  const exists = await stat(path.join(dir, 'HEAD')).then(
    () => true,
    () => false,
  );
  if (!exists) {
    await mkdir(dir, { recursive: true });
    await git(['init', '--bare', '-q', dir], { signal });
  }
  const ref = `refs/remotes/origin/${config.branch}`;
  const extraConfig = pin ? [`http.curloptResolve=${pin}`] : [];
  await git(['fetch', '-q', '--depth', '1', '--no-tags', config.url, `+refs/heads/${config.branch}:${ref}`], { cwd: dir, signal, extraConfig }).catch((err: unknown) => {
    if (err instanceof AppError && /couldn't find remote ref|not found/i.test(err.message)) {
      throw new AppError(ErrorCode.NOT_FOUND, `the repository ${config.url} has no branch "${config.branch}"`, { url: config.url, branch: config.branch });
    }
    throw err;
  });
  return (await git(['rev-parse', ref], { cwd: dir, signal })).toString().trim();
}

/** "host/owner/repo" of a repository URL, for document ids. */
function repositoryName(raw: string): string {
  const url = new URL(raw);
  return `${url.host}${url.pathname.replace(/\.git$/, '').replace(/\/+$/, '')}`;
}

/** The web page of a file at a commit on hosts whose URL pattern is known (GitHub, GitLab, Bitbucket), else undefined. */
export function fileWebUrl(raw: string, commit: string, file: string): string | undefined {
  const url = new URL(raw);
  const project = url.pathname.replace(/\.git$/, '').replace(/\/+$/, '');
  const encoded = file.split('/').map(encodeURIComponent).join('/');
  const base = `https://${url.host}${project}`;
  if (url.hostname === 'github.com') return `${base}/blob/${commit}/${encoded}`;
  if (url.hostname === 'gitlab.com' || url.hostname.startsWith('gitlab.')) return `${base}/-/blob/${commit}/${encoded}`;
  if (url.hostname === 'bitbucket.org') return `${base}/src/${commit}/${encoded}`;
  return undefined;
}
