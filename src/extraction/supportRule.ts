/** How many passages a co-occurrence RELATED_TO needs before it joins the graph. */
import type { FactSupport, RelationshipFact } from './EvidenceRepository.js';

/**
 * Whether a co-occurrence's support is enough. A sentence that states the relation (the offline NLP found the two
 * names linked by a verb or a preposition, few names in the sentence, none listed: RelationshipFact.stated) is enough
 * alone. Names only listed together ("Storybook, SvelteKit and Astro"), or named in a list item, a table, a heading,
 * need `minPassages` distinct passages (CAIRN_EXTRACTION_COOCCURRENCE_MIN_CHUNKS): distinct sentences where the
 * offline NLP ran, else chunks; a passage repeated by overlapping chunks or copied across pages counts once.
 */
export function cooccurrenceSupported(s: FactSupport, minPassages: number): boolean {
  const facts = s.facts as RelationshipFact[];
  if (facts.some((f) => f.stated === true)) return s.chunks >= 1;
  return Math.min(s.chunks, s.quotes) >= minPassages;
}
