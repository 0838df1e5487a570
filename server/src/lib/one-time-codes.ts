/** Secrets handed out once (reset links, e-mail confirmations, 2FA recovery codes): only their digest is stored. */
import { createHash, randomInt } from 'node:crypto';

/** A leaked table hands out nothing that works: what is kept of a one-time secret. */
export const digestOf = (secret: string): string => createHash('sha256').update(secret).digest('hex');

/** No 0/O, 1/l/i: read off paper and typed back. */
const ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789';
export const RECOVERY_CODE_COUNT = 10;
const RECOVERY_CODE_RE = /^[a-hj-km-np-z2-9]{5}-?[a-hj-km-np-z2-9]{5}$/;

/** One recovery code, `xxxxx-xxxxx` (ten characters of 31: about 50 bits). */
export function newRecoveryCode(): string {
  let code = '';
  for (let i = 0; i < 10; i++) code += ALPHABET[randomInt(ALPHABET.length)];
  return `${code.slice(0, 5)}-${code.slice(5)}`;
}

/** A typed recovery code in the form it was issued (case, spaces and the dash forgiven), or undefined. */
export function normalRecoveryCode(typed: string): string | undefined {
  const compact = typed.trim().toLowerCase().replace(/\s+/g, '');
  if (!RECOVERY_CODE_RE.test(compact)) return undefined;
  const bare = compact.replace('-', '');
  return `${bare.slice(0, 5)}-${bare.slice(5)}`;
}
