export { StructuralExtractor, STRUCTURAL_EXTRACTOR_VERSION, extractStructure } from './StructuralExtractor.js';
export { resolveLinkTarget, extractLinks } from './links.js';
export { isGenericPhrase as isGenericHeading, isSpecificName, splitDisambiguator } from './names.js';
export { typeOfTitle } from './page.js';
