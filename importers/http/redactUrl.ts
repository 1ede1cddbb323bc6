/** What stands in for a URL's user name and password wherever Cairn shows or stores the URL. */
export const REDACTED_CREDENTIALS = '***';

// scheme://userinfo@ in text that is not a parsable URL (the userinfo may hold anything up to the last @ before the path).
const USERINFO = /^([a-z][a-z0-9+.-]*:\/\/)[^/?#]*@/i;

/**
 * A URL with any user name and password replaced by `***` (`http://***@host/path`), so credentials typed into a URL
 * never reach an error message, a log line or a stored import job. Text that is not a URL is redacted the same way.
 */
export function redactUrl(url: URL | string): string {
  let parsed: URL;
  try {
    parsed = typeof url === 'string' ? new URL(url) : new URL(url.href);
  } catch {
    return String(url).replace(USERINFO, `$1${REDACTED_CREDENTIALS}@`);
  }
  if (parsed.username === '' && parsed.password === '') return typeof url === 'string' ? url : url.href;
  parsed.username = REDACTED_CREDENTIALS;
  parsed.password = '';
  return parsed.href;
}
