import { loadConfig, readEnvironment, type Config } from '../config.js';
import type { FolderServer } from '../db/dataDirLock.js';
import type { Logger } from '../logger.js';
import { CliError, UsageError } from './cliErrors.js';
import { parseBatchSize, type CliOptions } from './commandLine.js';
import type { ExtractCommandOptions } from './extractCommand.js';
import type { ServerClient } from './ServerClient.js';
import type { SourcesCommandOptions } from './sourcesCommand.js';

// Runs one parsed command. Each command imports its modules when it runs (the database drivers, the GraphQL server,
// the importers), so a command loads only what it uses.

/** `cairn mcp`'s stdout is the protocol: its logs go to stderr. Pretty lines only for a server at a terminal. */
async function loggerFor(command: string, config: Config): Promise<Logger> {
  const { createLogger, wantsPrettyLogs } = await import('../logger.js');
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

/** The `cairn serve` that holds the embedded data folder, if one runs (it recorded its URL in the folder's lock). */
async function folderServer(config: Config): Promise<FolderServer | undefined> {
  const { embeddedFolder } = await import('../db/openDb.js');
  const { serverHoldingDataDir } = await import('../db/dataDirLock.js');
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

/** The client of the server that holds the data folder (announced on stderr), or undefined to work on the store. */
async function clientFor(command: string, config: Config, values: CliOptions): Promise<ServerClient | undefined> {
  if (command === 'serve' || command === 'mcp') return undefined;
  const server = await folderServer(config);
  if (!server) return undefined;
  if (command === 'reindex' || command === 'migrate') throw needsTheFolder(command, server);
  const { ServerClient } = await import('./ServerClient.js');
  process.stderr.write(
    `(the server at ${server.url}, pid ${server.pid}, holds the data folder: working through its API)\n`,
  );
  return new ServerClient(server.url, values['api-key'] ?? config.apiKey);
}

/** What a command needs besides its options: the configuration, a logger and, beside a server, its client. */
interface CommandContext {
  config: Config;
  logger: Logger;
  client: ServerClient | undefined;
  args: string[];
  values: CliOptions;
}

/** `cairn import url|openapi|dir`. */
async function importCli({ config, logger, client, args, values }: CommandContext): Promise<number> {
  const { buildImportRequest, importCommand } = await import('./importCommand.js');
  const opts = {
    json: values.json,
    tags: values.tag,
    type: values.type,
    title: values.title,
    source: values.source,
    specId: values['spec-id'],
    skipUnresolvedRefs: values['skip-unresolved-refs'],
  };
  const request = await buildImportRequest(args, config, opts);
  if (!client) return importCommand(config, logger, request, opts);
  const { remoteImport } = await import('./remoteCommands.js');
  return remoteImport(client, request, values.json);
}

/** `cairn extract …`. */
async function extractCli({ config, logger, client, args, values }: CommandContext): Promise<number> {
  const { parseExtractRequest } = await import('./extractCommand.js');
  const request = parseExtractRequest(args, extractOptions(values));
  if (values.space.length > 1) throw new CliError('extract takes one --space (or none, for every space)');
  const space = values.space[0];
  if (!client) return (await import('./extractSpaces.js')).extractCommand(config, logger, request, values.json, space);
  const { remoteExtract } = await import('./remoteExtract.js');
  return remoteExtract(client, request, values.json, space);
}

/** `cairn sources …`. */
async function sourcesCli({ config, logger, client, args, values }: CommandContext): Promise<number> {
  if (client) return (await import('./remoteSources.js')).remoteSources(client, args, sourcesOptions(values));
  return (await import('./sourcesCommand.js')).sourcesCommand(config, logger, args, sourcesOptions(values));
}

/** `cairn keys create|list|revoke`. */
async function keysCli({ config, client, args, values }: CommandContext): Promise<number> {
  const { keysCommand, parseKeysAction } = await import('./keysCommand.js');
  const action = parseKeysAction(args, {
    json: values.json,
    role: values.role,
    name: values.name,
    force: values.force,
    spaces: values.space,
  });
  if (!client) return keysCommand(config, action, values.json);
  return (await import('./remoteCommands.js')).remoteKeys(client, action, values.json);
}

/** `cairn spaces [list] | create <id> [--name N] | rename <id> --name N | delete <id> | allow-read|revoke-read S R`. */
async function spacesCli({ config, logger, client, args, values }: CommandContext): Promise<number> {
  const { parseSpacesAction, spacesCommand, remoteSpaces } = await import('./spacesCommand.js');
  const action = parseSpacesAction(args, values.name);
  return client ? remoteSpaces(client, action, values.json) : spacesCommand(config, action, values.json, logger);
}

/** `cairn stats [--space S]`. */
async function statsCli({ config, logger, client, values }: CommandContext): Promise<number> {
  if (values.space.length > 1) throw new CliError('stats takes one --space (or none, for every space)');
  const space = values.space[0];
  if (client) return (await import('./remoteCommands.js')).remoteStats(client, values.json, space);
  return (await import('./statsCommand.js')).statsCommand(config, logger, values.json, space);
}

/** `cairn migrate`: opening the services applies the migrations. */
async function migrateCli({ config, logger }: CommandContext): Promise<number> {
  const { createServices } = await import('../services.js');
  const services = await createServices(config, logger, { allowEmbedderMismatch: true });
  await services.close();
  process.stdout.write('migrations applied\n');
  return 0;
}

const RUNNERS: Record<string, (context: CommandContext) => Promise<number>> = {
  async serve({ config, logger }) {
    await (await import('./serve.js')).serve(config, logger);
    return -1; // keep running
  },
  mcp: async ({ config, logger }) => (await import('./mcpCommand.js')).mcpCommand(config, logger),
  reindex: async ({ config, logger, values }) =>
    (await import('./reindexCommand.js')).reindexCommand(config, logger, {
      force: values.force,
      batchSize: parseBatchSize(values['batch-size']),
      json: values.json,
    }),
  import: importCli,
  extract: extractCli,
  sources: sourcesCli,
  keys: keysCli,
  spaces: spacesCli,
  stats: statsCli,
  migrate: migrateCli,
};

/** Runs a known command that needs the configuration (every one but `tools`); resolves with its exit code. */
export async function runConfiguredCommand(command: string, args: string[], values: CliOptions): Promise<number> {
  const run = RUNNERS[command];
  if (!run) throw new UsageError(`unknown command "${command}"`);
  parseBatchSize(values['batch-size']); // a bad value is a usage error for every command, before anything opens
  const config = loadConfig(readEnvironment());
  const logger = await loggerFor(command, config);
  const client = await clientFor(command, config, values);
  return run({ config, logger, client, args, values });
}
