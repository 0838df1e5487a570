import { createCipheriv, createDecipheriv, createHash, createHmac, randomBytes } from 'node:crypto';
import { ringOf, type KeyEntry, type KeySource } from './key-ring.ts';

const keyBytes = (key: KeyEntry) => createHash('sha256').update(key.secret).digest();

/**
 * AES-256-GCM for secrets at rest (TOTP seeds). Format: v2.<kid>.<iv>.<tag>.<ciphertext> (base64url), the key id
 * naming the sealing key so that a rotated key still opens what it sealed; v1.<iv>.<tag>.<ciphertext>, sealed before
 * key ids, is opened with whichever key of the ring fits.
 */
export class SecretBox {
  readonly #ring;

  constructor(keys: KeySource) {
    this.#ring = ringOf(keys);
  }

  seal(plain: string): string {
    const key = this.#ring().current;
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', keyBytes(key), iv);
    const data = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    const tag = cipher.getAuthTag();
    return ['v2', key.kid, iv.toString('base64url'), tag.toString('base64url'), data.toString('base64url')].join('.');
  }

  /** Whether `sealed` was sealed with another key than the current one (a rotation re-seals it). */
  isStale(sealed: string): boolean {
    const [v, kid] = sealed.split('.');
    return v !== 'v2' || kid !== this.#ring().current.kid;
  }

  /** A keyed digest: stable across restarts, unguessable without the key (hashes of bodies holding secrets). */
  mac(text: string): string {
    return createHmac('sha256', keyBytes(this.#ring().current)).update(text).digest('hex');
  }

  open(sealed: string): string {
    const parts = sealed.split('.');
    if (parts[0] === 'v2' && parts.length === 5) {
      const key = this.#ring().get(parts[1]!);
      if (!key) throw new Error('unreadable sealed secret: unknown key');
      return decrypt(key, parts[2]!, parts[3]!, parts[4]!);
    }
    const [v, iv, tag, data] = parts;
    if (v !== 'v1' || !iv || !tag || data === undefined || parts.length !== 4) {
      throw new Error('unreadable sealed secret');
    }
    for (const key of this.#ring().all()) {
      try {
        return decrypt(key, iv, tag, data);
      } catch {
        // Not this key: try the next one.
      }
    }
    throw new Error('unreadable sealed secret');
  }
}

function decrypt(key: KeyEntry, iv: string, tag: string, data: string): string {
  const decipher = createDecipheriv('aes-256-gcm', keyBytes(key), Buffer.from(iv, 'base64url'));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8');
}
