import type { Queryable } from '../db/Db.js';
import { loadChunks } from '../documents/hitLoader.js';
import { intIn } from '../shared/intIn.js';
import type { ChunkRecord, DocumentSummary } from '../documents/types.js';
import { EvidenceReader, entityFactKey, relationshipFactKey, type EvidenceItem } from './EvidenceReader.js';

export { entityFactKey, relationshipFactKey };

/** One piece of evidence with its chunk and document (null once they are gone). */
export interface EvidenceView extends EvidenceItem {
  chunk: ChunkRecord | null;
  document: DocumentSummary | null;
}

/** A page of one fact's evidence. */
export interface EvidenceViewPage {
  items: EvidenceView[];
  totalCount: number;
}

/** The support of extracted facts as the API shows it (Entity.evidence, Relationship.evidence). */
export class ExtractionEvidenceService {
  private readonly reader: EvidenceReader;

  constructor(
    private readonly db: Queryable,
    private readonly documents: { summariesByIds(ids: readonly string[]): Promise<DocumentSummary[]> },
  ) {
    this.reader = new EvidenceReader(db);
  }

  /**
   * For each fact key ('e:<id>' or 'r:<id>'), `first` rows (default 10, 0 to 100) from `offset`, with chunks and
   * documents; batched.
   */
  async pages(
    factKeys: readonly string[],
    first: number | null | undefined,
    offset: number,
  ): Promise<Map<string, EvidenceViewPage>> {
    const pages = await this.reader.pages(factKeys, intIn(first, 10, 0, 100, 'first'), offset);
    const items = [...pages.values()].flatMap((p) => p.items);
    const chunkIds = [...new Set(items.flatMap((i) => (i.chunkId ? [i.chunkId] : [])))];
    const chunks = await loadChunks(this.db, chunkIds);
    const chunkless = [...new Set(items.filter((i) => !i.chunkId).map((i) => i.documentId))];
    const documents = new Map((await this.documents.summariesByIds(chunkless)).map((d) => [d.id, d]));
    const out = new Map<string, EvidenceViewPage>();
    for (const [key, page] of pages) {
      out.set(key, {
        totalCount: page.totalCount,
        items: page.items.map((item) => {
          const loaded = item.chunkId ? chunks.get(item.chunkId) : undefined;
          return {
            ...item,
            chunk: loaded?.chunk ?? null,
            document: loaded?.document ?? documents.get(item.documentId) ?? null,
          };
        }),
      });
    }
    return out;
  }
}
