import { z } from 'zod';

// Argument pieces several tools share. Types only: ranges and formats are checked by the services' own validation,
// so a limit lives in one place; the descriptions state them for the model.

/** A whole number; its range is checked by the tool (the description says which). */
export const integer = () => z.number().int();

export const documentTypeSchema = z.enum(['MANUAL', 'TUTORIAL', 'API_SPEC', 'FAQ', 'POLICY', 'REFERENCE', 'OTHER']);

export const searchModeSchema = z
  .enum(['VECTOR', 'KEYWORD', 'HYBRID'])
  .describe(
    'Ranking: HYBRID (default) fuses meaning and keywords; KEYWORD for exact terms, codes and names; VECTOR for paraphrases.',
  );

export const jsonObjectSchema = z.record(z.string(), z.unknown());

export const tagsSchema = z.array(z.string()).describe('Lower-case tags matching [a-z0-9][a-z0-9_\\-:]*, at most 100.');

export const documentFilterSchema = z
  .strictObject({
    types: z.array(documentTypeSchema).optional().describe('Only documents of any of these types.'),
    sources: z.array(z.string()).optional().describe('Only documents from any of these sources (exact match).'),
    tags: z
      .string()
      .optional()
      .describe(
        'Tag expression: "a+b" needs both tags, "a|b" either; "+" binds tighter than "|" (e.g. "billing+ach|payments").',
      ),
    text: z
      .string()
      .optional()
      .describe(
        'Only documents whose title or content contains this text (case-insensitive, at most 1000 characters).',
      ),
  })
  .describe('Restricts which documents count; leave it out to search everything.');

export const pageArgs = {
  first: integer().optional().describe('How many to return, 0-100 (default 20).'),
  after: z.string().optional().describe('The `endCursor` of the previous page, to continue a listing.'),
};
