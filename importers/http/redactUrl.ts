import { HIDDEN_CREDENTIALS, redactCredentials } from '../../src/errors.js';

/**
 * A URL with any user name and password replaced by `***` (`http://***@host/path`), so credentials typed into a URL
 * never reach an error message, a log line or a stored import job. Text that is not a URL is redacted the same way.
 */
export function redactUrl(url: URL | string): string {
  let parsed: URL;
  try {
    parsed = typeof url === 'string' ? new URL(url) : new URL(url.href);
  } catch {
    return redactCredentials(String(url));
  }
  if (parsed.username === '' && parsed.password === '') return typeof url === 'string' ? url : url.href;
  parsed.username = HIDDEN_CREDENTIALS;
  parsed.password = '';
  return parsed.href;
}
