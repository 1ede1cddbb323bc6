import { describe, expect, it } from '@jest/globals';
import { AppError } from '../../../src/errors.js';
import { SecretBox } from '../../../src/shared/secretBox.js';

const OLD = 'an-old-secret-key-with-at-least-32-characters';
const NEW = 'a-new-secret-key-with-at-least-32-characters!';

const failure = (fn: () => unknown): AppError => {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    return err as AppError;
  }
  throw new Error('expected a failure');
};

describe('SecretBox', () => {
  it('seals with AES-256-GCM: fresh IV each time, no clear text, opens only in its own context', () => {
    const box = new SecretBox(OLD);
    const a = box.seal('deploy key text', 'source:1:deploy-key');
    const b = box.seal('deploy key text', 'source:1:deploy-key');
    expect(a.iv).not.toBe(b.iv);
    expect(Buffer.from(a.data, 'base64').toString('utf8')).not.toContain('deploy key');
    expect(box.open(a, 'source:1:deploy-key')).toEqual({ plain: 'deploy key text', stale: false });
    expect(failure(() => box.open(a, 'source:2:deploy-key')).message).toMatch(/does not decrypt/);
    expect(
      failure(() =>
        box.open({ ...a, data: b.data.replace(/^./, (c) => (c === 'A' ? 'B' : 'A')) }, 'source:1:deploy-key'),
      ).code,
    ).toBe('CONFIG_INVALID');
  });

  it('opens secrets of a previous key as stale, and names the key id when no configured key fits', () => {
    const sealed = new SecretBox(OLD).seal('k', 'c');
    expect(new SecretBox(NEW, [OLD]).open(sealed, 'c')).toEqual({ plain: 'k', stale: true });
    expect(failure(() => new SecretBox(NEW).open(sealed, 'c')).message).toMatch(
      new RegExp(`key id ${sealed.keyId}.*CAIRN_SECRET_KEY_PREVIOUS`),
    );
  });

  it('without CAIRN_SECRET_KEY it seals nothing and says how to set it', () => {
    const box = new SecretBox(undefined);
    expect(box.enabled).toBe(false);
    expect(failure(() => box.seal('k', 'c')).message).toMatch(/CAIRN_SECRET_KEY, which is not set.*openssl rand/);
  });
});
