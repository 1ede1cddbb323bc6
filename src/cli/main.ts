import { parseArgs } from 'node:util';
import { loadConfig } from '../config.js';
import { isAppError } from '../errors.js';
import { createLogger } from '../logger.js';
import { createServices } from '../services.js';
import { importCommand } from './importCommand.js';
import { keysCommand } from './keysCommand.js';
import { reindexCommand } from './reindexCommand.js';
import { serve } from './serve.js';

const USAGE = `Usage: cairn <command> [options]

Commands:
  serve                 start the GraphQL server (default)
  reindex [--force] [--batch-size N] [--json]
                        re-embed every chunk with the configured embedder
  import url <url…>     import web pages or files by URL (SSRF-safe; HTML becomes markdown)
  import openapi <file|url>
                        import an OpenAPI/Swagger spec: documents per operation plus graph nodes
  import dir <path>     import md, txt, rst, html, pdf, docx, yaml and json files under a folder
        [--tag T]… [--type MANUAL|TUTORIAL|…] [--title T] [--source S] [--json]
                        --json prints one NDJSON line per item and a summary; exit 1 when any item failed
  keys create --role admin|editor|agent|reader --name <name> [--json]
                        create an API key and print it once (only its SHA-256 is stored)
  keys list [--json]    list keys: id, name, role, created, last used, revoked
  keys revoke <id>      revoke a key at once
  stats [--json]        print document and chunk counts
  migrate               apply database migrations and exit

Configuration comes from CAIRN_* environment variables (see README).`;

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
      role: { type: 'string' },
      name: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  const command = positionals[0] ?? 'serve';
  if (values.help || command === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const config = loadConfig();
  // CLI tools keep stdout for their output; logs go to stderr unless serving.
  const logger = createLogger(command === 'serve' ? config.logLevel : 'warn');
  switch (command) {
    case 'serve':
      await serve(config, logger);
      return -1; // keep running
    case 'reindex': {
      const batchSize = Number.parseInt(values['batch-size'], 10);
      if (!Number.isInteger(batchSize) || batchSize < 1) throw new Error('--batch-size must be a positive integer');
      return reindexCommand(config, logger, { force: values.force, batchSize, json: values.json });
    }
    case 'import':
      return importCommand(config, logger, positionals.slice(1), {
        json: values.json,
        tags: values.tag,
        type: values.type,
        title: values.title,
        source: values.source,
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
      process.stderr.write(`Unknown command "${command}".\n\n${USAGE}\n`);
      return 2;
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exit(code);
  },
  (err: unknown) => {
    process.stderr.write(`cairn: ${isAppError(err) ? `[${err.code}] ${err.message}` : (err as Error).stack ?? String(err)}\n`);
    process.exit(1);
  },
);
