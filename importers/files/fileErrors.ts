import { AppError, ErrorCode, type ErrorDetails } from '../../src/errors.js';

/** Human-readable list of what can be imported, for UNSUPPORTED_CONTENT_TYPE messages. */
export const SUPPORTED_FORMATS_TEXT = 'Markdown, plain text, reStructuredText, HTML, PDF, Word (.docx), JSON and YAML';

/** INVALID_FILE error whose message starts with the quoted file name. */
export function invalidFile(fileName: string, reason: string, details: ErrorDetails = {}, cause?: unknown): AppError {
  return new AppError(ErrorCode.INVALID_FILE, `"${fileName}" ${reason}`, { fileName, ...details }, { cause });
}

/** UNSUPPORTED_CONTENT_TYPE error that says what the file is and what would be accepted. */
export function unsupportedFile(fileName: string, what: string, details: ErrorDetails = {}): AppError {
  return new AppError(
    ErrorCode.UNSUPPORTED_CONTENT_TYPE,
    `"${fileName}" ${what}; supported formats are ${SUPPORTED_FORMATS_TEXT}`,
    { fileName, ...details },
  );
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
