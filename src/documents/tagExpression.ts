import { badInput, redactAndTruncate } from '../errors.js';

/** The shape every tag must have. */
export const TAG_PATTERN = /^[a-z0-9][a-z0-9_\-:]*$/;
/** Longest tag, and longest tag expression. */
export const MAX_TAG_LENGTH = 100;
const MAX_EXPRESSION_LENGTH = 2000;

/**
 * Parses a tag expression into disjunctive normal form: `a+b|c` → [["a","b"],["c"]].
 * `+` (all of) binds tighter than `|` (any of); whitespace around operators is ignored.
 */
export function parseTagExpression(expression: string, field = 'filter.tags'): string[][] {
  const trimmed = expression.trim();
  if (trimmed === '') throw badInput(field, 'the tag expression is empty; use e.g. "billing+ach|payments"');
  if (trimmed.length > MAX_EXPRESSION_LENGTH)
    throw badInput(field, `the tag expression is ${trimmed.length} characters; at most ${MAX_EXPRESSION_LENGTH}`);
  return trimmed.split('|').map((group) =>
    group.split('+').map((raw) => {
      const token = raw.trim();
      if (token === '') {
        throw badInput(field, `empty tag in "${expression}": every "+" and "|" needs a tag on both sides`, { token });
      }
      if (!TAG_PATTERN.test(token)) {
        throw badInput(field, `invalid tag "${redactAndTruncate(token)}": tags match [a-z0-9][a-z0-9_\\-:]*`, {
          token: redactAndTruncate(token),
        });
      }
      return token;
    }),
  );
}

/** Validates a list of tags for storage, de-duplicating while keeping order. */
export function validateTags(tags: readonly string[], field = 'tags'): string[] {
  const seen = new Set<string>();
  for (const tag of tags) {
    if (!TAG_PATTERN.test(tag)) {
      throw badInput(
        field,
        `invalid tag "${redactAndTruncate(tag)}": tags are lower-case and match [a-z0-9][a-z0-9_\\-:]*`,
        { token: redactAndTruncate(tag) },
      );
    }
    if (tag.length > MAX_TAG_LENGTH)
      throw badInput(field, `tag "${redactAndTruncate(tag)}" is ${tag.length} characters; at most ${MAX_TAG_LENGTH}`, {
        token: redactAndTruncate(tag),
      });
    seen.add(tag);
  }
  return [...seen];
}
