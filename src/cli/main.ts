import { readFileSync, realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { loadConfig, readEnvironment, type Config } from '../config.js';
import { serverHoldingDataDir, type FolderServer } from '../db/dataDirLock.js';
import { embeddedFolder } from '../db/openDb.js';
import { createLogger, wantsPrettyLogs, type Logger } from '../logger.js';
import { projectPath } from '../paths.js';
import { createServices } from '../services.js';
import { CliError, describeCliError, UsageError } from './cliErrors.js';
import { formatStats } from './formatStats.js';
import { extractCommand, parseExtractRequest, type ExtractCommandOptions } from './extractCommand.js';
import { buildImportRequest, importCommand } from './importCommand.js';
import { keysCommand, parseKeysAction } from './keysCommand.js';
import { mcpCommand } from './mcpCommand.js';
import { toolsCommand } from './toolsCommand.js';
import { reindexCommand } from './reindexCommand.js';
import { remoteImport, remoteKeys, remoteStats } from './remoteCommands.js';
import { serve } from './serve.js';
import { ServerClient } from './ServerClient.js';
import { remoteExtract } from './remoteExtract.js';
import { remoteSources } from './remoteSources.js';
import { sourcesCommand, type SourcesCommandOptions } from './sourcesCommand.js';

const USAGE = `Usage: cairn <command> [options]

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
                        --json prints one NDJSON line per item and a summary; exit 1 when any item failed
  extract --all | --document <id>… | --type T --tag T… [--extractors structural,offline,llm] [--dry-run] [--json]
                        extract entities and relationships from documents, with progress; --dry-run sends
                        nothing and prints what an LLM extraction would cost; exit 1 unless every document succeeded
  keys create --role admin|editor|agent|reader --name <name> [--json] [--force]
                        create an API key and print it once (only its SHA-256 is stored);
                        the first key must be an admin key (--force creates another role anyway)
  keys list [--json]    list keys: id, name, role, created, last used, revoked
  keys revoke <id>      revoke a key at once
  sources add <name> --kind GIT|SITE|OPENAPI|FOLDER [--url U] [--branch B] [--include G]… [--exclude G]…
        [--path P] [--sitemap U] [--prefix P] [--max-pages N] [--concurrency N] [--delay-ms N]
        [--tag T]… [--type T] [--extractors structural,offline,llm] [--schedule CRON] [--timeout SECONDS]
        [--deploy-key FILE] [--known-hosts FILE]
                        register a source that syncs on its schedule (see docs/sources.md)
  sources list [--json] list sources: kind, status, documents, schedule, last and next run
  sources sync <name>   sync a source now, with progress; exit 1 unless every item synced
  sources remove <name> [--keep-documents]
                        remove a source and its documents (or keep them as ordinary documents)
  stats [--json]        print document and chunk counts
  migrate               apply database migrations and exit
  --api-key KEY         the key sent to a running server (default: CAIRN_API_KEY); needed once authentication is on
  --version             print the version

Configuration comes from CAIRN_* environment variables, and from a .env file in the working folder for those
not set (see docs/configuration.md). On the embedded database (no CAIRN_DATABASE_URL) one process holds the data
folder: while \`cairn serve\` runs, stats, import, extract and keys work through its API (with --api-key or
CAIRN_API_KEY once authentication is on); reindex and migrate need the server stopped.`;

/** The version in package.json (shipped beside dist/, also in the Docker image). */
function version(): string {
  return (JSON.parse(readFileSync(projectPath('package.json'), 'utf8')) as { version: string }).version;
}

/** `--batch-size`: a positive integer, written as one (parseInt would read "12abc" as 12). */
function parseBatchSize(raw: string): number {
  const n = /^\d+$/.test(raw.trim()) ? Number(raw) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < 1) throw new UsageError(`--batch-size must be a positive integer, got "${raw}"`);
  return n;
}

