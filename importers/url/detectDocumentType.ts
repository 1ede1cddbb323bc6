import type { DocumentTypeName } from '../../src/importerPort.js';

/** What the importer knows about the content, beyond the URL. */
export interface DocumentTypeHints {
  /** The body is an OpenAPI/Swagger document. */
  isOpenApi?: boolean;
}

// Each pattern matches one whole path segment (lower-cased, file extension removed): the keyword, its plural,
// or the keyword followed by `-`/`_` and more words (`faq-billing`), so `guideline` is not `guide`. `api` only
// takes spec-like suffixes: `/api-keys` is a page about keys, `/api-v2` and `/api-docs` are the API itself.
const RULES: ReadonlyArray<readonly [DocumentTypeName, RegExp]> = [
  ['api_spec', /^(?:apis?|api[-_]?(?:docs?|specs?|reference|v\d+(?:\.\d+)*)|(?:openapi|swagger)(?:[-_.].*)?)$/],
  ['faq', /^(?:faqs?|frequently[-_]asked[-_]questions)(?:[-_].*)?$/],
  ['policy', /^(?:polic(?:y|ies)|legal)(?:[-_].*)?$|[-_]polic(?:y|ies)$/],
  ['tutorial', /^(?:tutorials?|guides?|getting[-_]started|how[-_]?tos?)(?:[-_].*)?$/],
  ['manual', /^(?:runbooks?|manuals?|procedures?|sops?)(?:[-_].*)?$/],
  ['reference', /^references?(?:[-_].*)?$/],
];
const EXTENSION = /\.(?:html?|php|aspx?|jsp|md|mdx|txt|pdf|json|ya?ml)$/;

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** The lower-cased path segments of a URL (or of a bare path). */
function pathSegments(url: string): string[] {
  let path: string;
  try {
    path = new URL(url, 'http://path.invalid/').pathname;
  } catch {
    path = url.split(/[?#]/)[0] ?? '';
  }
  return path
    .split('/')
    .map((segment) => safeDecode(segment).toLowerCase().replace(EXTENSION, ''))
    .filter((segment) => segment !== '');
}

// Order when several rules match: an OpenAPI body always wins; otherwise the deepest matching segment decides,
// because it names the page rather than its section (`/legal/faq` is an FAQ, `/faq/refund-policy` a policy);
// within one segment the rule listed first in RULES wins (`/api-reference` is api_spec).
/** Guesses the document type from the URL path (see the order above). */
export function detectDocumentType(url: string, hints: DocumentTypeHints = {}): DocumentTypeName {
  if (hints.isOpenApi) return 'api_spec';
  const segments = pathSegments(url);
  for (let i = segments.length - 1; i >= 0; i--) {
    const segment = segments[i] ?? '';
    for (const [type, pattern] of RULES) {
      if (pattern.test(segment)) return type;
    }
  }
  return 'other';
}
