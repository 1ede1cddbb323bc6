import { ENTITY_TYPE_PATTERN, RELATIONSHIP_TYPE_PATTERN } from '../../graph/types.js';
import type { EntityCandidate, RelationshipCandidate } from '../types.js';
import type { ModelAnswer, ModelEntity } from './answer.js';
import type { ExtractionTypes } from './prompt.js';

/** Confidence of an entity the model named and the passage contains. */
export const LLM_ENTITY_CONFIDENCE = 0.8;
/** Confidence of a relationship the model stated between two such entities. */
export const LLM_RELATIONSHIP_CONFIDENCE = 0.7;
/** The type of an entity whose type is none of the configured ones (a model ignoring the schema). */
export const FALLBACK_ENTITY_TYPE = 'Concept';
/** The type of a relationship whose type is none of the configured ones. */
export const FALLBACK_RELATIONSHIP_TYPE = 'RELATED_TO';

const MAX_NAME_CHARS = 200;
const MAX_DESCRIPTION_CHARS = 300;
const MAX_QUOTE_CHARS = 200;
const MAX_ALIASES = 10;

/** What the model's answer yields for one chunk. */
export interface ChunkCandidates {
  entities: EntityCandidate[];
  relationships: RelationshipCandidate[];
  warnings: string[];
}

