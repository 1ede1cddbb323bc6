import type { GraphqlLimits } from '../config.js';
import type { AppError } from '../errors.js';
import { tooComplex } from './tooComplex.js';

/**
 * Selection nesting the parser is always given, whatever CAIRN_GRAPHQL_MAX_DEPTH says: the depth rule (which skips
 * introspection, as GraphiQL's query nests its type references deeply) answers between the limit and this.
 */
const MIN_SELECTION_NESTING = 32;
/** Brackets of any kind nested deeper than this are refused unparsed; argument values stop far sooner (64 levels). */
const MAX_NESTING = 500;

const PUNCTUATORS = new Set(['!', '$', '&', ':', '=', '@', '|', '(', ')', '[', ']', '{', '}']);
const NAME_START = /[A-Za-z_]/;
const NAME_PART = /[A-Za-z0-9_]/;
const NUMBER_PART = /[0-9A-Za-z_.+-]/;

/** What one pass over a document finds: its tokens (as graphql-js counts them, never more) and its nesting. */
interface Scan {
  tokens: number;
  /** Deepest nesting of selection sets (braces outside arguments), as the depth limit counts fields. */
  selectionDepth: number;
  /** Deepest nesting of brackets of any kind. */
  nesting: number;
}

/** Where the string starting at `i` (a quote) ends: after its closing quote(s), or at the end of the text. */
function skipString(text: string, i: number): number {
  if (text.startsWith('"""', i)) {
    const end = text.indexOf('"""', i + 3);
    // A block string may escape its delimiter as \"""; it only ever ends later.
    let at = end;
    while (at !== -1 && text[at - 1] === '\\') at = text.indexOf('"""', at + 3);
    return at === -1 ? text.length : at + 3;
  }
  for (let j = i + 1; j < text.length; j++) {
    const c = text[j];
    if (c === '\\') j++;
    else if (c === '"' || c === '\n' || c === '\r') return j + 1;
  }
  return text.length;
}

/** One linear pass, no recursion: counts tokens and measures nesting without building anything. */
function scan(text: string, stopAfterTokens: number): Scan {
  const result: Scan = { tokens: 0, selectionDepth: 0, nesting: 0 };
  const open: string[] = [];
  let argumentDepth = 0;
  let selections = 0;
  for (let i = 0; i < text.length && result.tokens <= stopAfterTokens;) {
    const c = text[i] as string;
    if (c === '#') {
      const end = text.slice(i).search(/[\r\n]/);
      i = end === -1 ? text.length : i + end;
      continue;
    }
    if (c === '"') {
      i = skipString(text, i);
      result.tokens++;
      continue;
    }
    if (NAME_START.test(c) || /[0-9-]/.test(c)) {
      const part = NAME_START.test(c) ? NAME_PART : NUMBER_PART;
      i++;
      while (i < text.length && part.test(text[i] as string)) i++;
      result.tokens++;
      continue;
    }
    if (text.startsWith('...', i)) {
      i += 3;
      result.tokens++;
      continue;
    }
    i++;
    if (!PUNCTUATORS.has(c)) continue; // white space, commas, and what the parser will refuse itself
    result.tokens++;
    if (c === '(' || c === '[' || c === '{') {
      open.push(c);
      if (c === '(') argumentDepth++;
      else if (c === '{' && argumentDepth === 0) result.selectionDepth = Math.max(result.selectionDepth, ++selections);
      result.nesting = Math.max(result.nesting, open.length);
    } else if (c === ')' || c === ']' || c === '}') {
      const last = open.pop();
      if (last === '(') argumentDepth--;
      else if (last === '{' && argumentDepth === 0) selections--;
    }
  }
  return result;
}

/**
 * The token cap and the depth limit, checked on the text before graphql-js parses it: its parser recurses once per
 * nesting level, and a document thousands of levels deep overflowed the stack (GRAPHQL_PARSE_FAILED, "Maximum call
 * stack size exceeded") on a freshly started server before either limit could answer. Undefined when the parser may
 * go ahead (the limits are then checked again, exactly, during parsing and validation).
 */
export function preParseProblem(
  query: string,
  limits: Pick<GraphqlLimits, 'maxDepth' | 'maxTokens'>,
): AppError | undefined {
  const found = scan(query, limits.maxTokens);
  if (found.tokens > limits.maxTokens) return tooComplex('tokens', limits.maxTokens, undefined);
  if (found.selectionDepth > Math.max(limits.maxDepth, MIN_SELECTION_NESTING))
    return tooComplex('depth', limits.maxDepth, found.selectionDepth);
  if (found.nesting > MAX_NESTING) return tooComplex('depth', limits.maxDepth, found.nesting);
  return undefined;
}
