/**
 * Settings that keep a test's Cairn free of background work it does not own: extraction runs on every document
 * write by default, so suites that are not about extraction turn it off, and those that are turn it on themselves
 * (`CAIRN_EXTRACTION_EXTRACTORS`). A suite's own env wins over these.
 */
export const NO_BACKGROUND_EXTRACTION: Record<string, string> = { CAIRN_EXTRACTION_EXTRACTORS: 'none' };