/** `hot module replacement` and `Hot-Module Replacement` compare equal: case, accents and punctuation aside. */
export function comparable(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

/** `config option`, `configOption` → `ConfigOption`; `API` stays `API`. */
export function toPascalCase(type: string): string {
  return type
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join('');
}

/** `depends on`, `dependsOn`, `Depends-On` → `DEPENDS_ON`. */
export function toUpperSnake(type: string): string {
  return type
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/[^A-Za-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .toUpperCase();
}

/** The configured entity type the model meant, else FALLBACK_ENTITY_TYPE. */
export function entityTypeOf(raw: string, configured: readonly string[]): string {
  const wanted = comparable(toPascalCase(raw)).replace(/ /g, '');
  const match = configured.find((type) => comparable(type).replace(/ /g, '') === wanted);
  return match && ENTITY_TYPE_PATTERN.test(match) ? match : FALLBACK_ENTITY_TYPE;
}

/** The configured relationship type the model meant, else FALLBACK_RELATIONSHIP_TYPE. */
export function relationshipTypeOf(raw: string, configured: readonly string[]): string {
  const wanted = toUpperSnake(raw);
  const match = configured.find((type) => toUpperSnake(type) === wanted);
  return match && RELATIONSHIP_TYPE_PATTERN.test(match) ? match : FALLBACK_RELATIONSHIP_TYPE;
}

function clean(text: string | null | undefined, max: number): string {
  const flat = (text ?? '').replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}

/** The passage's sentences, for quotes. */
function sentencesOf(content: string): string[] {
  return content
    .split(/(?<=[.!?])\s+|\n+/)
    .map((s) => s.trim())
    .filter(Boolean);
}

/** A quote of at most MAX_QUOTE_CHARS around `name` in `sentence`. */
function quoteAround(sentence: string, name: string): string {
  if (sentence.length <= MAX_QUOTE_CHARS) return sentence;
  const at = Math.max(0, sentence.toLowerCase().indexOf(name.toLowerCase().split(/\s+/)[0] ?? ''));
  const start = Math.max(0, Math.min(at - 60, sentence.length - MAX_QUOTE_CHARS));
  return sentence.slice(start, start + MAX_QUOTE_CHARS).trim();
}

/** The first sentence naming every one of `names` (compared as `comparable`), or undefined. */
function sentenceNaming(sentences: readonly string[], names: readonly string[]): string | undefined {
  const wanted = names.map((n) => ` ${comparable(n)} `);
  return sentences.find((s) => {
    const text = ` ${comparable(s)} `;
    return wanted.every((w) => text.includes(w));
  });
}

/** The forms of a name to look for: as given, and without a trailing "(1945 film)" disambiguator. */
function searchForms(name: string): string[] {
  const bare = name.replace(/\s*\([^)]*\)\s*$/, '').trim();
  return bare && bare !== name ? [name, bare] : [name];
}

interface Located {
  candidate: EntityCandidate;
  /** The forms relationships may use to point at it. */
  keys: string[];
}

function locateEntity(entity: ModelEntity, sentences: readonly string[], types: ExtractionTypes): Located | undefined {
  const name = clean(entity.name, MAX_NAME_CHARS + 1);
  if (!name || name.length > MAX_NAME_CHARS) return undefined;
  const seen = new Set([comparable(name), '']);
  const aliases: string[] = [];
  for (const raw of entity.aliases ?? []) {
    const alias = clean(raw, MAX_NAME_CHARS);
    if (aliases.length < MAX_ALIASES && !seen.has(comparable(alias))) aliases.push(alias);
    seen.add(comparable(alias));
  }
  let quote: string | undefined;
  for (const form of [...searchForms(name), ...aliases]) {
    const sentence = comparable(form) ? sentenceNaming(sentences, [form]) : undefined;
    if (sentence) {
      quote = quoteAround(sentence, form);
      break;
    }
  }
  // A name the passage does not contain is a guess, not evidence.
  if (quote === undefined) return undefined;
  const description = clean(entity.description, MAX_DESCRIPTION_CHARS);
  const candidate: EntityCandidate = {
    name,
    type: entityTypeOf(entity.type, types.entityTypes),
    kind: 'name',
    quote,
    confidence: LLM_ENTITY_CONFIDENCE,
    ...(aliases.length > 0 ? { aliases } : {}),
    ...(description ? { description } : {}),
  };
  return { candidate, keys: [name, ...aliases].map(comparable) };
}

/** Entities found in the passage, one per name (the first mention wins), and the names that were not. */
function entitiesOf(answer: ModelAnswer, sentences: readonly string[], types: ExtractionTypes) {
  const byKey = new Map<string, EntityCandidate>();
  const entities: EntityCandidate[] = [];
  const absent: string[] = [];
  for (const entity of answer.entities) {
    const located = locateEntity(entity, sentences, types);
    if (!located) {
      if (entity.name.trim()) absent.push(clean(entity.name, 60));
      continue;
    }
    const key = comparable(located.candidate.name);
    if (byKey.has(key)) continue;
    entities.push(located.candidate);
    for (const k of located.keys) if (!byKey.has(k)) byKey.set(k, located.candidate);
  }
  return { entities, byKey, absent };
}

/** Turns a validated answer into the chunk's candidates: types normalised, guesses and dangling ends dropped. */
export function candidatesOf(answer: ModelAnswer, content: string, types: ExtractionTypes): ChunkCandidates {
  const sentences = sentencesOf(content);
  const { entities, byKey, absent } = entitiesOf(answer, sentences, types);
  const warnings: string[] = [];
  if (absent.length > 0)
    warnings.push(`dropped ${absent.length} entities the passage does not name: ${absent.slice(0, 5).join(', ')}`);
  const relationships: RelationshipCandidate[] = [];
  const seen = new Set<string>();
  let dangling = 0;
  for (const rel of answer.relationships) {
    const from = byKey.get(comparable(rel.source)) ?? byKey.get(comparable(searchForms(rel.source).at(-1) ?? ''));
    const to = byKey.get(comparable(rel.target)) ?? byKey.get(comparable(searchForms(rel.target).at(-1) ?? ''));
    if (!from || !to) {
      dangling++;
      continue;
    }
    const type = relationshipTypeOf(rel.type, types.relationshipTypes);
    const key = `${from.name}\u0000${to.name}\u0000${type}`;
    if (from === to || seen.has(key)) continue;
    seen.add(key);
    const sentence = sentenceNaming(sentences, [from.name, to.name]);
    const description = clean(rel.description, MAX_DESCRIPTION_CHARS);
    relationships.push({
      from: from.name,
      to: to.name,
      type,
      quote: sentence ? quoteAround(sentence, from.name) : from.quote,
      confidence: LLM_RELATIONSHIP_CONFIDENCE,
      ...(description ? { description } : {}),
    });
  }
  if (dangling > 0) warnings.push(`dropped ${dangling} relationships whose ends are not among the chunk's entities`);
  return { entities, relationships, warnings };
}
