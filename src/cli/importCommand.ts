import type { Stats } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import {
  type ImportJobRecord,
  type ImportRequest,
  type ItemEvent,
  validateOpenApiImport,
  scanDirectory,
  skippedFileWarnings,
  validateUrlImport,
} from '../../importers/index.js';
import type { Config } from '../config.js';
import { validateDocumentDefaults } from '../documents/validateInput.js';
import { badInput, ErrorCode, isAppError } from '../errors.js';
import type { Logger } from '../logger.js';
import { createServices } from '../services.js';
import { UsageError } from './cliErrors.js';
import { importGraphLines, importGraphReport, type ImportGraphReport } from './importGraphSummary.js';
import { printSkipped } from './importOutput.js';
import { progressReporter } from './progress.js';

/** Options shared by the `import` sub-commands. */
export interface ImportCommandOptions {
  json: boolean;
  tags: string[];
  type: string | undefined;
  title: string | undefined;
  source: string | undefined;
  /** `--spec-id`: the spec's identity (import openapi only). */
  specId?: string | undefined;
  /** `--skip-unresolved-refs`: import a spec without the `$ref`s that cannot be read (import openapi only). */
  skipUnresolvedRefs?: boolean;
}

const IMPORT_USAGE = 'usage: cairn import url <url…> | import openapi <file|url> | import dir <path>';

/** `stat`, with a missing path reported as the user's mistake (one line naming the path) rather than a raw ENOENT. */
async function statTarget(command: string, target: string): Promise<Stats> {
  try {
    return await stat(target);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR')
      throw badInput(command, `${path.resolve(target)} does not exist; check the path`);
    if (code === 'EACCES' || code === 'EPERM')
      throw badInput(command, `${path.resolve(target)} cannot be read (permission denied)`);
    throw err;
  }
}

