// Word lists that tell a name of a specific thing from a generic heading. They are deliberately small: a word that is
// missing makes a heading count as specific, which only lets text naming it link to its page.

/** Headings that name no particular thing, as whole phrases (lower case). */
const GENERIC_HEADINGS = new Set(
  [
    'features',
    'overview',
    'getting started',
    'get started',
    'quick start',
    'quickstart',
    'troubleshooting',
    'introduction',
    'intro',
    'faq',
    'faqs',
    'frequently asked questions',
    'guide',
    'guides',
    'reference',
    'api reference',
    'api',
    'apis',
    'cli',
    'configuration',
    'config',
    'installation',
    'install',
    'setup',
    'usage',
    'examples',
    'example',
    'changelog',
    'changes',
    'releases',
    'release notes',
    'blog',
    'team',
    'acknowledgements',
    'acknowledgments',
    'index',
    'home',
    'readme',
    'contributing',
    'migration',
    'philosophy',
    'performance',
    'about',
    'summary',
    'notes',
    'tutorial',
    'tutorials',
    'advanced',
    'basics',
    'concepts',
    'options',
    'settings',
    'glossary',
    'resources',
    'community',
    'license',
    'documentation',
    'docs',
    'news',
    'contents',
    'table of contents',
    'next steps',
    'see also',
    'related',
    'background',
    'motivation',
    'conclusion',
    'appendix',
    'support',
    'help',
    'plugins',
    'security',
    'deployment',
    'testing',
    'debugging',
  ].map((h) => h.toLowerCase()),
);

/** Common English and documentation words: a Title Case heading made only of them is generic ("Server Options"). */
const COMMON_WORDS = new Set(
  `about above access action actions add adding advanced after all also api app application applications apps are
  asset assets authentication auto available back backend basic basics before behavior behaviour best better breaking browser
  browsers build building builds bundle bundling cache caching can change changes check choose cli client code command
  commands common compatibility compatible config configuration configuring connect content context core create
  creating css custom customizing data debug debugging default defaults define defining dep dependencies dependency deps deploy
  deploying deployment dev develop development different directory disable docs document documentation does done
  env environment environments error errors example examples existing experimental explicit export extend external faq
  feature features field fields file files find first fix flag flags for format frequently from frontend full function
  functions general generic get getting global guide guides handle handling help hook hooks how http import imports
  improve improvements in index info input install installation instance instances integration interface into
  introduction issue issues java key keys language languages layout learn level library line list load loading local
  log logging main make manage management manual meet latest migrate migration mode modes module modules more multiple name names
  native network new next node not note notes object objects of on one optimization optimize option options or other
  output overview package packages page pages path paths performance philosophy plugin plugins preview process
  production project projects properties property public query quick read reading reference related release releases
  remote render rendering request requests resolve resolving resource resources response result results route routes
  routing run running runtime runtimes scaling script scripts search security see server servers service services set
  setting settings setup shared side simple site source sources specific start started starting state static status
  step steps store string structure style styles support supported supporting system table target task team template
  templates test testing the their this time tips to tool tools transform troubleshooting tutorial type types update
  updates upgrade upgrading usage use user users using value values variable variables version versions view web what
  when why with without work worker workers working write writing you your`.split(/\s+/),
);

/** Acronyms too common to name one thing. */
const COMMON_ACRONYMS = new Set(['API', 'APIS', 'CLI', 'FAQ', 'URL', 'HTTP', 'HTML', 'CSS', 'JS', 'UI', 'SDK', 'ID']);
const STOPWORDS = new Set(['a', 'an', 'the', 'and', 'or', 'of', 'for', 'to', 'in', 'on', 'with', 'by', 'from', 'at']);

const TRAILING_DISAMBIGUATOR = /^(.*\S)\s+\(([^()]+)\)$/;

/** "Kiss and Tell (1945 film)" → { bare: "Kiss and Tell", note: "1945 film" }; undefined without one. */
export function splitDisambiguator(name: string): { bare: string; note: string } | undefined {
  const m = TRAILING_DISAMBIGUATOR.exec(name.trim());
  if (!m?.[1] || !m[2]) return undefined;
  return { bare: m[1], note: m[2].trim() };
}

