import type OpenAI from 'openai';

/** Bump whenever the prompt or the answer format changes: it is part of the cache key (the extractor's fingerprint). */
export const PROMPT_VERSION = 'llm-extract-1';

/** The entity and relationship types the model may use (`CAIRN_EXTRACTION_ENTITY_TYPES`, `_RELATIONSHIP_TYPES`). */
export interface ExtractionTypes {
  entityTypes: readonly string[];
  relationshipTypes: readonly string[];
}

export type ChatMessage = OpenAI.Chat.Completions.ChatCompletionMessageParam;

/** The longest previous answer quoted back to the model in a retry. */
const MAX_QUOTED_ANSWER_CHARS = 4000;

/** Instructions and the answer's shape; the shape is spelled out because `json_object` mode carries no schema. */
export function systemPrompt(types: ExtractionTypes): string {
  return [
    'You extract a knowledge graph from one passage of a document. Answer with one JSON object and nothing else:',
    '{"entities":[{"name":"...","type":"...","description":"...","aliases":["..."]}],' +
      '"relationships":[{"source":"...","target":"...","type":"...","description":"..."}]}',
    'Rules:',
    '- entities: the specific things the passage names: people, organisations, products, technologies, APIs, ' +
      'options, places, events, and concepts particular to its subject. Not generic words (user, file, example, ' +
      'value), not pronouns.',
    '- name: exactly as the passage writes it, in its fullest form; aliases: other names the passage gives the same ' +
      'thing (an acronym), else [].',
    `- entity type: one of ${types.entityTypes.join(', ')}.`,
    '- description: one short sentence (at most 25 words), from the passage, saying what the entity is.',
    '- relationships: only those the passage states, between two entities of your list; source and target are ' +
      'their names as in your list.',
    `- relationship type: one of ${types.relationshipTypes.join(', ')}; description: one short sentence.`,
    '- If the passage names nothing specific, answer {"entities":[],"relationships":[]}.',
  ].join('\n');
}

/** The passage, with its document's title (it disambiguates short names). */
export function userPrompt(title: string, content: string): string {
  return `Document: ${title}\n\nPassage:\n"""\n${content}\n"""`;
}

/** The conversation for a first attempt. */
export function firstMessages(types: ExtractionTypes, title: string, content: string): ChatMessage[] {
  return [
    { role: 'system', content: systemPrompt(types) },
    { role: 'user', content: userPrompt(title, content) },
  ];
}

/** The conversation for a retry: the rejected answer and why it was rejected, quoted back. */
export function retryMessages(previous: readonly ChatMessage[], answer: string, problems: string): ChatMessage[] {
  const quoted =
    answer.length <= MAX_QUOTED_ANSWER_CHARS ? answer : `${answer.slice(0, MAX_QUOTED_ANSWER_CHARS)}… (cut)`;
  return [
    ...previous,
    { role: 'assistant', content: quoted },
    {
      role: 'user',
      content:
        `Your answer could not be used: ${problems}\n` +
        'Answer again with one JSON object in the format described, and nothing else.',
    },
  ];
}

/** The strict JSON schema for `response_format: json_schema` (every property required, nothing else allowed). */
export function answerJsonSchema(types: ExtractionTypes): Record<string, unknown> {
  const text = { type: 'string' };
  const object = (properties: Record<string, unknown>) => ({
    type: 'object',
    additionalProperties: false,
    required: Object.keys(properties),
    properties,
  });
  return object({
    entities: {
      type: 'array',
      items: object({
        name: text,
        type: { type: 'string', enum: [...types.entityTypes] },
        description: text,
        aliases: { type: 'array', items: text },
      }),
    },
    relationships: {
      type: 'array',
      items: object({
        source: text,
        target: text,
        type: { type: 'string', enum: [...types.relationshipTypes] },
        description: text,
      }),
    },
  });
}
