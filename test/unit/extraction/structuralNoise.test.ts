import { describe, expect, it } from '@jest/globals';
import { classifyCode } from '../../../src/extraction/structural/classifyCode.js';

describe('classifyCode: members of runtime modules', () => {
  it('takes a member of a Node core module for an API, not a config key', () => {
    expect(classifyCode('fs.readFile')).toEqual([{ name: 'fs.readFile', type: 'Api', confidence: 0.85 }]);
    expect(classifyCode('path.resolve')[0]?.type).toBe('Api');
    expect(classifyCode('server.port')[0]?.type).toBe('ConfigOption');
  });
});
