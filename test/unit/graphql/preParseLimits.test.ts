import { describe, expect, it } from '@jest/globals';
import { Lexer, Source, TokenKind } from 'graphql';
import { preParseProblem } from '../../../src/graphql/preParseLimits.js';

/** Tokens as graphql-js's parser counts them against maxTokens (comments and <EOF> excluded). */
function graphqlTokens(query: string): number {
  const lexer = new Lexer(new Source(query));
  let n = 0;
  while (lexer.advance().kind !== TokenKind.EOF) n++;
  return n;
}

const DOCUMENTS = [
  '{ knowledgeStats { documentCount } }',
  'query Q($n: Int = 10, $f: [String!]! @deprecated) { documents(first: $n, filter: { sources: $f }) { nodes { id } } }',
  '# a comment { with braces }\n{ a(s: "a { string } with \\" quote", n: -1.5e+3, b: true, e: ENUM, z: null) }',
  '{ a(text: """block { string } with \\""" inside""") { ...F ... on T { b } ... @skip(if: true) { c } } }',
  'fragment F on T { x: y, z } subscription S { s { t } } mutation M { m(i: {a: [1, 2, {b: [3]}]}) { k } }',
];

describe('preParseProblem', () => {
  it.each(DOCUMENTS)('counts the tokens graphql-js counts: %s', (query) => {
    const tokens = graphqlTokens(query);
    expect(preParseProblem(query, { maxTokens: tokens, maxDepth: 12 })).toBeUndefined();
    expect(preParseProblem(query, { maxTokens: tokens - 1, maxDepth: 12 })).toMatchObject({
      code: 'QUERY_TOO_COMPLEX',
      details: { limit: 'tokens', max: tokens - 1 },
    });
  });

  it('measures selection nesting without the braces of argument values', () => {
    const values = `{ a(i: ${'{ b: '.repeat(100)}1${' }'.repeat(100)}) { c } }`;
    expect(preParseProblem(values, { maxTokens: 100_000, maxDepth: 12 })).toBeUndefined();
    const deep = `${'{ a '.repeat(40)}${'}'.repeat(40)}`;
    expect(preParseProblem(deep, { maxTokens: 100_000, maxDepth: 12 })?.details).toMatchObject({
      limit: 'depth',
      found: 40,
    });
    // Below 32 levels the parser runs and the depth rule (which skips introspection) decides.
    expect(
      preParseProblem(`${'{ a '.repeat(32)}${'}'.repeat(32)}`, { maxTokens: 100_000, maxDepth: 5 }),
    ).toBeUndefined();
  });

  it('refuses brackets of any kind nested past 500 levels', () => {
    const list = `{ a(i: ${'['.repeat(501)}1${']'.repeat(501)}) }`;
    expect(preParseProblem(list, { maxTokens: 100_000, maxDepth: 12 })?.details).toMatchObject({
      limit: 'depth',
      found: 503, // the selection set's brace and the arguments' parenthesis count too
    });
  });
});
