import { types } from 'node:util';
import { isAppError } from '../errors.js';

/** A mistake in the command line itself (unknown option, missing value, bad number): one line, a `--help` pointer, exit 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** A user error outside the command line (a missing file, a busy port): one line, exit 1. */
export class CliError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'CliError';
  }
}

/** The exit code for usage errors, as most Unix tools use it. */
export const USAGE_EXIT_CODE = 2;

const HELP_POINTER = 'Run `cairn --help` for usage.';

/** An Error, also one made in another realm (Node's own errors seen from a vm context, as in tests). */
function isError(err: unknown): err is Error {
  return err instanceof Error || types.isNativeError(err);
}

function errnoCode(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/**
 * What the CLI prints for an error thrown by a command, and its exit code. User errors get one line without a stack;
 * only errors nobody anticipated keep theirs, since that is what a bug report needs.
 */
export function describeCliError(err: unknown): { text: string; exitCode: number } {
  if (err instanceof UsageError) return { text: `cairn: ${err.message}\n${HELP_POINTER}\n`, exitCode: USAGE_EXIT_CODE };
  const code = errnoCode(err);
  if (isError(err) && code?.startsWith('ERR_PARSE_ARGS_')) {
    // Node's text goes on about `--` positionals; its first sentence says what is wrong.
    const first = err.message.split(/\.\s/)[0] ?? err.message;
    return { text: `cairn: ${first.replace(/\.$/, '')}\n${HELP_POINTER}\n`, exitCode: USAGE_EXIT_CODE };
  }
  if (isAppError(err)) return { text: `cairn: [${err.code}] ${err.message}\n`, exitCode: 1 };
  if (err instanceof CliError) return { text: `cairn: ${err.message}\n`, exitCode: 1 };
  // A system error (EACCES, ENOSPC, EISDIR…) says what and where; its stack would only point into Node.
  if (isError(err) && code && /^E[A-Z0-9]+$/.test(code) && 'syscall' in err)
    return { text: `cairn: ${err.message}\n`, exitCode: 1 };
  return { text: `cairn: ${isError(err) ? (err.stack ?? err.message) : String(err)}\n`, exitCode: 1 };
}
