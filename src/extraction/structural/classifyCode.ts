/** A code identifier with its entity type. */
export interface CodeIdentifier {
  name: string;
  type: string;
  /** How sure the shape alone makes the type (context words raise it). */
  confidence: number;
}

/** A word next to inline code that says what it is: "the `configureServer` hook", "the `--port` flag". */
export const CONTEXT_TYPES: Record<string, string> = {
  hook: 'Hook',
  option: 'ConfigOption',
  setting: 'ConfigOption',
  config: 'ConfigOption',
  flag: 'CliFlag',
  function: 'Function',
  method: 'Function',
  variable: 'EnvVariable',
  package: 'Package',
  command: 'Command',
  property: 'Property',
  field: 'Property',
  event: 'Event',
  type: 'Type',
  interface: 'Type',
  class: 'Type',
};

const KEYWORDS = new Set(
  `abstract any as async await boolean break case catch class const continue debugger declare default delete do else
  enum export extends false finally for from function get if implements import in infer instanceof interface is keyof
  let module namespace never new null number object of package private protected public readonly require return set
  static string super switch symbol this throw true try type typeof undefined unique unknown var void while with yield
  bigint`.split(/\s+/),
);
/** Words inline code often holds that name no API: folders and placeholders. */
const NOT_IDENTIFIERS = new Set(['node_modules', 'dist', 'src', 'public', 'foo', 'bar', 'baz', 'example']);
const VALUES = /^(true|false|null|undefined|NaN|Infinity|-?\d[\d_.]*(e\d+)?[a-z%]*)$/i;
const FILE_EXTENSIONS =
  /\.(m?[jt]sx?|c[jt]s|d\.ts|json5?|md|mdx|html?|css|scss|sass|less|styl|vue|svelte|astro|svg|png|jpe?g|gif|webp|avif|ico|wasm|ya?ml|toml|txt|lock|map|env|sh|xml|pdf|woff2?|ttf|mp4|webm|ya?ml)$/i;
/** Programs whose subcommands are commands: `npm run build`, `npx vite`, `git clone`. */
const PROGRAMS = new Set(['npm', 'npx', 'pnpm', 'pnpx', 'yarn', 'bun', 'bunx', 'deno', 'node', 'git', 'docker', 'tsc']);
const SUBCOMMANDS = new Set(
  `build dev serve preview run install create init test start optimize deploy add remove exec lint format generate
  publish watch help version upgrade update link pack`.split(/\s+/),
);
/** Variables code examples use for objects other than the config. */
const OBJECT_ROOTS = new Set(
  `environment context ctx event options opts req res request response app runner vite hot err error
  result bundle chunk asset client`.split(/\s+/),
);
/** `vite.dev`, `example.com`: host names, not config keys. */
const TOP_LEVEL_DOMAINS = new Set(['com', 'org', 'net', 'dev', 'io', 'rs', 'app', 'co', 'uk', 'de', 'fr', 'jp', 'edu']);
/** Globals and Node's core modules: their members are runtime APIs (`fs.readFile`), never config keys. */
const MEMBER_ROOTS = new Set(
  `import process window globalThis self document navigator console this module exports require JSON Object Math Promise
  fs path os url http https crypto util child_process worker_threads`.split(/\s+/),
);

