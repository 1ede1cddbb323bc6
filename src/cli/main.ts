import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { loadConfig } from '../config.js';
import { createLogger } from '../logger.js';
import { projectPath } from '../paths.js';
import { createServices } from '../services.js';
import { describeCliError, UsageError } from './cliErrors.js';
import { importCommand } from './importCommand.js';
import { keysCommand } from './keysCommand.js';
import { mcpCommand } from './mcpCommand.js';
import { toolsCommand } from './toolsCommand.js';
import { reindexCommand } from './reindexCommand.js';
import { serve } from './serve.js';

const USAGE = `Usage: cairn <command> [options]

Commands:
  serve                 start the GraphQL server (default), with MCP at /mcp
  mcp                   serve MCP on stdin/stdout, for desktop clients that launch a command
  tools --format openai|anthropic
                        print the MCP tools as function-calling JSON
  reindex [--force] [--batch-size N] [--json]
                        re-embed every chunk with the configured embedder
  import url <url…>     import web pages or files by URL (SSRF-safe; HTML becomes markdown)
  import openapi <file|url> [--spec-id ID]
                        import an OpenAPI/Swagger spec: documents per operation plus graph nodes;
                        --spec-id names the spec (default: from the URL, else info.title)
  import dir <path>     import md, txt, rst, html, pdf, docx, yaml and json files under a folder
        [--tag T]… [--type MANUAL|TUTORIAL|…] [--title T] [--source S] [--json]
                        --json prints one NDJSON line per item and a summary; exit 1 when any item failed
  keys create --role admin|editor|agent|reader --name <name> [--json]
                        create an API key and print it once (only its SHA-256 is stored)
  keys list [--json]    list keys: id, name, role, created, last used, revoked
  keys revoke <id>      revoke a key at once
  stats [--json]        print document and chunk counts
  migrate               apply database migrations and exit
  --version             print the version

Configuration comes from CAIRN_* environment variables (see README). On the embedded database (no
CAIRN_DATABASE_URL) the data folder is locked by the process that opens it: while \`cairn serve\` runs, the other
commands refuse to start; use the server's GraphQL API (createApiKey, importUrl, …) or stop it first.`;

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

async function main(argv: string[]): Promise<number> {
  const { positionals, values } = parseArgs({
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
      role: { type: 'string' },
      name: { type: 'string' },
      format: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
      version: { type: 'boolean', short: 'v', default: false },
    },
  });
  const command = positionals[0] ?? 'serve';
  if (values.help || command === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  if (values.version || command === 'version') {
    process.stdout.write(`${version()}\n`);
    return 0;
  }
  const known = ['serve', 'mcp', 'tools', 'reindex', 'import', 'keys', 'stats', 'migrate'];
  // Before loadConfig, so a typo is reported as such even when the environment is incomplete.
  if (!known.includes(command)) throw new UsageError(`unknown command "${command}" (commands: ${known.join(', ')})`);
  // Needs no configuration or database: the definitions are static.
  if (command === 'tools') return toolsCommand(values.format);
  const batchSize = parseBatchSize(values['batch-size']);
  const config = loadConfig();
  // CLI tools keep stdout for their output; logs go to stderr unless serving.
  // `cairn mcp`'s stdout is the protocol: its logs must go to stderr.
  const logger = command === 'mcp' ? createLogger(config.logLevel, 'stderr') : createLogger(command === 'serve' ? config.logLevel : 'warn');
  switch (command) {
    case 'serve':
      await serve(config, logger);
      return -1; // keep running
    case 'mcp':
      return mcpCommand(config, logger);
    case 'reindex':
      return reindexCommand(config, logger, { force: values.force, batchSize, json: values.json });
    case 'import':
      return importCommand(config, logger, positionals.slice(1), {
        json: values.json,
        tags: values.tag,
        type: values.type,
        title: values.title,
        source: values.source,
        specId: values['spec-id'],
      });
    case 'keys':
      return keysCommand(config, positionals.slice(1), { json: values.json, role: values.role, name: values.name });
    case 'stats': {
      const services = await createServices(config, logger);
      try {
        const stats = { ...(await services.documents.stats()), embedder: services.embedder.info, database: services.db.kind };
        process.stdout.write(values.json ? `${JSON.stringify(stats)}\n` : `${JSON.stringify(stats, null, 2)}\n`);
        return 0;
      } finally {
        await services.close();
      }
    }
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

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exit(code);
  },
  (err: unknown) => {
    const { text, exitCode } = describeCliError(err);
    process.stderr.write(text);
    process.exit(exitCode);
  },
);
