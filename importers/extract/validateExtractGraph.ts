import { validateDocumentId, type DocumentFilterSpec, type ExtractorName } from '../../src/importerPort.js';
import { badInput } from '../../src/errors.js';

/** The extractors, in the order the API lists them. */
export const EXTRACTOR_NAMES: readonly ExtractorName[] = ['structural', 'offline', 'llm'];
/** Most ids one extractGraph call may list (a filter selects more). */
export const MAX_EXTRACT_IDS = 1000;

/** extractGraph input as the API or the CLI gives it (extractor names in lower case, the filter already parsed). */
export interface RawExtractGraphInput {
  documentIds?: readonly string[] | null;
  filter?: DocumentFilterSpec | null;
  extractors?: readonly string[] | null;
  dryRun?: boolean | null;
}

/** A checked extractGraph request: the documents (by id or by filter), the extractors (null: configured), dryRun. */
export interface ExtractGraphRequest {
  target: { ids: string[] } | { filter: DocumentFilterSpec };
  extractors: ExtractorName[] | null;
  dryRun: boolean;
}

/** What the checks need from the configuration. */
export interface ExtractorSettings {
  /** CAIRN_EXTRACTION_EXTRACTORS. */
  configured: readonly ExtractorName[];
  /** CAIRN_EXTRACTION_LLM_MODEL is set. */
  llmModel: boolean;
}

/**
 * Checks a list of extractors: null or undefined stays null (the configured ones); an empty list, an unknown name, or
 * `llm` without a model is a BAD_USER_INPUT naming the field and the setting.
 */
export function validateExtractors(
  raw: readonly string[] | null | undefined,
  field: string,
  settings: Pick<ExtractorSettings, 'llmModel'>,
): ExtractorName[] | null {
  if (raw === undefined || raw === null) return null;
  if (raw.length === 0) throw badInput(field, 'name at least one extractor, or leave it out for the configured ones');
  const names = [...new Set(raw.map((n) => n.trim().toLowerCase()))];
  const unknown = names.find((n) => !(EXTRACTOR_NAMES as readonly string[]).includes(n));
  if (unknown !== undefined)
    throw badInput(field, `unknown extractor "${unknown.slice(0, 50)}": use ${EXTRACTOR_NAMES.join(', ')}`);
  if (names.includes('llm') && !settings.llmModel)
    throw badInput(
      field,
      'LLM extraction needs a model: set CAIRN_EXTRACTION_LLM_MODEL (and CAIRN_EXTRACTION_LLM_BASE_URL for a local endpoint such as Ollama), or leave LLM out',
    );
  return EXTRACTOR_NAMES.filter((n) => names.includes(n));
}

/** Checks extractGraph input: exactly one of documentIds (1 to MAX_EXTRACT_IDS) and filter; valid extractors. */
export function validateExtractGraph(
  input: RawExtractGraphInput,
  settings: ExtractorSettings,
  prefix = 'input',
): ExtractGraphRequest {
  const hasIds = input.documentIds !== undefined && input.documentIds !== null;
  const hasFilter = input.filter !== undefined && input.filter !== null;
  if (hasIds === hasFilter)
    throw badInput(prefix, 'give exactly one of documentIds and filter (filter: {} selects every document)');
  const extractors = validateExtractors(input.extractors, `${prefix}.extractors`, settings);
  if (extractors === null && settings.configured.length === 0)
    throw badInput(
      `${prefix}.extractors`,
      'extraction is off on this server (CAIRN_EXTRACTION_EXTRACTORS=none): name the extractors to run',
    );
  const dryRun = input.dryRun ?? false;
  if (!hasIds) return { target: { filter: input.filter as DocumentFilterSpec }, extractors, dryRun };
  const ids = input.documentIds as readonly string[];
  if (ids.length === 0) throw badInput(`${prefix}.documentIds`, 'give at least one document id');
  if (ids.length > MAX_EXTRACT_IDS)
    throw badInput(
      `${prefix}.documentIds`,
      `at most ${MAX_EXTRACT_IDS} ids (got ${ids.length}); select more documents with a filter`,
    );
  const checked = ids.map((id, i) => validateDocumentId(id, `${prefix}.documentIds[${i}]`));
  return { target: { ids: [...new Set(checked)] }, extractors, dryRun };
}
