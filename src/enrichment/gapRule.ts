/**
 * When a query is a knowledge gap (docs/enrichment.md, "Knowledge gaps"): decided by what the agent was given, not by
 * a raw score. The query is answered when one passage of the context (a cited document's text: the matched chunk with
 * the sentences and neighbouring chunks around it) holds at least `minCoverage` of the query's words, a word counting
 * when the passage holds it or a word it begins ("fails over" matches "failover"). A correct passage that scored low is
 * thus no gap; a page that shares only a common word with the question is one, however well it scored.
 *
 * Without words to match (a query of stop words, or `minCoverage` 0) the lanes' best score decides: under
 * `scoreThreshold` is a gap. An empty context is always a gap.
 */
export interface GapInputs {
  /** Per passage of the context, the share of the query's words it holds; empty when the query has no words. */
  coverage: readonly number[];
  /** Passages in the context. */
  passages: number;
  /** The lanes' best raw score (recorded with the gap). */
  bestScore: number;
}

/** The gap rule's settings (CAIRN_ENRICH_GAP_MIN_COVERAGE, CAIRN_ENRICH_GAP_SCORE_THRESHOLD). */
export interface GapSettings {
  minCoverage: number;
  scoreThreshold: number;
}

export function isKnowledgeGap(inputs: GapInputs, settings: GapSettings): boolean {
  if (inputs.passages === 0) return true;
  if (settings.minCoverage <= 0 || inputs.coverage.length === 0) return inputs.bestScore < settings.scoreThreshold;
  return Math.max(...inputs.coverage) < settings.minCoverage;
}
