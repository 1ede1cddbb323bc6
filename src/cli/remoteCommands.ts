import { readFile } from 'node:fs/promises';
import path from 'node:path';
import {
  detectDocumentType,
  documentIdForFile,
  type DocumentDefaults,
  type ImportRequest,
  skippedFileWarnings,
} from '../../importers/index.js';
import { ErrorCode, isAppError } from '../errors.js';
import type { ExtractionSummary } from '../extraction/jobPort.js';
import { CliError } from './cliErrors.js';
import { formatStats, graphPart, type StatsReport } from './formatStats.js';
import { printKeyCreated, printKeyList, printKeyRevoked, type KeyJson, type KeysAction } from './keysOutput.js';
import { importGraphLines, importGraphReport } from './importGraphSummary.js';
import { printSkipped } from './importOutput.js';
import { progressReporter } from './progress.js';
import type { ServerClient } from './ServerClient.js';

import { SPACE_HEADER } from '../auth/SpaceService.js';
// The CLI's stats, import and keys commands, done through the API of the running server that holds the embedded data
// folder (the folder takes one process at a time). Output matches what the commands print on their own.

const KEY_FIELDS = 'id name role createdAt lastUsedAt revokedAt spaces';

/** `cairn stats` through the server: knowledgeStats and graphStats, of `space` when given (the Cairn-Space header). */
export async function remoteStats(client: ServerClient, json: boolean, space?: string): Promise<number> {
  const { knowledgeStats, graphStats } = await client.graphql<{
    knowledgeStats: Omit<StatsReport, 'database' | 'graph'>;
    graphStats: StatsReport['graph'];
  }>(
    '{ knowledgeStats { documentCount chunkCount byType { key count } bySource { key count } topTags { key count } embedder { provider model dimensions } extraction { pending running done failed } } graphStats { entityCount relationshipCount byType { key count } } }',
    {},
    space === undefined ? {} : { [SPACE_HEADER]: space },
  );
  const stats: StatsReport = { ...knowledgeStats, database: 'pglite', graph: graphPart(graphStats) };
  process.stdout.write(json ? `${JSON.stringify(stats)}\n` : formatStats(stats));
  return 0;
}

/** A key from the API (upper-case role) in the CLI's shape. */
function keyJson(k: KeyJson): KeyJson {
  return { ...k, role: k.role.toLowerCase() };
}

/** `cairn keys create|list|revoke` through the server: createApiKey, apiKeys, revokeApiKey (an admin key when auth is on). */
export async function remoteKeys(client: ServerClient, action: KeysAction, json: boolean): Promise<number> {
  if (action.kind === 'create') {
    const { createApiKey } = await client
      .graphql<{ createApiKey: { key: string; apiKey: KeyJson } }>(
        `mutation($input: CreateApiKeyInput!) { createApiKey(input: $input) { key apiKey { ${KEY_FIELDS} } } }`,
        {
          input: { name: action.name, role: action.role.toUpperCase(), spaces: action.spaces },
        },
      )
      .catch((err: unknown) => {
        // The API never creates a first key that is not an admin key; --force applies to the CLI on its own only.
        if (
          action.force &&
          isAppError(err) &&
          err.code === ErrorCode.BAD_USER_INPUT &&
          err.message.includes('first API key')
        )
          throw new CliError(`${err.message}. --force works only with the server stopped`);
        throw err;
      });
    printKeyCreated(keyJson(createApiKey.apiKey), createApiKey.key, json);
  } else if (action.kind === 'list') {
    const { apiKeys } = await client.graphql<{ apiKeys: KeyJson[] }>(`{ apiKeys { ${KEY_FIELDS} } }`);
    printKeyList(apiKeys.map(keyJson), json);
  } else {
    const { revokeApiKey } = await client.graphql<{ revokeApiKey: KeyJson }>(
      `mutation($id: ID!) { revokeApiKey(id: $id) { ${KEY_FIELDS} } }`,
      { id: action.id },
    );
    printKeyRevoked(keyJson(revokeApiKey), json);
  }
  return 0;
}

/** One import as the server reports it. */
interface RemoteResult {
  job: {
    id: string;
    status: string;
    chunkCount: number;
    embeddedChunkCount: number;
    warnings: string[];
    extraction: ExtractionSummary | null;
  };
  documents: { id: string }[];
}

const RESULT_FIELDS =
  'job { id status chunkCount embeddedChunkCount warnings extraction { pending running done failed entities relationships } } documents { id }';

/** The graph's size, as the server counts it. */
async function remoteGraphCounts(client: ServerClient): Promise<{ entityCount: number; relationshipCount: number }> {
  const { graphStats } = await client.graphql<{ graphStats: { entityCount: number; relationshipCount: number } }>(
    '{ graphStats { entityCount relationshipCount } }',
  );
  return graphStats;
}

/** The extraction of every item's documents, summed (null when the server does not extract). */
function addExtraction(sum: ExtractionSummary | null, item: ExtractionSummary | null): ExtractionSummary | null {
  if (item === null) return sum;
  if (sum === null) return { ...item };
  for (const key of ['pending', 'running', 'done', 'failed', 'entities', 'relationships'] as const)
    sum[key] += item[key];
  return sum;
}

/** One item of a remote import: a URL, a spec or a file of a folder, imported by one mutation. */
interface RemoteItem {
  label: string;
  run: () => Promise<RemoteResult>;
}