/** Turns the command line into a validated import request (reading the spec file or walking the folder). */
async function buildRequest(
  kind: string | undefined,
  targets: string[],
  config: Config,
  opts: ImportCommandOptions,
): Promise<ImportRequest> {
  // No --tag means none given (null): a URL re-import then keeps the tags the document has.
  const raw = {
    tags: opts.tags.length > 0 ? opts.tags : null,
    documentType: opts.type ?? null,
    title: opts.title ?? null,
    source: opts.source ?? null,
  };
  if (kind !== 'url' && kind !== 'openapi' && kind !== 'dir')
    throw new UsageError(kind ? `unknown import kind "${kind}"; ${IMPORT_USAGE}` : IMPORT_USAGE);
  if (opts.specId !== undefined && kind !== 'openapi') {
    const each = kind === 'dir' ? 'file' : 'URL';
    throw new UsageError(
      `--spec-id applies to import openapi only: import ${kind} may bring in many specs, each named from its ${each}; import one spec with import openapi <file|url> --spec-id ID`,
    );
  }
  if (opts.skipUnresolvedRefs && kind !== 'openapi')
    throw new UsageError(`--skip-unresolved-refs applies to import openapi only`);
  if (targets.length === 0)
    throw new UsageError(
      `import ${kind} needs ${kind === 'url' ? 'at least one URL' : kind === 'dir' ? 'a folder' : 'a file or URL'}; ${IMPORT_USAGE}`,
    );
  switch (kind) {
    case 'url':
      return validateUrlImport({ ...raw, urls: targets }, 'import url');
    case 'openapi': {
      const target = targets[0] as string;
      const specId = opts.specId ?? null;
      const skipUnresolvedRefs = opts.skipUnresolvedRefs ?? false;
      if (/^https?:\/\//i.test(target))
        return validateOpenApiImport(
          { ...raw, url: target, specId, skipUnresolvedRefs },
          config.import.maxBytes,
          'import openapi',
        );
      const info = await statTarget('import openapi', target);
      if (!info.isFile()) throw badInput('import openapi', `${path.resolve(target)} is not a file`);
      const size = info.size;
      if (size > config.import.maxBytes)
        throw badInput(
          'import openapi',
          `${target} is ${size} bytes; the limit is ${config.import.maxBytes} (CAIRN_IMPORT_MAX_BYTES)`,
        );
      const content = await readFile(target, 'utf8');
      const request = validateOpenApiImport(
        { ...raw, content, specId, skipUnresolvedRefs, source: opts.source ?? path.resolve(target) },
        config.import.maxBytes,
        'import openapi',
      );
      // Labels the item in progress and errors (not "inline spec"), and lets its $refs read files beside it.
      if (request.kind === 'openapi') request.file = path.resolve(target);
      return request;
    }
    case 'dir': {
      const root = path.resolve(targets[0] as string);
      if (!(await statTarget('import dir', root)).isDirectory())
        throw badInput('import dir', `${root} is not a folder`);
      const { files, skipped } = await scanDirectory(root);
      if (files.length === 0) {
        const why = skippedFileWarnings(skipped).map((w) => `; ${w}`);
        throw badInput('import dir', `${root} has no md, txt, rst, html, pdf, docx, yaml or json files${why.join('')}`);
      }
      const defaults = validateDocumentDefaults(raw, 'import dir');
      return { kind: 'directory', root, files, defaults, ...(skipped.length > 0 ? { skipped } : {}) };
    }
  }
}

/** The option each validated field comes from, for command-line messages. */
const OPTION_OF: Record<string, string> = {
  documentType: '--type',
  tags: '--tag',
  title: '--title',
  source: '--source',
  specId: '--spec-id',
};

/**
 * A bad option value or URL argument is a mistake on the command line: the message names the option (`--type: …`),
 * not the field it is validated as (`import dir.documentType: …`), and the CLI exits 2 with a pointer to --help.
 */
function asUsageError(err: unknown, command: string): unknown {
  if (!isAppError(err) || err.code !== ErrorCode.BAD_USER_INPUT) return err;
  const field = err.details.field;
  if (typeof field !== 'string' || !field.startsWith(`${command}.`) || !err.message.startsWith(`${field}: `))
    return err;
  const name = field.slice(command.length + 1).replace(/\[\d+\]$/, '');
  const option = OPTION_OF[name] ?? (name === 'url' || name === 'urls' ? command : undefined);
  return option ? new UsageError(`${option}: ${err.message.slice(field.length + 2)}`) : err;
}

/** Prints one line per item: NDJSON with `--json`, else failures on stderr under a progress bar. */
function itemPrinter(total: number, json: boolean): (event: ItemEvent) => void {
  const bar = progressReporter('items', false);
  let done = 0;
  return (event) => {
    done += 1;
    if (json) {
      process.stdout.write(`${JSON.stringify({ event: 'item', ...event })}\n`);
      return;
    }
    if (event.status === 'FAILED') process.stderr.write(`\n✗ ${event.label}: [${event.errorCode}] ${event.error}\n`);
    bar({ done, total });
  };
}

/** A one-paragraph account of the job, saying plainly when nothing had to be re-embedded. */
function summarize(job: ImportJobRecord, changed: number, graph: ImportGraphReport): string {
  const failed = job.items.filter((i) => i.status === 'FAILED').length;
  const docs = new Set(job.items.flatMap((i) => i.documentIds)).size;
  const lines = [
    `${job.status}: ${job.items.length - failed}/${job.items.length} items imported, ${docs} documents (${changed} new or changed), ` +
      `${job.chunkCount} chunks, ${job.embeddedChunkCount} embedded.`,
  ];
  if (failed === 0 && changed === 0 && job.embeddedChunkCount === 0)
    lines.push('Nothing changed since the last import: no chunk was re-embedded.');
  lines.push(...importGraphLines(graph, docs, 'here'));
  if (failed > 0)
    lines.push(`${failed} failed; resume with the resumeImportJob mutation (job ${job.id}) once the cause is fixed.`);
  for (const w of job.warnings.slice(0, 20)) lines.push(`warning: ${w}`);
  return lines.join('\n');
}

/** The validated request of `cairn import <kind> <targets…>`; a bad option is a usage error naming the option. */
export function buildImportRequest(args: string[], config: Config, opts: ImportCommandOptions): Promise<ImportRequest> {
  return buildRequest(args[0], args.slice(1), config, opts).catch((err: unknown) => {
    throw asUsageError(err, `import ${args[0] ?? ''}`);
  });
}

/** `cairn import url|openapi|dir`: runs one import job in-process against the configured store; exit 1 when any item failed. */
export async function importCommand(
  config: Config,
  logger: Logger,
  request: ImportRequest,
  opts: { json: boolean },
): Promise<number> {
  const services = await createServices(config, logger, { importQueue: false });
  try {
    const total =
      request.kind === 'url' ? request.urls.length : request.kind === 'directory' ? request.files.length : 1;
    let changed = 0;
    const before = await services.graph.stats(0);
    printSkipped(request, opts.json);
    const print = itemPrinter(total, opts.json);
    const job = await services.imports.submit(request, {
      onItem: (event) => {
        changed += event.changedDocuments;
        print(event);
      },
    });
    const documentIds = [...new Set(job.items.flatMap((i) => i.documentIds))];
    const graph = importGraphReport(
      before,
      await services.graph.stats(0),
      await services.extractGraph.summary(documentIds),
    );
    if (opts.json) {
      const summary = {
        event: 'summary',
        jobId: job.id,
        status: job.status,
        items: job.items.length,
        chunkCount: job.chunkCount,
        embeddedChunkCount: job.embeddedChunkCount,
        changedDocuments: changed,
        ...graph,
      };
      process.stdout.write(`${JSON.stringify(summary)}\n`);
    } else {
      process.stderr.write(`\n${summarize(job, changed, graph)}\n`);
    }
    return job.status === 'SUCCEEDED' ? 0 : 1;
  } finally {
    await services.close();
  }
}
