import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

// A key reads `cairn_<id>_<secret>`: the id (8 random bytes, hex) finds the row and is safe to show and log;
// the secret is 32 random bytes (base64url). Only a SHA-256 of the whole key is stored: with 256 bits of
// entropy a slow password hash would add nothing.

/** Recognisable start of every Cairn API key (secret scanners and humans can spot a leaked one). */
export const API_KEY_PREFIX = 'cairn_';

const KEY_PATTERN = /^cairn_([0-9a-f]{16})_([A-Za-z0-9_-]{43})$/;

/** A freshly generated key: `key` is shown once, `keyHash` is what the database keeps. */
export interface GeneratedApiKey {
  id: string;
  key: string;
  keyHash: string;
}

/** SHA-256 of a key, hex. */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** Generates a new random key with its id and hash. */
export function generateApiKey(): GeneratedApiKey {
  const id = randomBytes(8).toString('hex');
  const key = `${API_KEY_PREFIX}${id}_${randomBytes(32).toString('base64url')}`;
  return { id, key, keyHash: hashApiKey(key) };
}

/** The id inside a well-formed key, or null for anything else. */
export function apiKeyId(key: string): string | null {
  return KEY_PATTERN.exec(key)?.[1] ?? null;
}

/** Compares a presented key with a stored hash in constant time. */
export function apiKeyMatches(key: string, storedHash: string): boolean {
  const presented = Buffer.from(hashApiKey(key), 'hex');
  const stored = Buffer.from(storedHash, 'hex');
  return presented.length === stored.length && timingSafeEqual(presented, stored);
}
