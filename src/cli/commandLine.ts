import { parseArgs } from 'node:util';
import { UsageError } from './cliErrors.js';

// The command line alone: what `--help`, `--version` and a mistyped command need, so they load nothing else.

export const USAGE = `Usage: cairn <command> [options]

Commands:
  serve                 start the GraphQL server (default), with MCP at /mcp
  mcp                   serve MCP on stdin/stdout, for desktop clients that launch a command
  tools --format openai|anthropic
                        print the MCP tools as function-calling JSON
  reindex [--force] [--batch-size N] [--json]
                        re-embed every chunk with the configured embedder
  import url <url…>     import web pages or files by URL (SSRF-safe; HTML becomes markdown)
  import openapi <file|url> [--spec-id ID] [--skip-unresolved-refs]
                        import an OpenAPI/Swagger spec: documents per operation plus graph nodes;
                        --spec-id names the spec (default: from the URL, else info.title);
                        a file's $refs may read files in its folder and under it;
                        --skip-unresolved-refs imports the rest when a $ref cannot be read (one warning each)
  import dir <path>     import md, txt, rst, html, pdf, docx, yaml and json files under a folder
        [--tag T]… [--type MANUAL|TUTORIAL|…] [--title T] [--source S] [--json]
                        other files are listed as skipped, with why; --json prints one NDJSON line per item
                        and a summary; exit 1 when any item failed
  extract --all | --document <id>… | --type T --tag T… [--space S] [--extractors structural,offline,llm]
        [--dry-run] [--json]
                        extract entities and relationships from documents, with progress, in every space (or
                        --space S; through a server, the key's space); --dry-run sends nothing and prints what an
                        LLM extraction would cost; exit 1 unless every document succeeded
  keys create --role admin|editor|agent|reader --name <name> [--space S]… [--json] [--force]
                        create an API key and print it once (only its SHA-256 is stored);
                        the first key must be an admin key (--force creates another role anyway);
                        --space binds it to spaces (default: every space for admin, else default)
  keys list [--json]    list keys: id, name, role, created, last used, revoked
  keys revoke <id>      revoke a key at once
  spaces [list] [--json] | spaces create <id> [--name N] | spaces rename <id> --name N | spaces delete <id>
                        list spaces (with the spaces each reads), create, rename or delete one
                        (see docs/security.md#spaces)
  spaces allow-read <space> <reads> | spaces revoke-read <space> <reads>
                        let <space>'s queries read <reads> as read-only context, or stop them
                        (see docs/security.md#reading-other-spaces)
  sources add <name> --kind GIT|SITE|OPENAPI|FOLDER [--url U] [--branch B] [--include G]… [--exclude G]…
        [--path P] [--sitemap U] [--prefix P] [--max-pages N] [--concurrency N] [--delay-ms N]
        [--tag T]… [--type T] [--extractors structural,offline,llm] [--schedule CRON] [--timeout SECONDS]
        [--deploy-key FILE] [--known-hosts FILE]
                        register a source that syncs on its schedule (see docs/sources.md)
  sources list [--json] list sources: kind, status, documents, schedule, last and next run
  sources sync <name>   sync a source now, with progress; exit 1 unless every item synced
  sources remove <name> [--keep-documents]
                        remove a source and its documents (or keep them as ordinary documents)
  stats [--space S] [--json]
                        print document, chunk, extraction and graph counts (of one space with --space)
  migrate               apply database migrations and exit
  --api-key KEY         the key sent to a running server (default: CAIRN_API_KEY); needed once authentication is on
  --version             print the version

Configuration comes from CAIRN_* environment variables, and from a .env file in the working folder for those
not set (see docs/configuration.md). On the embedded database (no CAIRN_DATABASE_URL) one process holds the data
folder: while \`cairn serve\` runs, stats, import, extract and keys work through its API (with --api-key or
CAIRN_API_KEY once authentication is on); reindex and migrate need the server stopped.`;

/** Every command `cairn` knows. */
export const COMMANDS = [
  'serve',
  'mcp',
  'tools',
  'reindex',
  'import',
  'extract',
  'keys',
  'spaces',
  'sources',
  'stats',
  'migrate',
] as const;

/** `--batch-size`: a positive integer, written as one (parseInt would read "12abc" as 12). */
export function parseBatchSize(raw: string): number {
  const n = /^\d+$/.test(raw.trim()) ? Number(raw) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < 1) throw new UsageError(`--batch-size must be a positive integer, got "${raw}"`);
  return n;
}

export function parseCommandLine(argv: string[]) {
  return parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      force: { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
      'batch-size': { type: 'string', default: '256' },
      tag: { type: 'string', multiple: true, default: [] },
      type: { type: 'string' },
      title: { type: 'string' },
      source: { type: 'string' },
      'spec-id': { type: 'string' },
      'skip-unresolved-refs': { type: 'boolean', default: false },
      role: { type: 'string' },
      space: { type: 'string', multiple: true, default: [] },
      name: { type: 'string' },
      'api-key': { type: 'string' },
      kind: { type: 'string' },
      url: { type: 'string' },
      branch: { type: 'string' },
      include: { type: 'string', multiple: true, default: [] },
      exclude: { type: 'string', multiple: true, default: [] },
      path: { type: 'string' },
      sitemap: { type: 'string' },
      prefix: { type: 'string' },
      'max-pages': { type: 'string' },
      concurrency: { type: 'string' },
      'delay-ms': { type: 'string' },
      'deploy-key': { type: 'string' },
      'known-hosts': { type: 'string' },
      schedule: { type: 'string' },
      timeout: { type: 'string' },
      'keep-documents': { type: 'boolean', default: false },
      format: { type: 'string' },
      all: { type: 'boolean', default: false },
      document: { type: 'string', multiple: true, default: [] },
      extractors: { type: 'string' },
      'dry-run': { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
      version: { type: 'boolean', short: 'v', default: false },
    },
  });
}

/** The parsed options. */
export type CliOptions = ReturnType<typeof parseCommandLine>['values'];