/** A code identifier: dotted path, call, snake/camel case, `@scope/pkg`, `--flag`. */
export function isIdentifierLike(word: string): boolean {
  return (
    /^[A-Za-z_$][\w$]*(\.[A-Za-z_$][\w$]*)+(\(\))?$/.test(word) ||
    /^[A-Za-z_$][\w$]*\(\)$/.test(word) ||
    /^[a-z]+(?:[A-Z][a-z0-9]*)+$/.test(word) ||
    /^[A-Za-z][A-Za-z0-9]*_[A-Za-z0-9_]+$/.test(word) ||
    /^@[a-z0-9][\w.-]*\/[\w.-]+$/.test(word) ||
    /^--[a-z][\w-]+$/.test(word)
  );
}

/** A word with an internal capital or a digit after letters: JavaScript, WebAssembly, Vite3, Node.js. */
function isMarkedWord(word: string): boolean {
  return /^[A-Za-z][a-z]+[A-Z]/.test(word) || /^[A-Za-z]+\d/.test(word) || /^[A-Z][a-z]+\.[a-z]{2,}$/.test(word);
}

function isRareAcronym(word: string): boolean {
  return /^[A-Z][A-Z0-9]{1,9}s?$/.test(word) && /[A-Z].*[A-Z]/.test(word) && !COMMON_ACRONYMS.has(word.toUpperCase());
}

/**
 * Whether a title or name names a specific thing (a proper noun phrase, an identifier, a rare capitalised word, an
 * acronym) rather than a generic heading ("Features", "Getting Started", "Server Options"). Text that names a
 * specific thing links to it by name; a generic heading only names its page.
 */
export function isSpecificName(name: string): boolean {
  const trimmed = name.trim().replace(/\s+/g, ' ');
  const disambiguated = splitDisambiguator(trimmed);
  if (disambiguated) return /\p{L}/u.test(disambiguated.bare) && !isGenericPhrase(disambiguated.bare);
  if (trimmed.length < 2) return false;
  if (isIdentifierLike(trimmed) || isRareAcronym(trimmed)) return true;
  if (isGenericPhrase(trimmed)) return false;
  const words = trimmed
    .replace(/^(the|a|an)\s+/i, '')
    .split(' ')
    .map((w) => w.replace(/^[^\p{L}\p{N}@-]+|[^\p{L}\p{N}]+$/gu, ''))
    .filter((w) => w !== '');
  const content = words.filter((w) => !STOPWORDS.has(w.toLowerCase()));
  if (content.length === 0) return false;
  if (content.some((w) => isRareAcronym(w) || isMarkedWord(w) || isIdentifierLike(w))) return true;
  // "Environment API", "Vite CLI": a capitalised word before a common acronym names one API or tool.
  if (
    content.length > 1 &&
    content.some((w) => COMMON_ACRONYMS.has(w)) &&
    content.some((w) => /^\p{Lu}\p{Ll}/u.test(w))
  ) {
    return true;
  }
  // A capitalised word that is not a common one is a proper name: "Kiss and Tell", "Cloudflare supports Vite's mission".
  return content.some((w) => /^\p{Lu}/u.test(w) && w.split('-').some((p) => isRareWord(p.toLowerCase())));
}

function isRareWord(word: string): boolean {
  const bare = word.replace(/['’]s$/, '');
  return bare.length > 1 && !COMMON_WORDS.has(bare) && !COMMON_WORDS.has(singular(bare));
}

/** Whether a phrase is a heading that names no particular thing ("Features", "Getting Started"). */
export function isGenericPhrase(phrase: string): boolean {
  const lower = phrase
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s-]/gu, '')
    .trim();
  return GENERIC_HEADINGS.has(lower) || GENERIC_HEADINGS.has(singular(lower));
}

function singular(word: string): string {
  if (/ies$/.test(word)) return `${word.slice(0, -3)}y`;
  if (/[^s]s$/.test(word)) return word.slice(0, -1);
  return word;
}
