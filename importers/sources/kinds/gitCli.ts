import { execFile } from 'node:child_process';
import { commandSearchPath } from '../../../src/importerPort.js';
import { AppError, ErrorCode, redactCredentials } from '../../../src/errors.js';

/** Settings every git command runs with: https/http only (ssh is allowed per command), no redirects, no prompts, hooks or stored credentials. */
const SAFE_CONFIG = [
  'protocol.allow=never',
  'protocol.https.allow=always',
  'protocol.http.allow=always',
  'http.followRedirects=false',
  'credential.helper=',
  'core.hooksPath=/dev/null',
  'core.askPass=',
  'advice.detachedHead=false',
];

/** Runs `git` with arguments (no shell) and returns stdout; fails with IMPORT_FETCH_FAILED naming the command. */
export function git(
  args: readonly string[],
  options: {
    cwd?: string;
    signal?: AbortSignal;
    maxBuffer?: number;
    extraConfig?: readonly string[];
    env?: Readonly<Record<string, string>>;
    encoding?: 'buffer';
  } = {},
): Promise<Buffer> {
  const config = [...SAFE_CONFIG, ...(options.extraConfig ?? [])].flatMap((c) => ['-c', c]);
  return new Promise((resolve, reject) => {
    execFile(
      'git',
      [...config, ...args],
      {
        cwd: options.cwd,
        signal: options.signal,
        maxBuffer: options.maxBuffer ?? 64 * 1024 * 1024,
        encoding: 'buffer',
        env: {
          PATH: commandSearchPath(),
          GIT_TERMINAL_PROMPT: '0',
          GIT_CONFIG_NOSYSTEM: '1',
          GIT_CONFIG_GLOBAL: '/dev/null',
          HOME: '/nonexistent',
          LC_ALL: 'C',
          ...options.env,
        },
      },
      (err, stdout, stderr) => {
        if (!err) return resolve(stdout);
        if (options.signal?.aborted)
          return reject(options.signal.reason instanceof Error ? options.signal.reason : err);
        const detail = redactCredentials(lastLines(stderr.toString('utf8'))).slice(0, 500);
        reject(
          new AppError(
            ErrorCode.IMPORT_FETCH_FAILED,
            `git ${args[0] ?? ''} failed: ${detail || (err as Error).message}`,
            { command: args[0] ?? '' },
          ),
        );
      },
    );
  });
}

// git's advice after any failure to reach a remote; the cause (a refused key, a changed host key) comes before it.
const GENERIC_ADVICE = /^(Please make sure you have the correct access rights|and the repository exists\.)$/;

/** The last lines of git's stderr that say something, without its generic advice. */
function lastLines(stderr: string): string {
  const lines = stderr
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !GENERIC_ADVICE.test(l));
  return lines.slice(-3).join(' ');
}

/** One file of a commit's tree. */
export interface TreeFile {
  path: string;
  blob: string;
}

/** The regular files of a commit (no links, no submodules), from `git ls-tree -r -z`. */
export async function listTree(dir: string, commit: string, signal?: AbortSignal): Promise<TreeFile[]> {
  const out = (
    await git(['ls-tree', '-r', '-z', '--full-tree', commit], { cwd: dir, ...(signal ? { signal } : {}) })
  ).toString('utf8');
  const files: TreeFile[] = [];
  for (const entry of out.split('\0')) {
    const match = /^(\d+) (\w+) ([0-9a-f]+)\t(.*)$/s.exec(entry);
    if (!match || match[2] !== 'blob' || (match[1] !== '100644' && match[1] !== '100755')) continue;
    files.push({ path: match[4] as string, blob: match[3] as string });
  }
  return files;
}
