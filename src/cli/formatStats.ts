import type { CountByKey, KnowledgeCounts } from '../documents/statsRepository.js';
import type { ExtractionStatusCounts } from '../extraction/types.js';
import { describeEmbedder, type EmbedderInfo } from '../embeddings/EmbeddingProvider.js';

/** What `cairn stats` reports. */
export interface StatsReport extends KnowledgeCounts {
  embedder: EmbedderInfo;
  /** Documents by graph extraction state. */
  extraction: ExtractionStatusCounts;
  database: string;
  /** The knowledge graph's size, whatever wrote it (importers, extraction, the API). */
  graph: { entityCount: number; relationshipCount: number; byType: CountByKey[] };
}

const MAX_ROWS = 10;

/** The graph counts `cairn stats` shows, from graphStats. */
export function graphPart(g: {
  entityCount: number;
  relationshipCount: number;
  byType: CountByKey[];
}): StatsReport['graph'] {
  return { entityCount: g.entityCount, relationshipCount: g.relationshipCount, byType: g.byType };
}

/** "  manual  12" rows under a heading, the longest lists cut to the first MAX_ROWS. */
function section(title: string, counts: CountByKey[]): string[] {
  if (counts.length === 0) return [];
  const shown = counts.slice(0, MAX_ROWS);
  const width = Math.max(...shown.map((c) => c.key.length));
  const more = counts.length > shown.length ? [`  … and ${counts.length - shown.length} more (--json lists them)`] : [];
  return ['', `${title}:`, ...shown.map((c) => `  ${c.key.padEnd(width)}  ${c.count}`), ...more];
}

/** `cairn stats` for people: counts, the embedder, the database and the graph, then the largest groups. */
export function formatStats(s: StatsReport): string {
  const lines = [
    `Documents: ${s.documentCount}`,
    `Chunks:    ${s.chunkCount}`,
    `Embedder:  ${describeEmbedder(s.embedder)}`,
    `Database:  ${s.database}`,
    `Extracted: ${s.extraction.done} documents (${s.extraction.pending} pending, ${s.extraction.running} running, ${s.extraction.failed} failed)`,
    `Graph:     ${s.graph.entityCount} entities, ${s.graph.relationshipCount} relationships`,
    ...section('By type', s.byType),
    ...section('By source', s.bySource),
    ...section('Top tags', s.topTags),
    ...section('Entities by type', s.graph.byType),
  ];
  return `${lines.join('\n')}\n`;
}
