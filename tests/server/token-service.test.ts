import { afterEach, describe, expect, it, vi } from 'vitest';
import { KeyRing, kidOf } from '../../server/src/lib/key-ring.ts';
import { TokenError, TokenService, type AccessClaims } from '../../server/src/lib/tokens.ts';

const OLD = 'old-signing-secret-0123456789abcdef';
const NEW = 'new-signing-secret-0123456789abcdef';
const CLAIMS: AccessClaims = { sub: '7', username: 'analyste', is_staff: false, is_superuser: false, sid: 's' };

/**
 * Issue 18: an access token's signature is checked once and the result kept, since every call of a session presents
 * the same token. What is kept must never outlive what made the token valid: its expiry and its key.
 */
describe('TokenService keeps checked access tokens', () => {
  afterEach(() => vi.useRealTimers());

  it('accepts a checked token again, and refuses it once its key left the ring', async () => {
    let ring = new KeyRing({ kid: kidOf(OLD), secret: OLD });
    const tokens = new TokenService(() => ring);
    const token = await tokens.signAccess(CLAIMS);
    expect(await tokens.verifyAccess(token)).toMatchObject({ sub: '7', username: 'analyste' });
    expect(await tokens.verifyAccess(token)).toMatchObject({ sub: '7' });

    // A rotation that keeps the old key: still valid.
    ring = new KeyRing({ kid: kidOf(NEW), secret: NEW }, [{ kid: kidOf(OLD), secret: OLD }]);
    expect(await tokens.verifyAccess(token)).toMatchObject({ sub: '7' });
    // The old key retired: the kept check goes with it.
    ring = new KeyRing({ kid: kidOf(NEW), secret: NEW });
    await expect(tokens.verifyAccess(token)).rejects.toBeInstanceOf(TokenError);
  });

  it('refuses a checked token once it expired', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-11-28T10:00:00Z'));
    const tokens = new TokenService(OLD);
    const token = await tokens.signAccess(CLAIMS, 60);
    expect(await tokens.verifyAccess(token)).toMatchObject({ sub: '7' });
    vi.setSystemTime(new Date('2026-11-28T10:00:59Z'));
    expect(await tokens.verifyAccess(token)).toMatchObject({ sub: '7' });
    vi.setSystemTime(new Date('2026-11-28T10:01:00Z'));
    await expect(tokens.verifyAccess(token)).rejects.toThrow('token expired');
  });

  it('checks a token that differs from a kept one in any character', async () => {
    const tokens = new TokenService(OLD);
    const token = await tokens.signAccess(CLAIMS);
    await tokens.verifyAccess(token);
    const [header, payload, signature] = token.split('.') as [string, string, string];
    const forged = JSON.parse(Buffer.from(payload, 'base64url').toString()) as Record<string, unknown>;
    const otherPayload = Buffer.from(JSON.stringify({ ...forged, is_superuser: true })).toString('base64url');
    await expect(tokens.verifyAccess(`${header}.${otherPayload}.${signature}`)).rejects.toThrow('invalid token');
    const flipped = signature.slice(0, -2) + (signature.endsWith('AA') ? 'BB' : 'AA');
    await expect(tokens.verifyAccess(`${header}.${payload}.${flipped}`)).rejects.toThrow('invalid token');
    // A refresh token is not an access token, kept or not.
    const refresh = await tokens.signRefresh({ sub: '7', jti: 'j', fam: 'f' });
    await expect(tokens.verifyAccess(refresh)).rejects.toThrow('wrong token type');
  });
});
