import { describe, expect, it } from '@jest/globals';
import { bestExcerpt, queryWords } from '../../../src/enrichment/excerpt.js';

describe('excerpts for the end of the budget', () => {
  const passage =
    'Walk the Line is a 2005 film. It follows the early life of Johnny Cash. ' +
    'Waylon Payne plays Jerry Lee Lewis, who sang "It\'ll Be Me." The film won awards.';

  it('keeps the query words that say what is asked, not the question words', () => {
    expect([...queryWords("Who played the It'll Be Me singer in Walk the Line?")]).toEqual([
      'played',
      'singer',
      'walk',
      'line',
    ]);
  });

  it('takes the run of whole sentences that fits and holds the most query words', () => {
    const words = queryWords('Which actor plays Jerry Lee Lewis?');
    expect(bestExcerpt(passage, words, 80)).toBe('Waylon Payne plays Jerry Lee Lewis, who sang "It\'ll Be Me."');
    // Among runs holding as many query words, the earliest: the sentences before give the match its context.
    expect(bestExcerpt(passage, words, 140)).toBe(passage.slice(0, passage.indexOf(' The film won')));
  });

  it('gives nothing when no sentence fits or none holds a query word', () => {
    expect(bestExcerpt(passage, queryWords('Who played the singer?'), 20)).toBeNull();
    expect(bestExcerpt(passage, queryWords('budget approval thresholds'), 500)).toBeNull();
  });
});
