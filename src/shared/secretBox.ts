import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto';
import { AppError, ErrorCode } from '../errors.js';

/** A secret encrypted at rest with AES-256-GCM under a key derived from CAIRN_SECRET_KEY (base64 fields). */
export interface SealedSecret {
  v: 1;
  /** Which configured key sealed it (a hash of the derived key, not the key). */
  keyId: string;
  iv: string;
  tag: string;
  data: string;
}

interface DerivedKey {
  id: string;
  key: Buffer;
}

/** The AES key of a configured secret: HKDF-SHA256, so any long random string (not only 32 raw bytes) serves. */
function derive(secret: string): DerivedKey {
  const key = Buffer.from(hkdfSync('sha256', Buffer.from(secret, 'utf8'), 'cairn-secret-box', 'aes-256-gcm v1', 32));
  return { id: createHash('sha256').update(key).digest('hex').slice(0, 16), key };
}

/** True when a stored value has the shape of a sealed secret. */
export function isSealedSecret(value: unknown): value is SealedSecret {
  const v = value as Partial<SealedSecret> | null;
  return (
    typeof v === 'object' &&
    v !== null &&
    v.v === 1 &&
    [v.keyId, v.iv, v.tag, v.data].every((f) => typeof f === 'string')
  );
}

/**
 * Seals and opens secrets stored in the database (deploy keys of GIT sources). `current` seals; `current` and
 * `previous` open, so a key can be rotated: set the new one, keep the old one in previous until everything sealed
 * under it was sealed again (`stale`). Each secret is bound to a context (e.g. its source), so a sealed value copied
 * to another row does not open there.
 */
export class SecretBox {
  private readonly current: DerivedKey | undefined;
  private readonly keys: Map<string, DerivedKey>;

  constructor(current: string | undefined, previous: readonly string[] = []) {
    this.current = current === undefined ? undefined : derive(current);
    this.keys = new Map([...(this.current ? [this.current] : []), ...previous.map(derive)].map((k) => [k.id, k]));
  }

  /** Whether secrets can be sealed (CAIRN_SECRET_KEY is set). */
  get enabled(): boolean {
    return this.current !== undefined;
  }

  seal(plain: string, context: string): SealedSecret {
    if (!this.current) throw missingSecretKey();
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.current.key, iv);
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const data = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return {
      v: 1,
      keyId: this.current.id,
      iv: iv.toString('base64'),
      tag: cipher.getAuthTag().toString('base64'),
      data: data.toString('base64'),
    };
  }

  /** The plain secret, and whether it was sealed under a previous key (seal it again with `seal`). */
  open(sealed: SealedSecret, context: string): { plain: string; stale: boolean } {
    const key = this.keys.get(sealed.keyId);
    if (!key) {
      if (!this.current) throw missingSecretKey();
      throw new AppError(
        ErrorCode.CONFIG_INVALID,
        `a stored secret was sealed with a key this server does not have (key id ${sealed.keyId}): put the old CAIRN_SECRET_KEY into CAIRN_SECRET_KEY_PREVIOUS, or give the secret again`,
        { keyId: sealed.keyId },
      );
    }
    try {
      const decipher = createDecipheriv('aes-256-gcm', key.key, Buffer.from(sealed.iv, 'base64'));
      decipher.setAAD(Buffer.from(context, 'utf8'));
      decipher.setAuthTag(Buffer.from(sealed.tag, 'base64'));
      const plain = Buffer.concat([decipher.update(Buffer.from(sealed.data, 'base64')), decipher.final()]).toString(
        'utf8',
      );
      return { plain, stale: key !== this.current };
    } catch {
      throw new AppError(
        ErrorCode.CONFIG_INVALID,
        'a stored secret does not decrypt (it was changed, or belongs to another record): give the secret again',
        { keyId: sealed.keyId },
      );
    }
  }
}

function missingSecretKey(): AppError {
  return new AppError(
    ErrorCode.CONFIG_INVALID,
    'secrets (deploy keys) are stored encrypted with CAIRN_SECRET_KEY, which is not set on this server: set it to at least 32 random characters (e.g. `openssl rand -base64 32`)',
  );
}
