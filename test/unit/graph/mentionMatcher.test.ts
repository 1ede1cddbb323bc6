import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { MentionMatcher, foldForMatching } from '../../../src/graph/mentions/MentionMatcher.js';

const matcher = (...names: (string | [string, ...string[]])[]): MentionMatcher =>
  new MentionMatcher(
    names.map((n, i) =>
      typeof n === 'string'
        ? { entityId: `e${i}`, name: n, aliases: [] }
        : { entityId: `e${i}`, name: n[0], aliases: n.slice(1) },
    ),
  );
const found = (m: MentionMatcher, text: string): string[] => [...m.entitiesIn(text)].sort();

describe('MentionMatcher', () => {
  it('matches case-insensitively on whole words', () => {
    const m = matcher('ACH');
    expect(found(m, 'ach returns spiked')).toEqual(['e0']);
    expect(found(m, 'See (ACH).')).toEqual(['e0']);
    expect(found(m, "the ACH's retries")).toEqual(['e0']);
    expect(found(m, 'achievements')).toEqual([]);
    expect(found(m, 'ACH2 and ACH_x and xACH')).toEqual([]);
  });

  it('finds names and aliases, several per text, each entity once', () => {
    const m = matcher(['payment service', 'payments-api'], 'ledger', 'Ledger DB');
    expect(
      found(m, 'The Payment Service writes to the ledger; payments-api reads the LEDGER db twice: ledger.'),
    ).toEqual(['e0', 'e1', 'e2']);
    expect(found(m, 'payment  service')).toEqual([]);
  });

  it('needs no boundary at an edge that is punctuation, so C++ and .NET match as written', () => {
    const m = matcher('C++', '.NET');
    expect(found(m, 'written in C++, ported to ASP.NET')).toEqual(['e0', 'e1']);
    expect(found(m, 'written in C, not NET')).toEqual([]);
  });

  it('folds compatibility forms and case like Unicode full case folding', () => {
    expect(found(matcher('ACH'), 'ＡＣＨ outage')).toEqual(['e0']);
    expect(found(matcher('STRASSE'), 'die Straße')).toEqual(['e0']);
    expect(found(matcher('Straße'), 'DIE STRASSE')).toEqual(['e0']);
    expect(found(matcher('café'), 'the cafe\u0301 opens')).toEqual(['e0']);
    expect(found(matcher('cafe'), 'the café opens')).toEqual(['e0']);
    expect(found(matcher('Beyoncé'), 'BEYONCE sings')).toEqual(['e0']);
    expect(found(matcher('ΟΔΟΣ'), 'μια οδος')).toEqual(['e0']);
  });

  it('matches a name with a trailing disambiguator without it; a one-word remainder only when capitalised', () => {
    const m = matcher('Shirley Temple (actress)', 'Big (film)', 'Up (2009 film)');
    expect(found(m, 'Shirley Temple was born in 1928')).toEqual(['e0']);
    expect(found(m, 'shirley temple (actress) again')).toEqual(['e0']);
    expect(found(m, 'Big stars in it')).toEqual(['e1']);
    expect(found(m, 'a big house, up the hill')).toEqual([]);
    expect(found(m, 'Up (2009 film) and Up')).toEqual(['e2']);
  });

  it('reports where each name matched, longer and shorter overlapping names alike', () => {
    const m = matcher('Shirley Temple', 'Temple');
    expect(m.matchesIn('Is Shirley Temple tall?').map((x) => [x.entityId, x.start, x.end, x.pattern])).toEqual([
      ['e0', 3, 17, 'shirley temple'],
      ['e1', 11, 17, 'temple'],
    ]);
  });

  it('keeps superscripts and subscripts as written, outside words', () => {
    expect(found(matcher('Ca'), 'influx of Ca²⁺ ions')).toEqual(['e0']);
    expect(found(matcher('CO₂'), 'CO₂ levels')).toEqual(['e0']);
    expect(found(matcher('CO₂'), 'CO levels')).toEqual([]);
    expect(foldForMatching('Ca²⁺')).toBe('ca²+');
  });

  it('matches inside scripts written without spaces, and next to them', () => {
    expect(found(matcher('北京'), '我在北京工作')).toEqual(['e0']);
    expect(found(matcher('ACH'), '支付ACH失败')).toEqual(['e0']);
    expect(found(matcher('ACH'), '🚀ACH🚀')).toEqual(['e0']);
    expect(found(matcher('ACH'), '𝐱ACH')).toEqual([]);
  });

  it('ignores names shorter than two characters and finds nothing without names', () => {
    expect(found(matcher('a', ' b '), 'a b c')).toEqual([]);
    expect(found(new MentionMatcher([]), 'anything')).toEqual([]);
  });

  it('agrees with a regular-expression reference on ASCII text', () => {
    const word = fc.constantFrom('ach', 'ACH', 'Ach', 'ledger', 'Ledger', 'api', 'x', 'ach2', 'payments', 'svc');
    const separator = fc.constantFrom(' ', '  ', '-', '_', '.', "'", ', ', '(', ')', '\n', '');
    const text = fc
      .array(fc.tuple(word, separator), { maxLength: 30 })
      .map((parts) => parts.map(([w, s]) => w + s).join(''));
    const name = fc.array(word, { minLength: 1, maxLength: 3 }).map((ws) => ws.join(' '));
    const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    fc.assert(
      fc.property(
        fc.uniqueArray(name, { minLength: 1, maxLength: 6, selector: (n) => n.toLowerCase() }),
        text,
        (candidates, t) => {
          const names = candidates.filter((n) => n.length >= 2);
          const expected = names.flatMap((n, i) =>
            new RegExp(`(?<![a-z0-9_])${escape(n.toLowerCase())}(?![a-z0-9_])`).test(t.toLowerCase()) ? [`e${i}`] : [],
          );
          expect(found(matcher(...names), t)).toEqual(expected.sort());
        },
      ),
    );
  });
});
