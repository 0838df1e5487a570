import { describe, expect, it } from 'vitest';
import { useVigieClient } from './harness.ts';
import { apiRequest } from '../../src/lib/api-client.ts';
import {
  login,
  LoginError,
  loginErrorNotice,
  loginFormError,
  LOGIN_MESSAGES,
} from '../../src/features/auth/api/login.ts';
import { clearSession, session } from '../../src/lib/auth/session.ts';
import { totpNow } from '../../server/src/lib/totp.ts';
import { TEST_PASSWORD } from '../server/helpers.ts';

const { seen } = useVigieClient('/login');

const refused = (promise: Promise<unknown>) => promise.then(() => expect.fail('signed in')).catch((e: unknown) => e);

describe('spec §8 login texts from the Vigie server, as the form shows them', () => {
  it('row 8.1: a wrong password is « Invalid credentials » (400), shown exactly, then its French sense', async () => {
    const err = await refused(login({ username: 'manager', password: 'wrong' }));
    expect(err).toBeInstanceOf(LoginError);
    expect((err as LoginError).status).toBe(400);
    expect(loginErrorNotice(err)).toEqual({
      spec: 'Invalid credentials',
      french: 'identifiants invalides : vérifiez le nom d’utilisateur et le mot de passe.',
    });
  });

  it('row 8.4: an account with two-factor sign-in is « Two-factor authentication required » (403); a wrong code is the server’s refusal', async () => {
    // analyste turns two-factor sign-in on.
    await login({ username: 'analyste', password: TEST_PASSWORD });
    const { secret } = await apiRequest<{ secret: string }>('/accounts/2fa/enable/', { method: 'POST' });
    await apiRequest('/accounts/2fa/verify/', { method: 'POST', body: { token: totpNow(secret) } });
    await clearSession();

    const before = seen.requests.length;
    const ask = await refused(login({ username: 'analyste', password: TEST_PASSWORD }));
    expect(ask).toBeInstanceOf(LoginError);
    expect((ask as LoginError).status).toBe(403);
    expect((ask as LoginError).twoFactorRequired).toBe(true);
    expect((ask as LoginError).message).toBe(LOGIN_MESSAGES.twoFactor);
    expect(loginErrorNotice(ask)).toEqual({
      spec: 'Two-factor authentication required',
      french: 'double authentification requise : saisissez le code de votre application.',
    });
    // The account wants a code: no other endpoint of the chain is tried.
    expect(seen.requests.slice(before).map((r) => r.path)).toEqual(['/api/token/']);

    const wrongCode = totpNow(secret) === '000000' ? '111111' : '000000';
    const wrong = await refused(login({ username: 'analyste', password: TEST_PASSWORD, otp: wrongCode }));
    expect((wrong as LoginError).twoFactorRequired).toBe(true);
    expect(loginErrorNotice(wrong)).toEqual({ french: 'Code de vérification invalide.' });

    const profile = await login({ username: 'analyste', password: TEST_PASSWORD, otp: totpNow(secret) });
    expect(profile.username).toBe('analyste');
    expect(session.value?.profile.username).toBe('analyste');
  });

  it('row 5.2: « Identifiants incomplets » when the form has neither field, before anything is sent', () => {
    expect(loginFormError({ username: '', password: '' })).toBe('Identifiants incomplets');
    expect(loginFormError({ username: '  ', password: '' })).toBe('Identifiants incomplets');
    expect(seen.requests).toEqual([]);
  });
});
