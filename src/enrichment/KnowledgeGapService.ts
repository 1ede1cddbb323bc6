import type { Logger } from '../logger.js';
import type { FusedHit } from '../retrieval/fusion.js';
import type { SearchService } from '../retrieval/SearchService.js';
import { pageSize } from '../shared/pageSize.js';
import { contextPassages } from './documentsLane.js';
import { isKnowledgeGap } from './gapRule.js';
import {
  decodeGapCursor,
  encodeGapCursor,
  type GapPosition,
  type KnowledgeGapRecord,
  type KnowledgeGapRepository,
} from './KnowledgeGapRepository.js';
import type { EnrichRequest, EnrichedContextRecord } from './types.js';

/** When a context counts as not answering its query (see gapRule). */
export interface GapSettings {
  /** Best scores below this record a knowledge gap. */
  gapScoreThreshold: number;
  /** A query none of whose passages in the context holds this share of its words is a knowledge gap. */
  gapMinCoverage: number;
}

/** One page of knowledge gaps. */
export interface KnowledgeGapPage {
  edges: { cursor: string; node: KnowledgeGapRecord & { position: GapPosition } }[];
  hasNextPage: boolean;
  totalCount: number;
}

/**
 * Knowledge gaps: the questions enrichContext answered poorly (judged after each call) or someone reported, and their
 * listing. The enricher hands each finished context here; the API lists and reports through here.
 */
export class KnowledgeGapService {
  constructor(
    private readonly gaps: KnowledgeGapRepository,
    private readonly search: Pick<SearchService, 'textCoverage'>,
    private readonly settings: GapSettings,
    private readonly logger: Logger,
  ) {}

  /** Records a question someone judged poorly answered (the admin page's "record as a gap"), unfiltered. */
  recordReported(query: string, bestScore: number): Promise<void> {
    return this.gaps.record(query, bestScore, {});
  }

  /**
   * One page of knowledge gaps, most frequent first: `first` of them (see pageSize: default 20, at most 100). `after` is a cursor of
   * an earlier page: every page of one listing reads the gaps as they stood when its first page was read.
   */
  async list(first: number | null | undefined, after: string | null | undefined): Promise<KnowledgeGapPage> {
    const size = pageSize(first);
    const from = after ? decodeGapCursor(after) : { asOf: new Date(), position: undefined };
    const { gaps: rows, totalCount } = await this.gaps.list(size + 1, from.asOf, from.position);
    const edges = rows.slice(0, size).map((node) => ({ cursor: encodeGapCursor(from.asOf, node.position), node }));
    return { edges, hasNextPage: rows.length > size, totalCount };
  }

  /**
   * Records a knowledge gap when the context does not answer the query (see gapRule: decided by the query words its
   * passages hold); a failure is logged, never thrown.
   */
  async recordIfUnanswered(
    request: EnrichRequest,
    hits: readonly FusedHit[],
    result: EnrichedContextRecord,
  ): Promise<void> {
    try {
      const best = bestLaneScore(hits);
      const passages = contextPassages(result.chunks);
      const coverage = passages.length > 0 ? await this.search.textCoverage(request.query, passages) : [];
      const settings = { minCoverage: this.settings.gapMinCoverage, scoreThreshold: this.settings.gapScoreThreshold };
      if (isKnowledgeGap({ coverage, passages: passages.length, bestScore: best }, settings))
        await this.gaps.record(request.query, best, request.filter);
    } catch (err) {
      this.logger.warn({ err }, 'could not record a knowledge gap');
    }
  }
}

/** The lanes' best own score: fused HYBRID scores are relative to the query's own hits. */
function bestLaneScore(hits: readonly FusedHit[]): number {
  return Math.max(
    0,
    ...hits.map((h) =>
      Math.max(h.vectorScore ?? 0, h.keywordScore ?? 0, h.vectorScore == null && h.keywordScore == null ? h.score : 0),
    ),
  );
}
