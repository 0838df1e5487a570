import { Secret, TOTP } from 'otpauth';

const ISSUER = 'Vigie';

export function newTotpSecret(): string {
  return new Secret({ size: 20 }).base32;
}

export function totpUri(secretBase32: string, account: string): string {
  return new TOTP({ issuer: ISSUER, label: account, secret: Secret.fromBase32(secretBase32) }).toString();
}

/** Accepts the current 30 s step and one on either side (clock drift). */
export function verifyTotp(secretBase32: string, token: string, timestamp = Date.now()): boolean {
  if (!/^\d{6}$/.test(token)) return false;
  const totp = new TOTP({ issuer: ISSUER, secret: Secret.fromBase32(secretBase32) });
  return totp.validate({ token, window: 1, timestamp }) !== null;
}

export function totpNow(secretBase32: string, timestamp = Date.now()): string {
  return new TOTP({ issuer: ISSUER, secret: Secret.fromBase32(secretBase32) }).generate({ timestamp });
}
