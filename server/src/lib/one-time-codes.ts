/** Secrets handed out once (reset links, e-mail confirmations, 2FA recovery codes): only their digest is stored. */
import { createHash, randomBytes, randomInt } from 'node:crypto';

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

/** A wall screen's pairing code alphabet: capitals and digits without 0/O, 1/I/L, read across a room. */
const PAIRING_ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';
const PAIRING_CODE_RE = /^[A-HJKMNP-Z2-9]{8}$/;

/** A pairing code, `K7QH-4MZP` (eight characters of 31: about 40 bits, tried at most 10 times per approver). */
export function newPairingCode(): string {
  let code = '';
  for (let i = 0; i < 8; i++) code += PAIRING_ALPHABET[randomInt(PAIRING_ALPHABET.length)];
  return `${code.slice(0, 4)}-${code.slice(4)}`;
}

/** A typed pairing code as its digest is taken (any case, dash and spaces forgiven), or undefined. */
export function normalPairingCode(typed: string): string | undefined {
  const compact = typed.toUpperCase().replace(/[\s-]+/g, '');
  return PAIRING_CODE_RE.test(compact) ? compact : undefined;
}

/** A secret of 32 random bytes in base64url (43 characters), after `prefix`. */
export const newSecret = (prefix = ''): string => `${prefix}${randomBytes(32).toString('base64url')}`;