/** Inline code (or a heading) as the identifiers it names; [] for values, keywords, local paths and prose. */
export function classifyCode(raw: string, contextType?: string): CodeIdentifier[] {
  const code = raw.trim().replace(/;$/, '');
  if (code.length < 3 || code.length > 120 || VALUES.test(code) || /^['"`]/.test(code)) return [];
  if (/^--?[a-z]/i.test(code)) return flags(code);
  const command = classifyCommand(code);
  if (command.length > 0) return command;
  if (/\s/.test(code)) return [];
  const one = classifyToken(code, contextType);
  return one ? [one] : [];
}

function flags(code: string): CodeIdentifier[] {
  return [...code.matchAll(/(?:^|\s)(--[a-z][a-z0-9-]*[a-z0-9])(?=[\s=]|$)/gi)]
    .map((m) => m[1] ?? '')
    .filter((f) => f.length >= 3)
    .map((name) => ({ name, type: 'CliFlag', confidence: 0.9 }));
}

/** `vite build --watch`, `npm run dev`: the command and its flags. */
export function classifyCommand(code: string): CodeIdentifier[] {
  const words = code.replace(/^\$\s+/, '').split(/\s+/);
  const [program, sub, third] = words;
  if (!program || !sub || !/^[a-z][a-z0-9-]*$/.test(program) || KEYWORDS.has(program)) return [];
  if (!/^[a-z@][\w@./:-]*$/.test(sub)) return [];
  let name: string;
  if (PROGRAMS.has(program)) {
    const withScript =
      (sub === 'run' || sub === 'exec' || sub === 'create') && third && /^[a-z@][\w@./:-]*$/.test(third);
    name = withScript ? `${program} ${sub} ${third}` : `${program} ${sub}`;
  } else if (SUBCOMMANDS.has(sub)) {
    name = `${program} ${sub}`;
  } else {
    return [];
  }
  return [{ name, type: 'Command', confidence: 0.85 }, ...flags(code)];
}

function classifyToken(code: string, contextType?: string): CodeIdentifier | undefined {
  const call = /^([A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*)\((.*)\)$/.exec(code);
  const token = call?.[1] ?? code;
  if (token.length < 3 || KEYWORDS.has(token) || VALUES.test(token)) return undefined;
  if (/^(\.{0,2}\/|~\/)/.test(token) || FILE_EXTENSIONS.test(token)) return undefined;
  // Named without the call, as text names it elsewhere: `defineConfig()` and `defineConfig` are one function.
  // A plain word called (`url()`, `render()`) is too generic to be an entity unless the text calls it a function.
  if (call && (/[.A-Z_]/.test(token) || contextType === 'Function'))
    return { name: token, type: 'Function', confidence: 0.9 };
  if (call) return undefined;
  const env = /^(?:import\.meta\.env|process\.env)\.([A-Z_][A-Z0-9_]*)$/.exec(token);
  if (env?.[1]) return { name: env[1], type: 'EnvVariable', confidence: 0.9 };
  if (/^[A-Z][A-Z0-9]*(_[A-Z0-9]+)+$/.test(token) && token.length >= 4) {
    return { name: token, type: 'EnvVariable', confidence: contextType === 'EnvVariable' ? 0.9 : 0.8 };
  }
  if (/^@[a-z0-9][\w.-]*\/[a-z0-9][\w.-]*$/.test(token)) return { name: token, type: 'Package', confidence: 0.9 };
  const dotted = /^[A-Za-z_$][\w$]*(\.[A-Za-z_$][\w$]*)+$/.test(token);
  if (dotted) return classifyDotted(token, contextType);
  if (/^[a-z][a-z0-9]*(-[a-z0-9]+)+$/.test(token)) {
    const pluginLike = /(^|-)plugin(-|$)|^create-/.test(token);
    if (contextType === 'Package' || pluginLike) return { name: token, type: 'Package', confidence: 0.8 };
    return contextType === 'Command' ? { name: token, type: 'Command', confidence: 0.8 } : undefined;
  }
  if (!/^[A-Za-z_$][\w$]*$/.test(token) || NOT_IDENTIFIERS.has(token)) return undefined;
  if (contextType && contextFits(token, contextType)) return { name: token, type: contextType, confidence: 0.85 };
  if (/^[a-z][a-z0-9]*([A-Z][a-z0-9]*)+$/.test(token)) return { name: token, type: 'Identifier', confidence: 0.7 };
  if (/^[A-Z][a-z0-9]+([A-Z][a-z0-9]*)+$/.test(token)) return { name: token, type: 'Type', confidence: 0.75 };
  return undefined;
}

/** "the `x` flag" makes a flag only of `--x`; "the `X` type" a type only of a capitalised name. */
function contextFits(token: string, contextType: string): boolean {
  if (contextType === 'CliFlag') return false;
  if (contextType === 'Type') return /^[A-Z]/.test(token);
  if (contextType === 'Package' || contextType === 'Command') return /^[a-z]/.test(token);
  return !NOT_IDENTIFIERS.has(token);
}

function classifyDotted(token: string, contextType?: string): CodeIdentifier | undefined {
  const segments = token.split('.');
  const root = segments[0] ?? '';
  if (TOP_LEVEL_DOMAINS.has(segments[segments.length - 1] ?? '')) return undefined;
  if (MEMBER_ROOTS.has(root)) return { name: token, type: contextType ?? 'Api', confidence: 0.85 };
  // Members of objects code passes around (`environment.moduleGraph`, `req.url`) are properties, not config keys.
  if (OBJECT_ROOTS.has(root)) return { name: token, type: contextType ?? 'Property', confidence: 0.75 };
  // `server.port`, `build.rollupOptions.input`: a config key unless the context says otherwise.
  if (/^[a-z][\w$]*(\.[a-z][\w$]*)+$/.test(token)) {
    return { name: token, type: contextType ?? 'ConfigOption', confidence: contextType ? 0.9 : 0.85 };
  }
  return contextType ? { name: token, type: contextType, confidence: 0.8 } : undefined;
}

/** The package an import specifier names: `@vitejs/plugin-react/foo` → `@vitejs/plugin-react`; undefined if local. */
export function packageOfSpecifier(specifier: string): string | undefined {
  if (!/^(@[a-z0-9][\w.-]*\/)?[a-z0-9][\w.-]*(\/.*)?$/i.test(specifier) || specifier.includes(':')) return undefined;
  const parts = specifier.split('/');
  const name = specifier.startsWith('@') ? parts.slice(0, 2).join('/') : (parts[0] ?? '');
  return name.length >= 3 && !FILE_EXTENSIONS.test(name) ? name : undefined;
}
