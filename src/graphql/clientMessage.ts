import { redactCredentials } from '../errors.js';

/** Longest piece of one echoed value (a quoted string, or an object or list as graphql-js prints it) kept in a message. */
export const MAX_ECHOED_VALUE = 200;
/** Longest error message sent for a request Apollo or graphql-js refused. */
export const MAX_CLIENT_MESSAGE = 1000;
// Kept from the end of an over-long message: the reason ("Field "x" is not defined by type …") comes last.
const KEPT_TAIL = 300;

/** The end (exclusive) of the double-quoted string starting at `start`, honouring backslash escapes. */
function quotedEnd(text: string, start: number): number {
  for (let i = text.indexOf('"', start + 1); i !== -1; i = text.indexOf('"', i + 1)) {
    let backslashes = 0;
    while (text[i - 1 - backslashes] === '\\') backslashes++;
    if (backslashes % 2 === 0) return i + 1;
  }
  return text.length;
}

const BRACKETS = /["{}[\]]/g;

/** The end (exclusive) of the bracketed value starting at `start`: its matching bracket, skipping quoted strings. */
function bracketEnd(text: string, start: number): number {
  let depth = 0;
  BRACKETS.lastIndex = start;
  for (let m = BRACKETS.exec(text); m; m = BRACKETS.exec(text)) {
    const c = m[0];
    if (c === '"') BRACKETS.lastIndex = quotedEnd(text, m.index);
    else if (c === '{' || c === '[') depth++;
    else if (--depth === 0) return m.index + 1;
  }
  return text.length;
}

/** `value` (a whole quoted string or bracketed value) cut to MAX_ECHOED_VALUE characters, saying how long it was. */
function capValue(value: string, quoted: boolean): string {
  if (value.length <= MAX_ECHOED_VALUE + 2) return value;
  const cut = value.slice(0, MAX_ECHOED_VALUE).replace(/\\+$/, (s) => s.slice(0, s.length - (s.length % 2)));
  return `${cut}…${quoted ? '"' : ''} (${value.length} characters)`;
}

/**
 * `text` with every value that starts with one of `openers` replaced by `cap(value, opener)`; the text between values
 * is copied in runs (messages can hold megabytes of one echoed value).
 */
function mapValues(text: string, openers: RegExp, cap: (value: string, opener: string) => string): string {
  const parts: string[] = [];
  let i = 0;
  openers.lastIndex = 0;
  for (let m = openers.exec(text); m; m = openers.exec(text)) {
    const end = m[0] === '"' ? quotedEnd(text, m.index) : bracketEnd(text, m.index);
    parts.push(text.slice(i, m.index), cap(text.slice(m.index, end), m[0]));
    i = end;
    openers.lastIndex = end;
  }
  parts.push(text.slice(i));
  return parts.join('');
}

/**
 * Cuts every value graphql-js repeats from the request (`got invalid value <value>`, `non string value: <value>`,
 * `found <value>`, quoted names) to MAX_ECHOED_VALUE characters. Values are quoted strings or bracketed objects and
 * lists (graphql-js's inspect); the words around them, which name the variable, the path and the problem, stay.
 */
export function capEchoedValues(message: string): string {
  // A bracketed value's own strings are cut first, so that a short object with one huge string stays readable.
  return mapValues(message, /["{[]/g, (value, opener) =>
    opener === '"'
      ? capValue(value, true)
      : capValue(
          mapValues(value, /"/g, (s) => capValue(s, true)),
          false,
        ),
  );
}

/**
 * The message of an error Apollo or graphql-js raised for a malformed request, safe to send and to log: URL
 * credentials hidden, echoed values cut (capEchoedValues), and the whole kept under MAX_CLIENT_MESSAGE characters
 * with its start (what) and end (why) kept.
 */
export function clientSafeMessage(message: string): string {
  const capped = capEchoedValues(redactCredentials(message));
  if (capped.length <= MAX_CLIENT_MESSAGE) return capped;
  const gap = ` … (${capped.length} characters in all) … `;
  return `${capped.slice(0, MAX_CLIENT_MESSAGE - KEPT_TAIL - gap.length)}${gap}${capped.slice(-KEPT_TAIL)}`;
}
