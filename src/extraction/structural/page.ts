import type { EntityCandidate } from '../types.js';
import { classifyCode } from './classifyCode.js';
import { firstLineQuote, quoteAt } from './markdown.js';
import { isIdentifierLike, splitDisambiguator } from './names.js';
import { namesOnlyThis } from './terms.js';

/** Entity types for a disambiguator's last word: "Kiss and Tell (1945 film)" is a Film. */
const DISAMBIGUATOR_TYPES: Record<string, string> = {
  film: 'Film',
  movie: 'Film',
  song: 'Song',
  single: 'Song',
  album: 'Album',
  novel: 'Book',
  book: 'Book',
  band: 'Organization',
  company: 'Organization',
  organization: 'Organization',
  series: 'TVSeries',
  politician: 'Person',
  actor: 'Person',
  actress: 'Person',
  singer: 'Person',
  musician: 'Person',
  writer: 'Person',
  footballer: 'Person',
  city: 'Place',
  town: 'Place',
  village: 'Place',
  river: 'Place',
  software: 'Software',
  library: 'Software',
  game: 'Game',
  'video game': 'Game',
};

/** The type of the thing a title names, from its shape: "HMR API" → API, "Vite CLI" → Tool, "`server.port`". */
export function typeOfTitle(title: string): string {
  const disambiguated = splitDisambiguator(title);
  if (disambiguated && !/^[A-Z][A-Z0-9]+s?$/.test(disambiguated.note)) {
    const note = disambiguated.note.toLowerCase().replace(/^\d+\s+/, '');
    const last = note.split(/\s+/).pop() ?? '';
    return DISAMBIGUATOR_TYPES[note] ?? DISAMBIGUATOR_TYPES[last] ?? typeOfTitle(disambiguated.bare);
  }
  const bare = title.replace(/`/g, '').trim();
  if (/\bAPIs?$/.test(bare)) return 'Api'; // the OpenAPI importer's type for an API
  if (/\bCLI$|\bcommand[- ]line\b/i.test(bare)) return 'Tool';
  // The same types the identifier extraction gives, so that a package's page and its mentions are one entity.
  if (isIdentifierLike(bare)) return classifyCode(bare)[0]?.type ?? 'Identifier';
  if (/\bplugin$/i.test(bare)) return 'Plugin';
  if (/\bSDK$|\blibrary$/i.test(bare)) return 'Software';
  return 'Topic';
}

/**
 * The thing a document is about, named by its title. A trailing disambiguator stays in the name and its bare form
 * becomes an alias; an acronym in parentheses ("Server-Side Rendering (SSR)") becomes an alias with the bare form.
 */
export function pageCandidate(title: string, chunkText: string): EntityCandidate | undefined {
  const name = title.trim().replace(/\s+/g, ' ');
  if (!/[\p{L}\p{N}]/u.test(name)) return undefined;
  const disambiguated = splitDisambiguator(name);
  const aliases = disambiguated ? [disambiguated.bare] : [];
  if (disambiguated && /^[A-Z][A-Z0-9]+s?$/.test(disambiguated.note) && namesOnlyThis(disambiguated.note))
    aliases.push(disambiguated.note);
  return {
    name,
    type: typeOfTitle(name),
    ...(aliases.length > 0 ? { aliases } : {}),
    kind: 'page',
    quote: titleQuote(name, chunkText),
    confidence: 0.95,
  };
}

/** The line of the chunk that names the title (its heading, normally), else its first line. */
function titleQuote(title: string, chunkText: string): string {
  const index = chunkText.indexOf(title);
  if (index >= 0) return quoteAt(chunkText, index, title.length);
  const bare = splitDisambiguator(title)?.bare;
  const bareIndex = bare ? chunkText.indexOf(bare) : -1;
  if (bare && bareIndex >= 0) return quoteAt(chunkText, bareIndex, bare.length);
  return firstLineQuote(chunkText);
}
