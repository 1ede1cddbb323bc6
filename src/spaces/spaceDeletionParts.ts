import type { AuditService } from '../audit/AuditService.js';
import type { ApiKeyService } from '../auth/ApiKeyService.js';
import type { SpaceService } from '../auth/SpaceService.js';
import type { Config } from '../config.js';
import type { Db } from '../db/Db.js';
import { runInSpace } from '../db/spaceScope.js';
import type { DocumentService } from '../documents/DocumentService.js';
import type { KnowledgeGapRepository } from '../enrichment/KnowledgeGapRepository.js';
import { purgeExtractionOfSpace } from '../extraction/spacePurge.js';
import type { CurationService } from '../graph/curation/CurationService.js';
import type { GraphService } from '../graph/GraphService.js';
import type { Logger } from '../logger.js';
import { SpaceDeletionService, type SpacePurgeStep } from './SpaceDeletionService.js';
import type { SpaceReads } from './SpaceReads.js';

/** What deleting a space removes, from the services that own it. */
export interface SpaceDeletionParts {
  db: Db;
  spaces: SpaceService;
  spaceReads: SpaceReads;
  apiKeys: ApiKeyService;
  documents: DocumentService;
  graph: GraphService;
  gapRows: KnowledgeGapRepository;
  audit: AuditService;
  curation: CurationService;
}

/**
 * Space deletion, wired: documents first (their delete path takes chunks, mentions, extraction and the Neo4j mirror
 * with them), then the graph, then the rows that only name the space; `more` are the importers' steps (jobs, sources,
 * uploads), which the composition root hands in.
 */
export function spaceDeletion(
  parts: SpaceDeletionParts,
  more: readonly SpacePurgeStep[],
  config: Config,
  logger: Logger,
  poll: boolean,
): SpaceDeletionService {
  const { db, documents, graph } = parts;
  const steps: SpacePurgeStep[] = [
    { what: 'documents', run: (space) => documents.purgeSpace(space) },
    { what: 'entities', run: (space) => graph.purgeSpace(space) },
    { what: 'extraction', run: (space) => purgeExtractionOfSpace(db, space) },
    { what: 'knowledge gaps', run: (space) => parts.gapRows.deleteSpace(space) },
    { what: 'audit log', run: (space) => parts.audit.deleteSpace(space) },
    { what: 'curation', run: (space) => parts.curation.deleteSpace(space) },
    ...more,
  ];
  return new SpaceDeletionService({
    db,
    spaces: parts.spaces,
    steps,
    count: (space) =>
      runInSpace(space, async () => (await documents.stats()).documentCount + (await graph.stats(0)).entityCount),
    unbindKeys: (space) => parts.apiKeys.unbindSpace(space),
    forgetReads: (space) => parts.spaceReads.forgetSpace(space),
    leaseMs: config.import.jobs.leaseMs,
    pollMs: poll ? config.import.jobs.pollMs : 0,
    exclusive: db.kind === 'pglite',
    logger,
  });
}
