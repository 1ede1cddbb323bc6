import type { Db } from '../db/Db.js';
import { EntityNameLookup } from '../graph/mentions/EntityNameLookup.js';
import { EvidenceRepository } from './EvidenceRepository.js';
import { ExtractionCacheRepository } from './ExtractionCacheRepository.js';
import { ExtractionQueueRepository } from './ExtractionQueueRepository.js';
import { RejectionRepository } from './RejectionRepository.js';

/**
 * The owner of the extraction tables, one repository each: extraction_documents (state and queue), extraction_cache,
 * extraction_evidence with extraction_facts, and extraction_rejections. `names` reads entity_names (owned by
 * src/graph/mentions/) for resolution.
 */
export class ExtractionRepository {
  readonly queue: ExtractionQueueRepository;
  readonly cache: ExtractionCacheRepository;
  readonly evidence: EvidenceRepository;
  readonly rejections: RejectionRepository;
  readonly names: EntityNameLookup;

  constructor(db: Db) {
    this.queue = new ExtractionQueueRepository(db);
    this.cache = new ExtractionCacheRepository(db);
    this.evidence = new EvidenceRepository(db);
    this.rejections = new RejectionRepository(db);
    this.names = new EntityNameLookup(db);
  }
}