function parseCommandLine(argv: string[]) {
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

type CliOptions = ReturnType<typeof parseCommandLine>['values'];

/** `cairn mcp`'s stdout is the protocol: its logs go to stderr. Pretty lines only for a server at a terminal. */
function loggerFor(command: string, config: Config): Logger {
  if (command === 'mcp') return createLogger(config.logLevel, { stderr: true });
  return createLogger(command === 'serve' ? config.logLevel : 'warn', {
    pretty: command === 'serve' && wantsPrettyLogs(config.env, process.stdout.isTTY === true),
  });
}

/** The options of `cairn sources …`. */
function sourcesOptions(values: CliOptions): SourcesCommandOptions {
  return {
    json: values.json,
    kind: values.kind,
    url: values.url,
    branch: values.branch,
    include: values.include,
    exclude: values.exclude,
    path: values.path,
    sitemap: values.sitemap,
    prefix: values.prefix,
    maxPages: values['max-pages'],
    concurrency: values.concurrency,
    delayMs: values['delay-ms'],
    deployKeyFile: values['deploy-key'],
    knownHostsFile: values['known-hosts'],
    tags: values.tag,
    type: values.type,
    extractors: values.extractors,
    schedule: values.schedule,
    timeout: values.timeout,
    keepDocuments: values['keep-documents'],
  };
}

/** The options of `cairn extract`. */
function extractOptions(values: CliOptions): ExtractCommandOptions {
  const { all, document: documents, type, tag: tags, extractors, 'dry-run': dryRun, json } = values;
  return { all, documents, type, tags, extractors, dryRun, json };
}

async function main(argv: string[]): Promise<number> {
  const { positionals, values } = parseCommandLine(argv);
  const command = positionals[0] ?? 'serve';
  if (values.help || command === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  if (values.version || command === 'version') {
    process.stdout.write(`${version()}\n`);
    return 0;
  }
  const known = ['serve', 'mcp', 'tools', 'reindex', 'import', 'extract', 'keys', 'sources', 'stats', 'migrate'];
  // Before loadConfig, so a typo is reported as such even when the environment is incomplete.
  if (!known.includes(command)) throw new UsageError(`unknown command "${command}" (commands: ${known.join(', ')})`);
  // Needs no configuration or database: the definitions are static.
  if (command === 'tools') return toolsCommand(values.format);
  const batchSize = parseBatchSize(values['batch-size']);
  const config = loadConfig(readEnvironment());
  const logger = loggerFor(command, config);
  const server = command === 'serve' || command === 'mcp' ? undefined : folderServer(config);
  if (server && (command === 'reindex' || command === 'migrate')) throw needsTheFolder(command, server);
  let client: ServerClient | undefined;
  if (server) {
    client = new ServerClient(server.url, values['api-key'] ?? config.apiKey);
    process.stderr.write(
      `(the server at ${server.url}, pid ${server.pid}, holds the data folder: working through its API)\n`,
    );
  }
  switch (command) {
    case 'serve':
      await serve(config, logger);
      return -1; // keep running
    case 'mcp':
      return mcpCommand(config, logger);
    case 'reindex':
      return reindexCommand(config, logger, { force: values.force, batchSize, json: values.json });
    case 'import': {
      const opts = {
        json: values.json,
        tags: values.tag,
        type: values.type,
        title: values.title,
        source: values.source,
        specId: values['spec-id'],
        skipUnresolvedRefs: values['skip-unresolved-refs'],
      };
      const request = await buildImportRequest(positionals.slice(1), config, opts);
      return client ? remoteImport(client, request, values.json) : importCommand(config, logger, request, opts);
    }
    case 'extract': {
      const request = parseExtractRequest(positionals.slice(1), extractOptions(values));
      return client
        ? remoteExtract(client, request, values.json)
        : extractCommand(config, logger, request, values.json);
    }
    case 'sources': {
      const sourceOptions = sourcesOptions(values);
      return client
        ? remoteSources(client, positionals.slice(1), sourceOptions)
        : sourcesCommand(config, logger, positionals.slice(1), sourceOptions);
    }
    case 'keys': {
      const action = parseKeysAction(positionals.slice(1), {
        json: values.json,
        role: values.role,
        name: values.name,
        force: values.force,
      });
      return client ? remoteKeys(client, action, values.json) : keysCommand(config, action, values.json);
    }
    case 'stats':
      return client ? remoteStats(client, values.json) : stats(config, logger, values.json);
    case 'migrate': {
      const services = await createServices(config, logger, { allowEmbedderMismatch: true });
      await services.close();
      process.stdout.write('migrations applied\n');
      return 0;
    }
    default:
      throw new UsageError(`unknown command "${command}"`);
  }
}

/** The `cairn serve` that holds the embedded data folder, if one runs (it recorded its URL in the folder's lock). */
function folderServer(config: Config): FolderServer | undefined {
  const folder = embeddedFolder(config);
  return folder ? serverHoldingDataDir(folder) : undefined;
}

/** Why reindex and migrate cannot go through the server, and how to run them. */
function needsTheFolder(command: string, server: FolderServer): CliError {
  const why =
    command === 'migrate'
      ? 'the server applied every migration when it started, so there is nothing to do while it runs'
      : 'reindex rewrites every embedding and has no API: it needs the data folder to itself';
  return new CliError(
    `the server at ${server.url} (pid ${server.pid}) holds the data folder: ${why}. ` +
      `Stop the server (Ctrl-C in its terminal, or kill ${server.pid}), run \`npm run cairn -- ${command}\`, then start it again with \`npm start\`.`,
  );
}

/** `cairn stats` on the store itself: human-readable, or one JSON object with `--json`. */
async function stats(config: Config, logger: Logger, json: boolean): Promise<number> {
  const services = await createServices(config, logger);
  try {
    const report = {
      ...(await services.documents.stats()),
      embedder: services.embedder.info,
      extraction: await services.extraction.statusCounts(),
      database: services.db.kind,
    };
    process.stdout.write(json ? `${JSON.stringify(report)}\n` : formatStats(report));
    return 0;
  } finally {
    await services.close();
  }
}

/**
 * Runs `cairn <argv>` and resolves with its exit code (-1 while `serve` keeps running); a failure is described on
 * stderr. Exported for tests, which run commands in their own process.
 */
export async function runCommand(argv: string[]): Promise<number> {
  try {
    return await main(argv);
  } catch (err) {
    const { text, exitCode } = describeCliError(err);
    process.stderr.write(text);
    return exitCode;
  }
}

/** Whether this module is the program Node runs (directly, through bin/cairn.js or tsx), not one a test imported. */
function isProgram(): boolean {
  const script = process.argv[1];
  if (!script) return false;
  let invoked: string;
  try {
    invoked = realpathSync(script);
  } catch {
    return false;
  }
  return invoked === fileURLToPath(import.meta.url) || invoked === projectPath('bin', 'cairn.js');
}

if (isProgram()) {
  void runCommand(process.argv.slice(2)).then((code) => {
    if (code >= 0) process.exit(code);
  });
}
