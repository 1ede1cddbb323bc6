import { describe, expect, it } from '@jest/globals';
import { fileWebUrl } from '../../../importers/sources/kinds/git.js';
import { nextRunAfter, validateSchedule } from '../../../importers/sources/schedule.js';
import { validateNewSource } from '../../../importers/sources/validateSource.js';
import { AppError } from '../../../src/errors.js';

const fails = (fn: () => unknown): AppError => {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    return err as AppError;
  }
  throw new Error('expected an error');
};

describe('source schedules', () => {
  it('takes 5-field cron and the three nicknames, in UTC', () => {
    expect(validateSchedule(' 0  */6 * * * ', 's')).toBe('0 */6 * * *');
    expect(validateSchedule('@Daily', 's')).toBe('@daily');
    expect(validateSchedule('', 's')).toBeNull();
    expect(validateSchedule(null, 's')).toBeNull();
    expect(nextRunAfter('0 */6 * * *', new Date('2026-05-01T05:59:59Z'))?.toISOString()).toBe(
      '2026-05-01T06:00:00.000Z',
    );
    expect(nextRunAfter('@weekly', new Date('2026-05-01T00:00:00Z'))?.toISOString()).toBe('2026-05-03T00:00:00.000Z');
    expect(nextRunAfter(null, new Date())).toBeNull();
  });

  it('refuses six fields, unknown nicknames and out-of-range values, saying what to write', () => {
    expect(fails(() => validateSchedule('0 0 */6 * * *', 'input.schedule')).message).toMatch(
      /^input\.schedule: .*6 fields, not 5.*@hourly/,
    );
    expect(fails(() => validateSchedule('@yearly', 'input.schedule')).message).toMatch(/not a known schedule/);
    expect(fails(() => validateSchedule('0 25 * * *', 'input.schedule')).code).toBe('BAD_USER_INPUT');
  });
});

describe('git file links', () => {
  it('knows GitHub, GitLab and Bitbucket, and nothing else', () => {
    expect(fileWebUrl('https://github.com/acme/docs.git', 'abc123', 'guides/a b.md')).toBe(
      'https://github.com/acme/docs/blob/abc123/guides/a%20b.md',
    );
    expect(fileWebUrl('https://gitlab.com/group/sub/docs.git', 'abc123', 'x.md')).toBe(
      'https://gitlab.com/group/sub/docs/-/blob/abc123/x.md',
    );
    expect(fileWebUrl('https://bitbucket.org/acme/docs', 'abc123', 'x.md')).toBe(
      'https://bitbucket.org/acme/docs/src/abc123/x.md',
    );
    expect(fileWebUrl('https://git.example.com/acme/docs.git', 'abc123', 'x.md')).toBeUndefined();
  });
});

describe('source validation', () => {
  it('names the field and the fix', () => {
    expect(
      fails(() =>
        validateNewSource({ name: 'x', kind: 'GIT', url: 'git://example.com/r.git' }, { folderRoot: undefined }),
      ).message,
    ).toMatch(/^input\.url: /);
    expect(
      fails(() =>
        validateNewSource(
          { name: 'x', kind: 'GIT', url: 'https://example.com/r.git', branch: '--upload-pack=x' },
          { folderRoot: undefined },
        ),
      ).message,
    ).toMatch(/^input\.branch: /);
    expect(
      fails(() => validateNewSource({ name: 'x', kind: 'FOLDER', path: 'docs' }, { folderRoot: undefined })).message,
    ).toMatch(/CAIRN_SOURCES_FOLDER_ROOT/);
    expect(
      fails(() =>
        validateNewSource(
          { name: '', kind: 'OPENAPI', url: 'https://example.com/spec.json' },
          { folderRoot: undefined },
        ),
      ).message,
    ).toMatch(/^input\.name: /);
    expect(
      fails(() =>
        validateNewSource(
          { name: 'x', kind: 'SITE', url: 'https://example.com/', maxPages: 0 },
          { folderRoot: undefined },
        ),
      ).message,
    ).toMatch(/^input\.maxPages: /);
  });

  it('fills the defaults of each kind', () => {
    expect(
      validateNewSource({ name: 'r', kind: 'GIT', url: 'https://example.com/r.git' }, { folderRoot: undefined }),
    ).toMatchObject({
      config: { branch: 'main', include: ['**'], exclude: [] },
      schedule: null,
      syncTimeoutMs: 3_600_000,
    });
    expect(
      validateNewSource(
        { name: 's', kind: 'SITE', url: 'https://example.com/docs/start.html' },
        { folderRoot: undefined },
      ).config,
    ).toEqual({
      url: 'https://example.com/docs/start.html',
      sitemapUrl: null,
      pathPrefix: '/docs/',
      maxPages: 500,
      concurrency: 2,
      delayMs: 250,
    });
    expect(
      validateNewSource({ name: 'f', kind: 'FOLDER', path: 'team/docs' }, { folderRoot: '/srv/knowledge' }).config,
    ).toEqual({ path: '/srv/knowledge/team/docs' });
  });
});
