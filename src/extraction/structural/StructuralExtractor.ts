import type {
  ChunkExtraction,
  ChunkForExtraction,
  DocumentForExtraction,
  EntityCandidate,
  Extractor,
  RelationshipCandidate,
} from '../types.js';
import { CandidateSet, extractIdentifiers } from './identifiers.js';
import { extractLinks } from './links.js';
import { firstLineQuote, quoteAt, scanChunk } from './markdown.js';
import { pageCandidate } from './page.js';
import { extractAcronyms, extractDefinedTerms } from './terms.js';

/** Bump when the output for the same input changes: cached chunk results are then extracted again. */
export const STRUCTURAL_EXTRACTOR_VERSION = 'structural@3';

const GLOSSARY_TITLE = /\b(glossary|terminology|definitions|terms)\b/i;

/**
 * The structural extractor: what a document's own markdown says, with no model and no database. The first chunk
 * gives the page's entity (its title) and its tags; every chunk gives links, code identifiers, defined terms and
 * acronyms. A chunk that defines terms names the page too, so that DEFINES joins two candidates of one chunk.
 */
export class StructuralExtractor implements Extractor {
  readonly name = 'structural' as const;
  readonly fingerprint = STRUCTURAL_EXTRACTOR_VERSION;

  /** Every chunk depends on the title (DEFINES, glossary pages); the first also on the tags. */
  contextKey(document: DocumentForExtraction, chunk: ChunkForExtraction): string {
    const title = document.title.trim();
    return chunk.ordinal === 0 ? JSON.stringify([title, [...document.tags].sort()]) : JSON.stringify([title]);
  }

  extract(document: DocumentForExtraction, chunks: readonly ChunkForExtraction[]): Promise<ChunkExtraction[]> {
    return Promise.resolve(chunks.map((chunk) => extractStructure(document, chunk)));
  }
}

/** One chunk's structural candidates. */
export function extractStructure(document: DocumentForExtraction, chunk: ChunkForExtraction): ChunkExtraction {
  const scanned = scanChunk(chunk.content);
  const candidates = new CandidateSet();
  extractIdentifiers(scanned, candidates);
  const defined = [
    ...extractDefinedTerms(scanned.prose, chunk.content, GLOSSARY_TITLE.test(document.title)),
    ...extractAcronyms(scanned.prose, chunk.content),
  ];
  const page = pageCandidate(document.title, chunk.content);
  const relationships: RelationshipCandidate[] = [];
  const entities: EntityCandidate[] = [];
  const first = chunk.ordinal === 0;
  const tags = first ? tagCandidates(document.tags, chunk.content) : [];
  const definedNames = new Set<string>();
  for (const term of defined) {
    if (page && term.name === page.name) continue;
    if (!candidates.has(term.name)) definedNames.add(term.name);
    candidates.add(term);
  }
  if (page && (first || definedNames.size > 0)) {
    entities.push(first ? page : { ...page, quote: firstLineQuote(chunk.content), confidence: 0.9 });
    for (const name of definedNames) {
      const term = defined.find((t) => t.name === name);
      relationships.push({ from: page.name, to: name, type: 'DEFINES', quote: term?.quote ?? '', confidence: 0.85 });
    }
    for (const tag of tags) {
      relationships.push({ from: page.name, to: tag.name, type: 'HAS_TAG', quote: tag.quote, confidence: 0.8 });
    }
  }
  const others = candidates.values().filter((c) => !page || c.name !== page.name);
  entities.push(...others, ...tags.filter((t) => !others.some((o) => o.name === t.name) && t.name !== page?.name));
  return { entities, relationships, links: extractLinks(scanned), warnings: [] };
}

function tagCandidates(tags: readonly string[], content: string): EntityCandidate[] {
  return [...new Set(tags.map((t) => t.trim()).filter((t) => t !== ''))].map((tag) => {
    const index = content.toLowerCase().indexOf(tag.toLowerCase());
    const quote = index >= 0 ? quoteAt(content, index, tag.length) : firstLineQuote(content);
    return { name: tag, type: 'Tag', kind: 'tag', quote, confidence: 0.8 };
  });
}
