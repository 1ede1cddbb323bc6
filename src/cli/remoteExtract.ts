import { SPACE_HEADER } from '../auth/SpaceService.js';
import type { ExtractCliRequest, ExtractReport } from './extractCommand.js';
import { printReport } from './extractCommand.js';
import { progressReporter } from './progress.js';
import type { ServerClient } from './ServerClient.js';

const JOB_FIELDS = `id status warnings extractionTokens items: progress { total }
  errors { item } extraction { pending running done failed entities relationships }
  extractionEstimate { documents chunks cachedChunks estimatedInputTokens estimatedOutputTokens estimatedCostUsd }`;

interface RemoteJob {
  id: string;
  status: string;
  warnings: string[];
  extractionTokens: number;
  items: { total: number };
  errors: { item: string }[];
  extraction: ExtractReport['summary'];
  extractionEstimate: ExtractReport['estimate'];
}

/** `cairn extract` through the running server: extractGraph, then importJobUpdated until the job has finished. */
export async function remoteExtract(
  client: ServerClient,
  request: ExtractCliRequest,
  json: boolean,
  space?: string,
): Promise<number> {
  // In the key's own space, or the one --space names (the Cairn-Space header).
  const headers: Record<string, string> = space === undefined ? {} : { [SPACE_HEADER]: space };
  const input = {
    ...(request.documentIds ? { documentIds: request.documentIds } : { filter: request.filter }),
    ...(request.extractors ? { extractors: request.extractors.map((e) => e.toUpperCase()) } : {}),
    dryRun: request.dryRun,
  };
  const { extractGraph: started } = await client.graphql<{ extractGraph: { id: string } }>(
    'mutation($input: ExtractGraphInput!) { extractGraph(input: $input) { id } }',
    { input },
    headers,
  );
  const report = progressReporter('documents', json);
  await client.subscribe<{ importJobUpdated: { progress: { done: number; total: number } } }>(
    'subscription($id: ID!) { importJobUpdated(id: $id) { status progress { done total } } }',
    { id: started.id },
    ({ importJobUpdated: j }) => report(j.progress),
    headers,
  );
  const { importJob: job } = await client.graphql<{ importJob: RemoteJob }>(
    `query($id: ID!) { importJob(id: $id) { ${JOB_FIELDS} } }`,
    { id: started.id },
    headers,
  );
  return printReport(
    {
      jobId: job.id,
      status: job.status,
      documents: job.items.total,
      summary: job.extraction,
      tokens: job.extractionTokens,
      failed: job.errors.length,
      estimate: job.extractionEstimate,
      warnings: job.warnings,
    },
    json,
  );
}
