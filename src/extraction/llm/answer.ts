import { z } from 'zod';

/** One entity as the model returns it (lenient: `json_object` mode and small models omit optional fields). */
const modelEntity = z.object({
  name: z.string(),
  type: z.string(),
  description: z.string().nullish(),
  aliases: z.array(z.string()).nullish(),
});

const modelRelationship = z.object({
  source: z.string(),
  target: z.string(),
  type: z.string(),
  description: z.string().nullish(),
});

const modelAnswer = z.object({
  entities: z.array(modelEntity),
  relationships: z.array(modelRelationship).default([]),
});

/** A model answer that passed validation. */
export type ModelAnswer = z.infer<typeof modelAnswer>;
export type ModelEntity = z.infer<typeof modelEntity>;
export type ModelRelationship = z.infer<typeof modelRelationship>;

/** The validated answer, or what is wrong with it, in words the model can act on. */
export type ParsedAnswer = { ok: true; answer: ModelAnswer } | { ok: false; problems: string };

/** Validation issues quoted back to the model at most. */
const MAX_ISSUES = 8;

/**
 * Repairs what models commonly wrap around their JSON: `<think>` blocks (reasoning models), code fences, and prose
 * before or after the object. Returns the text of the first balanced JSON object, or the cleaned text when there is
 * none (JSON.parse then says what is wrong).
 */
export function repairAnswer(raw: string): string {
  let text = raw.replace(/<think>[\s\S]*?<\/think>/gi, '');
  // An unclosed block (the answer was cut while thinking) leaves nothing usable after it.
  text = text.replace(/<think>[\s\S]*$/i, '');
  const fenced = /```[a-zA-Z]*\s*\n?([\s\S]*?)```/.exec(text);
  if (fenced?.[1]?.includes('{')) text = fenced[1];
  const start = text.indexOf('{');
  if (start < 0) return text.trim();
  const end = endOfObject(text, start);
  return end < 0 ? text.slice(start).trim() : text.slice(start, end + 1);
}

/** Index of the `}` closing the object opened at `start` (strings and escapes respected), or -1. */
function endOfObject(text: string, start: number): number {
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const ch = text[i];
    if (inString) {
      if (ch === '\\') i++;
      else if (ch === '"') inString = false;
    } else if (ch === '"') inString = true;
    else if (ch === '{' || ch === '[') depth++;
    else if (ch === '}' || ch === ']') {
      depth--;
      if (depth === 0) return ch === '}' ? i : -1;
    }
  }
  return -1;
}

/** Repairs, parses and validates one answer. */
export function parseAnswer(raw: string | null | undefined): ParsedAnswer {
  if (raw === null || raw === undefined || raw.trim() === '') return { ok: false, problems: 'the answer was empty.' };
  const text = repairAnswer(raw);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return { ok: false, problems: `the answer is not valid JSON (${(error as Error).message}).` };
  }
  const result = modelAnswer.safeParse(json);
  if (result.success) return { ok: true, answer: result.data };
  const issues = result.error.issues.slice(0, MAX_ISSUES).map((issue) => `${pathOf(issue.path)}: ${issue.message}`);
  const more = result.error.issues.length - issues.length;
  return {
    ok: false,
    problems: `the JSON does not match the format: ${issues.join('; ')}${more > 0 ? `; and ${more} more` : ''}.`,
  };
}

/** `entities[2].name` for a zod issue path; `(the answer)` for the root. */
function pathOf(path: readonly PropertyKey[]): string {
  let out = '';
  for (const key of path) out += typeof key === 'number' ? `[${key}]` : `${out ? '.' : ''}${String(key)}`;
  return out || '(the answer)';
}
