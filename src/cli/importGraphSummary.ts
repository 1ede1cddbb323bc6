import type { ExtractionSummary } from '../extraction/jobPort.js';

/** What an import did to the graph: its size after, what it grew by, and where extraction of its documents stands. */
export interface ImportGraphReport {
  graph: { entityCount: number; relationshipCount: number; entitiesAdded: number; relationshipsAdded: number };
  /** The imported documents' extraction; null when extraction is off. */
  extraction: ExtractionSummary | null;
}

/** The graph's size before and after an import, and the extraction of its documents, as one report. */
export function importGraphReport(
  before: { entityCount: number; relationshipCount: number },
  after: { entityCount: number; relationshipCount: number },
  extraction: ExtractionSummary | null,
): ImportGraphReport {
  return {
    graph: {
      entityCount: after.entityCount,
      relationshipCount: after.relationshipCount,
      entitiesAdded: after.entityCount - before.entityCount,
      relationshipsAdded: after.relationshipCount - before.relationshipCount,
    },
    extraction,
  };
}

const signed = (n: number) => (n >= 0 ? `+${n}` : String(n));

/**
 * Two lines for the import summary: the graph (an OpenAPI spec writes its operations and schemas at once) and the
 * extraction of the imported documents, which runs in the background: `where` says which process runs it.
 */
export function importGraphLines(
  { graph, extraction }: ImportGraphReport,
  documents: number,
  where: 'here' | 'server',
): string[] {
  const lines = [
    `Graph: ${graph.entityCount} entities and ${graph.relationshipCount} relationships ` +
      `(${signed(graph.entitiesAdded)} and ${signed(graph.relationshipsAdded)} during this import).`,
  ];
  if (documents === 0) return lines;
  const tracked = extraction && extraction.pending + extraction.running + extraction.done + extraction.failed;
  // Documents written and none of them queued: no extractor is configured.
  if (!extraction || tracked === 0) {
    lines.push(
      'Extraction is off (CAIRN_EXTRACTION_EXTRACTORS=none): the graph gets only what importers write, such as an OpenAPI spec’s operations.',
    );
    return lines;
  }
  const { pending, running, done, failed, entities, relationships } = extraction;
  const queued = pending + running;
  const total = queued + done + failed;
  let text =
    `Extraction: ${done} of ${total} documents extracted (${entities} entities, ${relationships} relationships)` +
    `${failed > 0 ? `, ${failed} failed` : ''}`;
  if (queued > 0) {
    const who =
      where === 'server'
        ? 'the server extracts them in the background'
        : 'the server extracts them in the background while it runs (or run `cairn extract`)';
    text += `; ${queued} queued: ${who}, and \`cairn stats\` shows progress`;
  }
  lines.push(`${text}.`);
  return lines;
}
