import { describe, expect, it } from '@jest/globals';
import { apiKeyId, apiKeyMatches, generateApiKey, hashApiKey } from '../../../src/auth/apiKey.js';
import { hostOfHeader, isLoopbackHost } from '../../../src/auth/loopback.js';
import { parseRole, roleAtLeast } from '../../../src/auth/roles.js';
import { loadConfig } from '../../../src/config.js';
import { RateLimiter } from '../../../src/server/RateLimiter.js';

describe('API keys', () => {
  it('are prefixed, carry 32 random bytes and parse back to their id', () => {
    const keys = Array.from({ length: 50 }, generateApiKey);
    for (const k of keys) {
      expect(k.key).toMatch(/^cairn_[0-9a-f]{16}_[A-Za-z0-9_-]{43}$/);
      expect(Buffer.from(k.key.slice(23), 'base64url')).toHaveLength(32);
      expect(apiKeyId(k.key)).toBe(k.id);
      expect(k.keyHash).toBe(hashApiKey(k.key));
    }
    expect(new Set(keys.map((k) => k.key.slice(23))).size).toBe(50);
  });

  it('match only their own hash', () => {
    const [a, b] = [generateApiKey(), generateApiKey()];
    expect(apiKeyMatches(a.key, a.keyHash)).toBe(true);
    expect(apiKeyMatches(a.key, b.keyHash)).toBe(false);
    expect(apiKeyMatches(a.key, 'abcd')).toBe(false);
    for (const bad of ['', 'cairn_', `${a.key}x`, a.key.replace('cairn_', 'CAIRN_'), `Bearer ${a.key}`])
      expect(apiKeyId(bad)).toBeNull();
  });
});

describe('roles', () => {
  it('are ordered admin > editor > agent > reader and parsed case-insensitively', () => {
    expect(roleAtLeast('admin', 'editor')).toBe(true);
    expect(roleAtLeast('editor', 'agent')).toBe(true);
    expect(roleAtLeast('agent', 'editor')).toBe(false);
    expect(roleAtLeast('reader', 'agent')).toBe(false);
    expect(parseRole('AGENT')).toBe('agent');
    expect(() => parseRole('root')).toThrow('expected one of admin, editor, agent, reader');
  });
});

describe('loopback detection', () => {
  it('accepts localhost and loopback addresses only', () => {
    for (const h of ['127.0.0.1', '127.8.9.10', '::1', '[::1]', 'localhost', '::ffff:127.0.0.1'])
      expect({ h, ok: isLoopbackHost(h) }).toEqual({ h, ok: true });
    for (const h of ['0.0.0.0', '::', '10.0.0.5', 'example.com', 'localhost.evil.com', '', undefined])
      expect({ h, ok: isLoopbackHost(h) }).toEqual({ h, ok: false });
    expect(hostOfHeader('127.0.0.1:4000')).toBe('127.0.0.1');
    expect(hostOfHeader('[::1]:4000')).toBe('[::1]');
    expect(hostOfHeader('localhost')).toBe('localhost');
  });
});

describe('RateLimiter', () => {
  it('allows a burst, refills at the rate and says when to retry', () => {
    let now = 0;
    const limiter = new RateLimiter(2, 3, () => now);
    expect([1, 2, 3].map(() => limiter.take('k').ok)).toEqual([true, true, true]);
    expect(limiter.take('k')).toEqual({ ok: false, retryAfterSeconds: 1 });
    expect(limiter.take('other').ok).toBe(true);
    now = 0.5; // one token back
    expect(limiter.take('k').ok).toBe(true);
    expect(limiter.take('k').ok).toBe(false);
    now = 100; // never more than the burst
    expect([1, 2, 3, 4].map(() => limiter.take('k').ok)).toEqual([true, true, true, false]);
  });

  it('peeks at a bucket without spending from it or creating it', () => {
    let now = 0;
    const limiter = new RateLimiter(1, 2, () => now);
    expect(limiter.peek('a')).toEqual({ ok: true });
    expect(limiter.take('a')).toEqual({ ok: true });
    expect(limiter.take('a')).toEqual({ ok: true });
    expect(limiter.peek('a')).toEqual({ ok: false, retryAfterSeconds: 1 });
    expect(limiter.peek('a')).toEqual({ ok: false, retryAfterSeconds: 1 });
    now = 1;
    expect(limiter.peek('a')).toEqual({ ok: true });
    expect(limiter.take('a')).toEqual({ ok: true });
    expect(new RateLimiter(0, 2).peek('a')).toEqual({ ok: true });
  });

  it('is off when either setting is 0', () => {
    for (const [rate, burst] of [
      [0, 10],
      [10, 0],
    ] as const) {
      const limiter = new RateLimiter(rate, burst, () => 0);
      expect(Array.from({ length: 100 }, () => limiter.take('k').ok).every(Boolean)).toBe(true);
    }
  });
});

describe('security configuration', () => {
  it('has safe defaults and reads every variable', () => {
    const d = loadConfig({});
    expect(d.auth).toEqual({ mode: 'auto' });
    expect(d.graphqlLimits).toEqual({
      maxDepth: 12,
      maxCost: 20000,
      maxAliases: 30,
      maxDirectives: 30,
      maxTokens: 5000,
    });
    expect(d.rateLimit).toEqual({
      perSecond: 50,
      burst: 100,
      failedKeysPerMinute: 60,
      spacePerSecond: 0,
      spaceBurst: 0,
    });
    const c = loadConfig({
      CAIRN_AUTH: 'required',
      CAIRN_GRAPHQL_MAX_DEPTH: '8',
      CAIRN_GRAPHQL_MAX_COST: '900',
      CAIRN_GRAPHQL_MAX_ALIASES: '4',
      CAIRN_GRAPHQL_MAX_DIRECTIVES: '5',
      CAIRN_GRAPHQL_MAX_TOKENS: '700',
      CAIRN_RATE_LIMIT_PER_SECOND: '0.5',
      CAIRN_RATE_LIMIT_BURST: '0',
      CAIRN_RATE_LIMIT_FAILED_KEYS_PER_MINUTE: '7',
      CAIRN_SPACE_RATE_LIMIT_PER_SECOND: '2',
      CAIRN_SPACE_RATE_LIMIT_BURST: '4',
    });
    expect(c.auth.mode).toBe('required');
    expect(c.graphqlLimits).toEqual({ maxDepth: 8, maxCost: 900, maxAliases: 4, maxDirectives: 5, maxTokens: 700 });
    expect(c.rateLimit).toEqual({
      perSecond: 0.5,
      burst: 0,
      failedKeysPerMinute: 7,
      spacePerSecond: 2,
      spaceBurst: 4,
    });
    expect(() => loadConfig({ CAIRN_RATE_LIMIT_FAILED_KEYS_PER_MINUTE: '-1' })).toThrow(
      'CAIRN_RATE_LIMIT_FAILED_KEYS_PER_MINUTE',
    );
    expect(() => loadConfig({ CAIRN_AUTH: 'sometimes' })).toThrow('CAIRN_AUTH');
  });
});
