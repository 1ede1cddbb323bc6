import { describe, expect, it } from '@jest/globals';
import { classifyCode } from '../../../src/extraction/structural/classifyCode.js';
import { extractAcronyms } from '../../../src/extraction/structural/terms.js';

describe('classifyCode: members of runtime modules', () => {
  it('takes a member of a Node core module for an API, not a config key', () => {
    expect(classifyCode('fs.readFile')).toEqual([{ name: 'fs.readFile', type: 'Api', confidence: 0.85 }]);
    expect(classifyCode('path.resolve')[0]?.type).toBe('Api');
    expect(classifyCode('server.port')[0]?.type).toBe('ConfigOption');
  });
});

describe('extractAcronyms: an acronym that is a common word is no alias', () => {
  // Names are matched without regard to case: "OF" would be found in every passage that says "of".
  it('keeps the expansion but not "OF", "ARE" or "IS" as its alias', () => {
    const text =
      'Osteitis fibrosa (OF) was seen. The AU-rich element (ARE) binds HuR. The immunological synapse (IS) forms.';
    const found = extractAcronyms(text, text);
    expect(found.map((c) => [c.name, c.aliases])).toEqual([
      ['Osteitis fibrosa', []],
      ['AU-rich element', []],
      ['immunological synapse', []],
    ]);
  });

  it('keeps an acronym that is no common word', () => {
    const text = 'Continuous ambulatory peritoneal dialysis (CAPD) was used. Hot Module Replacement (HMR) helps.';
    expect(extractAcronyms(text, text).map((c) => c.aliases)).toEqual([['CAPD'], ['HMR']]);
  });
});
