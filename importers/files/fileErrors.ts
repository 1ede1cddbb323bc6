import { AppError, ErrorCode, type ErrorDetails } from '../../src/errors.js';

/** Human-readable list of what can be imported, for UNSUPPORTED_CONTENT_TYPE messages. */
export const SUPPORTED_FORMATS_TEXT = 'Markdown, plain text, reStructuredText, HTML, PDF, Word (.docx), JSON and YAML';

/**
 * A file error whose message reads `"<subject>" <problem>`. The subject is the file name; a caller that knows a
 * better one (the URL a file was fetched from) swaps it with `about`, keeping the problem as written.
 */
export class FileError extends AppError {
  constructor(
    code: ErrorCode,
    readonly subject: string,
    readonly problem: string,
    details: ErrorDetails,
    options?: { cause?: unknown },
  ) {
    super(code, `"${subject}" ${problem}`, details, options);
  }

  /** The same error naming `subject` instead, with `details` added. */
  about(subject: string, details: ErrorDetails): FileError {
    return new FileError(this.code, subject, this.problem, { ...this.details, ...details }, { cause: this });
  }
}

/** INVALID_FILE error whose message starts with the quoted file name. */
export function invalidFile(fileName: string, reason: string, details: ErrorDetails = {}, cause?: unknown): FileError {
  return new FileError(ErrorCode.INVALID_FILE, fileName, reason, { fileName, ...details }, { cause });
}

/** UNSUPPORTED_CONTENT_TYPE error that says what the file is and what would be accepted. */
export function unsupportedFile(fileName: string, what: string, details: ErrorDetails = {}): FileError {
  const problem = `${what}; supported formats are ${SUPPORTED_FORMATS_TEXT}`;
  return new FileError(ErrorCode.UNSUPPORTED_CONTENT_TYPE, fileName, problem, { fileName, ...details });
}

/** Formats a byte count for messages: 1536 → "1.5 KB". */
export function formatBytes(bytes: number): string {
  const units = ['bytes', 'KB', 'MB', 'GB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return unit === 0 ? `${value} bytes` : `${Number(value.toFixed(1))} ${units[unit]}`;
}

/** The message of an unknown thrown value. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
