import fs from 'node:fs';
import type {
  ChunkExtraction,
  ChunkForExtraction,
  DocumentForExtraction,
  EntityCandidate,
  Extractor,
  ExtractorName,
} from '../../src/extraction/types.js';

/**
 * A deterministic extractor for tests, reading a tiny markup instead of prose:
 * - the first chunk names the document's title as its page entity (type Topic);
 * - `[[Name|Type]]` is a proper name, `[[Name|Type|ACR]]` one with a declared acronym;
 * - `{{term}}` is a key term (type Concept);
 * - `<<From|TYPE|To>>` a relationship between two names of the chunk;
 * - `[text](href)` a link.
 * `calls` counts the chunks it extracted (the cache must spare the rest). With `hangOn`, a chunk containing that text
 * never finishes: the extractor writes `hangMarker` and waits forever (a kill -9 test stops the process there).
 */
export class TextMarkupExtractor implements Extractor {
  readonly fingerprint = 'markup-v1';
  calls = 0;
  readonly extracted: string[] = [];

  constructor(
    readonly name: ExtractorName = 'structural',
    private readonly hang?: { text: string; marker: string },
    /** Tokens each chunk reports spending, as a model would. */
    private readonly tokensPerChunk = 0,
  ) {}

  contextKey(document: DocumentForExtraction, chunk: ChunkForExtraction): string {
    return chunk.ordinal === 0 ? document.title : '';
  }

  async extract(document: DocumentForExtraction, chunks: readonly ChunkForExtraction[]): Promise<ChunkExtraction[]> {
    const out: ChunkExtraction[] = [];
    for (const chunk of chunks) {
      if (this.hang && chunk.content.includes(this.hang.text)) {
        fs.writeFileSync(this.hang.marker, chunk.id);
        await new Promise(() => undefined);
      }
      this.calls++;
      this.extracted.push(chunk.id);
      const result = extractMarkup(document, chunk);
      out.push(
        this.tokensPerChunk > 0
          ? { ...result, usage: { promptTokens: this.tokensPerChunk, completionTokens: 0 } }
          : result,
      );
    }
    return out;
  }
}

function extractMarkup(document: DocumentForExtraction, chunk: ChunkForExtraction): ChunkExtraction {
  const text = chunk.content;
  const entities: EntityCandidate[] = [];
  if (chunk.ordinal === 0)
    entities.push({ name: document.title, type: 'Topic', kind: 'page', quote: document.title, confidence: 1 });
  for (const m of text.matchAll(/\[\[([^|\]]+)\|([^|\]]+)(?:\|([^\]]+))?\]\]/g)) {
    const [, name, type, acronym] = m as unknown as [string, string, string, string | undefined];
    entities.push({
      name,
      type,
      kind: 'name',
      quote: m[0],
      confidence: 0.9,
      ...(acronym ? { aliases: [acronym] } : {}),
    });
  }
  for (const m of text.matchAll(/\{\{([^}]+)\}\}/g))
    entities.push({ name: m[1] as string, type: 'Concept', kind: 'term', quote: m[0], confidence: 0.6 });
  const relationships = [...text.matchAll(/<<([^|>]+)\|([A-Z_]+)\|([^>]+)>>/g)].map((m) => ({
    from: m[1] as string,
    type: m[2] as string,
    to: m[3] as string,
    quote: m[0],
    confidence: 0.8,
  }));
  const links = [...text.matchAll(/(?<!\[)\[([^\]]+)\]\(([^)]+)\)/g)].map((m) => ({
    text: m[1] as string,
    href: m[2] as string,
  }));
  return { entities, relationships, links, warnings: [] };
}
