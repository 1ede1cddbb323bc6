import fs from 'node:fs';
import path from 'node:path';
import { Kind, parse } from 'graphql';
import { marked, type Tokens } from 'marked';
import { parse as parseShell } from 'shell-quote';

/** One request a documentation page shows: a GraphQL operation or a curl command. */
export type DocExample =
  /** `placeholder`: the operation names ids to replace (a job's, an upload's), so NOT_FOUND is its expected answer. */
  | { kind: 'graphql'; where: string; query: string; placeholder?: boolean }
  | {
      kind: 'curl';
      where: string;
      url: string;
      headers: Record<string, string>;
      data?: string;
      files: Record<string, string>;
    };

/** The examples of one fenced block, run in order (a block may set up what its later operations read). */
export interface DocBlock {
  where: string;
  examples: DocExample[];
}

/** Each operation of a GraphQL document, as the exact text it was written in. */
function operationsOf(source: string): string[] {
  return parse(source).definitions.flatMap((d) =>
    d.kind === Kind.OPERATION_DEFINITION && d.loc ? [source.slice(d.loc.start, d.loc.end)] : [],
  );
}

/** The curl commands of a shell block: continuation lines joined, comments dropped. */
function curlsOf(source: string, where: string): DocExample[] {
  const commands = source.replace(/\\\n\s*/g, ' ').split('\n');
  return commands.flatMap((line): DocExample[] => {
    const argv = parseShell(line).filter((a): a is string => typeof a === 'string');
    if (argv[0] !== 'curl') return [];
    const example = {
      kind: 'curl' as const,
      where,
      url: '',
      headers: {} as Record<string, string>,
      files: {} as Record<string, string>,
      data: undefined as string | undefined,
    };
    for (let i = 1; i < argv.length; i += 1) {
      const arg = argv[i] ?? '';
      if (arg === '-s') continue;
      const value = argv[i + 1] ?? '';
      if (arg === '-H') {
        const colon = value.indexOf(':');
        example.headers[value.slice(0, colon).trim().toLowerCase()] = value.slice(colon + 1).trim();
        i += 1;
      } else if (arg === '-d') {
        example.data = value;
        i += 1;
      } else if (arg === '-F') {
        const [field = '', file = ''] = value.split('=@');
        example.files[field] = file;
        i += 1;
      } else if (arg.startsWith('-')) {
        throw new Error(`${where}: curl option ${arg} is not understood by the docs example runner`);
      } else {
        example.url = arg;
      }
    }
    return [example];
  });
}

/**
 * The examples of markdown files (paths relative to `root`): every operation of every ```graphql block (marked
 * ```graphql placeholder when it holds ids to replace), and every curl line of ```sh blocks.
 */
export function docBlocks(root: string, files: string[]): DocBlock[] {
  return files.flatMap((file) => {
    const source = fs.readFileSync(path.join(root, file), 'utf8');
    const blocks: DocBlock[] = [];
    let cursor = 0;
    marked.walkTokens(marked.lexer(source), (token) => {
      if (token.type !== 'code') return;
      const code = token as Tokens.Code;
      const offset = source.indexOf(code.raw, cursor);
      cursor = offset + code.raw.length;
      const where = `${file}:${source.slice(0, offset).split('\n').length}`;
      const [lang = '', ...flags] = (code.lang ?? '').split(/\s+/);
      if (lang === 'graphql') {
        const placeholder = flags.includes('placeholder');
        blocks.push({
          where,
          examples: operationsOf(code.text).map((query) => ({ kind: 'graphql', where, query, placeholder })),
        });
      } else if (lang === 'sh' || lang === 'bash') {
        const curls = curlsOf(code.text, where);
        if (curls.length > 0) blocks.push({ where, examples: curls });
      }
    });
    return blocks;
  });
}

/** A deterministic shuffle (mulberry32), so a failing order can be replayed from its seed. */
export function shuffled<T>(items: readonly T[], seed: number): T[] {
  let state = seed >>> 0;
  const random = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const out = [...items];
  for (let i = out.length - 1; i > 0; i -= 1) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}

/** Sends examples to a server the way a reader would; keeps the first admin key an example creates. */
export class DocExampleRunner {
  private key: string | undefined;

  constructor(
    private readonly serverUrl: string,
    private readonly root: string,
  ) {}

  /** Runs one example; answers a failure description, or undefined when it succeeded. */
  async run(example: DocExample): Promise<string | undefined> {
    const auth: Record<string, string> = this.key ? { authorization: `Bearer ${this.key}` } : {};
    if (example.kind === 'graphql') {
      const res = await fetch(`${this.serverUrl}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...auth },
        body: JSON.stringify({ query: example.query }),
      });
      return this.check(example, res);
    }
    const url = example.url.replace(/^http:\/\/(localhost|127\.0\.0\.1):4000/, this.serverUrl);
    let body: string | FormData | undefined = example.data;
    if (Object.keys(example.files).length > 0) {
      const form = new FormData();
      for (const [field, file] of Object.entries(example.files)) {
        form.append(field, new Blob([fs.readFileSync(path.join(this.root, file))]), path.basename(file));
      }
      body = form;
    }
    const res = await fetch(url, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { ...example.headers, ...auth },
      body,
    });
    return this.check(example, res);
  }

  private async check(example: DocExample, res: Response): Promise<string | undefined> {
    const text = await res.text();
    const label = example.kind === 'graphql' ? example.query.replace(/\s+/g, ' ').slice(0, 80) : `curl ${example.url}`;
    if (!res.ok) return `${example.where} ${label}: HTTP ${res.status} ${text.slice(0, 300)}`;
    if (!res.headers.get('content-type')?.includes('json')) return undefined;
    const answer = JSON.parse(text) as {
      errors?: { extensions?: { code?: string } }[];
      data?: { createApiKey?: { key?: string; apiKey?: { role?: string } } };
    };
    const placeholder = example.kind === 'graphql' && example.placeholder === true;
    if (answer.errors && !(placeholder && answer.errors.every((e) => e.extensions?.code === 'NOT_FOUND')))
      return `${example.where} ${label}: ${JSON.stringify(answer.errors).slice(0, 400)}`;
    const created = answer.data?.createApiKey;
    if (!this.key && created?.key && created.apiKey?.role === 'ADMIN') this.key = created.key;
    return undefined;
  }
}
