import type { RawSourceInput } from '../../importers/index.js';
import { progressReporter } from './progress.js';
import { sourcesAction, sourcesTable, syncSummary, syncWarnings } from './sourcesOutput.js';
import type { ServerClient } from './ServerClient.js';
import { rawInput, USAGE, type SourcesCommandOptions } from './sourcesCommand.js';

const FIELDS =
  'id name kind config tags schedule status lastRunAt nextRunAt lastError lastErrorCode documentCount counts { added updated removed unchanged skipped }';

interface RemoteSource {
  id: string;
  name: string;
  kind: string;
  schedule: string | null;
  status: string;
  lastRunAt: string | null;
  nextRunAt: string | null;
  lastError: string | null;
  lastErrorCode: string | null;
  documentCount: number;
  counts: { added: number; updated: number; removed: number; unchanged: number; skipped: number };
}

/** A source input as GraphQL takes it: absent fields left out, the document type in enum case. */
function graphqlInput(raw: RawSourceInput): Record<string, unknown> {
  const input: Record<string, unknown> = Object.fromEntries(
    Object.entries(raw).filter(([, v]) => v !== null && v !== undefined),
  );
  if (typeof raw.documentType === 'string') input.documentType = raw.documentType.toUpperCase();
  if (raw.extractors) input.extractors = raw.extractors.map((e) => e.toUpperCase());
  return input;
}

/**
 * `cairn sources add|list|sync|remove` through the server that holds the embedded data folder. A sync is started
 * there ("Sync now") and followed over the `importJobUpdated` subscription, drawing progress as it streams.
 */
export async function remoteSources(
  client: ServerClient,
  args: string[],
  opts: SourcesCommandOptions,
): Promise<number> {
  const { action, target } = sourcesAction(args, USAGE);
  const out = (text: string) => process.stdout.write(`${text}\n`);
  switch (action) {
    case 'add': {
      const query = `mutation($input: CreateSourceInput!) { createSource(input: $input) { ${FIELDS} deployKeyPublicKey deployKeyFingerprint } }`;
      const { createSource: s } = await client.graphql<{
        createSource: RemoteSource & { deployKeyPublicKey: string | null };
      }>(query, { input: graphqlInput(rawInput(target as string, opts)) });
      if (opts.json) out(JSON.stringify(s));
      else
        out(
          `Added ${s.kind} source "${s.name}" (${s.id}); ${s.schedule ? `next sync ${s.nextRunAt ?? '-'}` : 'it syncs on request: cairn sources sync'}.${s.deployKeyPublicKey ? `\nIts deploy key (add it to the repository's deploy keys, read-only): ${s.deployKeyPublicKey}` : ''}`,
        );
      return 0;
    }
    case 'list': {
      const { sources } = await client.graphql<{ sources: RemoteSource[] }>(`{ sources { ${FIELDS} } }`);
      out(opts.json ? JSON.stringify(sources) : sources.length === 0 ? 'No sources.' : sourcesTable(sources));
      return 0;
    }
    case 'sync': {
      const { syncSource: job } = await client.graphql<{ syncSource: { id: string } }>(
        'mutation($id: ID!) { syncSource(id: $id, async: true) { id } }',
        { id: target },
      );
      const report = progressReporter('items', opts.json);
      let status = '';
      let warnings: string[] = [];
      await client.subscribe<{
        importJobUpdated: { status: string; progress: { done: number; total: number }; warnings: string[] };
      }>(
        'subscription($id: ID!) { importJobUpdated(id: $id) { status progress { done total } warnings } }',
        { id: job.id },
        ({ importJobUpdated: j }) => {
          status = j.status;
          warnings = j.warnings;
          if (j.progress.total > 0) report(j.progress);
        },
      );
      const { source: after } = await client.graphql<{ source: RemoteSource }>(
        `query($id: ID!) { source(id: $id) { ${FIELDS} } }`,
        { id: target },
      );
      if (opts.json) out(JSON.stringify({ event: 'summary', jobId: job.id, jobStatus: status, ...after, warnings }));
      else
        process.stderr.write(
          `\nSync of "${after.name}" ${after.status}: ${syncSummary(after.counts)}.${after.lastError ? `\n${after.lastErrorCode}: ${after.lastError}` : ''}\n${syncWarnings(warnings)}`,
        );
      return after.status === 'SUCCEEDED' ? 0 : 1;
    }
    default: {
      const query =
        'mutation($id: ID!, $keep: Boolean) { deleteSource(id: $id, keepDocuments: $keep) { id documentsRemoved documentsKept } }';
      const { deleteSource: r } = await client.graphql<{
        deleteSource: { id: string; documentsRemoved: number; documentsKept: number };
      }>(query, { id: target, keep: opts.keepDocuments });
      out(
        opts.json
          ? JSON.stringify(r)
          : `Removed source "${target}": ${r.documentsRemoved} document(s) removed, ${r.documentsKept} kept.`,
      );
      return 0;
    }
  }
}