/** Defaults as GraphQL input fields (documentType upper-case, as the enum reads). */
function defaultsInput(d: DocumentDefaults): Record<string, unknown> {
  const input: Record<string, unknown> = {};
  if (!d.tagsOmitted) input.tags = d.tags; // left out, a re-import keeps the document's tags
  if (d.documentType != null) input.documentType = d.documentType.toUpperCase();
  if (d.title != null) input.title = d.title;
  if (d.source != null) input.source = d.source;
  return input;
}

/** The mutations that carry out a validated import request, one per item. */
function itemsOf(client: ServerClient, request: ImportRequest): RemoteItem[] {
  const mutate = async (mutation: string, input: Record<string, unknown>): Promise<RemoteResult> => {
    const data = await client.graphql<Record<string, RemoteResult>>(
      `mutation($input: ${mutation[0]!.toUpperCase()}${mutation.slice(1)}Input!) { ${mutation}(input: $input) { ${RESULT_FIELDS} } }`,
      { input },
    );
    return data[mutation] as RemoteResult;
  };
  switch (request.kind) {
    case 'url':
      return request.urls.map((url) => ({
        label: url,
        run: () => mutate('importUrl', { ...defaultsInput(request.defaults), url }),
      }));
    case 'openapi': {
      const { url, content, title, tags, source, specId, skipUnresolvedRefs } = request;
      const input: Record<string, unknown> = { url, content, title, tags, source, specId, skipUnresolvedRefs };
      return [{ label: request.file ?? url ?? 'spec', run: () => mutate('importOpenApi', input) }];
    }
    case 'directory':
      // Each file goes up to the server and is imported with the id, source and type a folder import gives it.
      return request.files.map((relative) => ({
        label: relative,
        run: async () => {
          const uploadId = await client.upload(
            path.posix.basename(relative),
            await readFile(path.join(request.root, relative)),
          );
          const d = request.defaults;
          const type = d.documentType ?? detectDocumentType(`file:///${relative}`);
          return mutate('importUpload', {
            ...defaultsInput({ ...d, documentType: type, source: d.source ?? relative }),
            uploadId,
            id: documentIdForFile(`${path.basename(request.root)}/${relative}`),
          });
        },
      }));
    case 'upload':
    case 'source':
    case 'extract':
      throw new Error(`the CLI never builds a ${request.kind} import request for \`cairn import\``);
  }
}

/** `cairn import url|openapi|dir` through the server: one mutation per item; exit 1 when any item failed. */
export async function remoteImport(client: ServerClient, request: ImportRequest, json: boolean): Promise<number> {
  const items = itemsOf(client, request);
  printSkipped(request, json);
  const bar = progressReporter('items', false);
  let failed = 0;
  let chunks = 0;
  let embedded = 0;
  const documents = new Set<string>();
  // Each file is a job of its own on the server: the skipped ones are told here.
  const warnings = request.kind === 'directory' ? skippedFileWarnings(request.skipped ?? []) : [];
  const before = await remoteGraphCounts(client);
  let extraction: ExtractionSummary | null = null;
  for (const [ordinal, item] of items.entries()) {
    try {
      const result = await item.run();
      chunks += result.job.chunkCount;
      embedded += result.job.embeddedChunkCount;
      for (const d of result.documents) documents.add(d.id);
      warnings.push(...result.job.warnings);
      extraction = addExtraction(extraction, result.job.extraction);
      if (json)
        process.stdout.write(
          `${JSON.stringify({ event: 'item', jobId: result.job.id, ordinal, label: item.label, status: 'SUCCEEDED', documentIds: result.documents.map((d) => d.id), chunkCount: result.job.chunkCount, embeddedChunkCount: result.job.embeddedChunkCount })}\n`,
        );
    } catch (err) {
      if (!isAppError(err)) throw err; // no answer, or a key problem: every further item would fail the same way
      failed += 1;
      if (json)
        process.stdout.write(
          `${JSON.stringify({ event: 'item', ordinal, label: item.label, status: 'FAILED', documentIds: [], errorCode: err.code, error: err.message })}\n`,
        );
      else process.stderr.write(`\n✗ ${item.label}: [${err.code}] ${err.message}\n`);
    }
    if (!json) bar({ done: ordinal + 1, total: items.length });
  }
  const status = failed === 0 ? 'SUCCEEDED' : failed === items.length ? 'FAILED' : 'PARTIAL';
  const graph = importGraphReport(before, await remoteGraphCounts(client), extraction);
  if (json) {
    process.stdout.write(
      `${JSON.stringify({ event: 'summary', status, items: items.length, failed, chunkCount: chunks, embeddedChunkCount: embedded, ...graph })}\n`,
    );
  } else {
    const lines = [
      `${status}: ${items.length - failed}/${items.length} items imported, ${documents.size} documents, ${chunks} chunks, ${embedded} embedded (through the server).`,
    ];
    if (failed === 0 && embedded === 0) lines.push('Nothing changed since the last import: no chunk was re-embedded.');
    lines.push(...importGraphLines(graph, documents.size, 'server'));
    for (const w of warnings.slice(0, 20)) lines.push(`warning: ${w}`);
    process.stderr.write(`\n${lines.join('\n')}\n`);
  }
  return failed === 0 ? 0 : 1;
}
