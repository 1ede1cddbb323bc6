import { PassThrough } from 'node:stream';
import { describe, expect, it } from '@jest/globals';
import { createLogger, wantsPrettyLogs } from '../../../src/logger.js';

describe('server logs', () => {
  it('are pretty for a person at a terminal, JSON in production or into a pipe', () => {
    expect(wantsPrettyLogs('development', true)).toBe(true);
    expect(wantsPrettyLogs('test', true)).toBe(true);
    expect(wantsPrettyLogs('production', true)).toBe(false);
    expect(wantsPrettyLogs('development', false)).toBe(false);
  });

  it('print one readable line per entry when pretty', () => {
    const out = new PassThrough();
    let text = '';
    out.on('data', (d: Buffer) => (text += d.toString()));
    const logger = createLogger('info', { pretty: true, destination: out });
    logger.info({ url: 'http://127.0.0.1:4000/graphql' }, 'Cairn is ready');
    logger.debug('below the level');
    expect(text).toMatch(
      /^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: Cairn is ready\n\s+url: "http:\/\/127\.0\.0\.1:4000\/graphql"\n$/,
    );
  });
});
