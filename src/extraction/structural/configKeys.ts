/** A key of a config object literal, as its dotted path (`server.port`) and where it is in the code. */
export interface ConfigKey {
  path: string;
  offset: number;
  length: number;
}

/** Where a config object starts: `defineConfig({`, `defineConfig(() => ({`, `export default {`, `module.exports = {`. */
const CONFIG_START =
  /\bdefineConfig\s*\(\s*(?:(?:async\s*)?\([^)]*\)\s*=>\s*\(?\s*)?\{|\bexport\s+default\s+\{|\bmodule\.exports\s*=\s*\{/g;
/** Keys whose values map names the user chooses (entry names, aliases, proxied paths): their keys are not options. */
const USER_MAPS = new Set(['input', 'alias', 'define', 'proxy', 'headers', 'env', 'globals', 'paths', 'entries']);
const IDENTIFIER_KEY = /^([A-Za-z_$][\w$]*)\s*:(?!:)/;

interface Frame {
  /** An object whose keys are config keys; false for arrays, calls, function bodies and their contents. */
  config: boolean;
  key?: string;
}

/**
 * The keys of the config objects in a code block, with their dotted paths: `server: { port: 3000 }` gives
 * `server` and `server.port`. Keys inside arrays, calls and functions (`plugins: [react({ … })]`) are not config keys.
 */
export function configKeys(code: string): ConfigKey[] {
  const keys: ConfigKey[] = [];
  if (!/defineConfig|export\s+default|module\.exports/.test(code)) return keys;
  for (const start of code.matchAll(CONFIG_START)) {
    scanObject(code, start.index + start[0].length - 1, keys);
  }
  return keys;
}

function scanObject(code: string, open: number, keys: ConfigKey[]): void {
  const stack: Frame[] = [];
  let pendingKey: string | undefined;
  let i = open;
  while (i < code.length) {
    const ch = code[i] ?? '';
    if (ch === '"' || ch === "'" || ch === '`') {
      i = skipString(code, i);
      continue;
    }
    if (ch === '/' && (code[i + 1] === '/' || code[i + 1] === '*')) {
      i = skipComment(code, i);
      continue;
    }
    if (ch === '{' || ch === '[' || ch === '(') {
      const top = stack[stack.length - 1];
      const inConfig = stack.length === 0 || (top?.config === true && pendingKey !== undefined);
      stack.push({ config: ch === '{' && inConfig, ...(pendingKey !== undefined ? { key: pendingKey } : {}) });
      pendingKey = undefined;
      i++;
      continue;
    }
    if (ch === '}' || ch === ']' || ch === ')') {
      stack.pop();
      if (stack.length === 0) return;
      pendingKey = undefined;
      i++;
      continue;
    }
    if (ch === ',') pendingKey = undefined;
    const top = stack[stack.length - 1];
    if (top?.config && /[A-Za-z_$]/.test(ch) && !/[\w$.]/.test(code[i - 1] ?? '')) {
      const key = IDENTIFIER_KEY.exec(code.slice(i, i + 80));
      if (key?.[1]) {
        const parents = stack.map((f) => f.key).filter((k): k is string => k !== undefined);
        const parent = parents[parents.length - 1];
        if (parent === undefined || !USER_MAPS.has(parent)) {
          keys.push({ path: [...parents, key[1]].join('.'), offset: i, length: key[1].length });
        }
        pendingKey = key[1];
        i += key[0].length;
        continue;
      }
      while (i < code.length && /[\w$]/.test(code[i] ?? '')) i++;
      continue;
    }
    i++;
  }
}

function skipString(code: string, i: number): number {
  const quote = code[i];
  let j = i + 1;
  while (j < code.length && code[j] !== quote) {
    if (code[j] === '\\') j++;
    else if (quote !== '`' && code[j] === '\n') break;
    j++;
  }
  return j + 1;
}

function skipComment(code: string, i: number): number {
  if (code[i + 1] === '/') {
    const end = code.indexOf('\n', i);
    return end < 0 ? code.length : end;
  }
  const end = code.indexOf('*/', i + 2);
  return end < 0 ? code.length : end + 2;
}
