import { redactCredentials } from '../errors.js';

/** Longest piece of one echoed value (a quoted string, or an object or list as graphql-js prints it) kept in a message. */
export const MAX_ECHOED_VALUE = 200;
/** Longest error message sent for a request Apollo or graphql-js refused. */
export const MAX_CLIENT_MESSAGE = 1000;
// Kept from the end of an over-long message: the reason ("Field "x" is not defined by type …") comes last.
const KEPT_TAIL = 300;

/** The end (exclusive) of the double-quoted string starting at `start`, honouring backslash escapes. */
function quotedEnd(text: string, start: number): number {
  let i = start + 1;
  while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
  return Math.min(i + 1, text.length);
}

/** The end (exclusive) of the bracketed value starting at `start`: its matching bracket, skipping quoted strings. */
function bracketEnd(text: string, start: number): number {
  let depth = 0;
  for (let i = start; i < text.length; ) {
    const c = text[i]!;
    if (c === '"') {
      i = quotedEnd(text, i);
      continue;
    }
    if (c === '{' || c === '[') depth++;
    else if ((c === '}' || c === ']') && --depth === 0) return i + 1;
    i++;
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
 * Cuts every value graphql-js repeats from the request (`got invalid value <value>`, `non string value: <value>`,
 * `found <value>`, quoted names) to MAX_ECHOED_VALUE characters. Values are quoted strings or bracketed objects and
 * lists (graphql-js's inspect); the words around them, which name the variable, the path and the problem, stay.
 */
export function capEchoedValues(message: string): string {
  let out = '';
  let i = 0;
  while (i < message.length) {
    const c = message[i]!;
    if (c === '"' || c === '{' || c === '[') {
      const end = c === '"' ? quotedEnd(message, i) : bracketEnd(message, i);
      // A bracketed value's own strings are cut first, so that a short object with one huge string stays readable.
      const value = c === '"' ? message.slice(i, end) : capEchoedInside(message.slice(i, end));
      out += capValue(value, c === '"');
      i = end;
    } else {
      out += c;
      i++;
    }
  }
  return out;
}

/** The strings inside a bracketed value, each cut to MAX_ECHOED_VALUE. */
function capEchoedInside(value: string): string {
  let out = '';
  for (let i = 0; i < value.length; ) {
    if (value[i] === '"') {
      const end = quotedEnd(value, i);
      out += capValue(value.slice(i, end), true);
      i = end;
    } else out += value[i++];
  }
  return out;
}

/**
 * The message of an error Apollo or graphql-js raised for a malformed request, safe to send and to log: URL
 * credentials hidden, echoed values cut (capEchoedValues), and the whole kept under MAX_CLIENT_MESSAGE characters
 * with its start (what) and end (why) kept.
 */
export function clientSafeMessage(message: string): string {
  const capped = capEchoedValues(redactCredentials(message));
  if (capped.length <= MAX_CLIENT_MESSAGE) return capped;
  const head = MAX_CLIENT_MESSAGE - KEPT_TAIL - 30;
  return `${capped.slice(0, head)} … (${capped.length - head - KEPT_TAIL} characters left out) … ${capped.slice(-KEPT_TAIL)}`;
}
