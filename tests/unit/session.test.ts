import { beforeEach, describe, expect, it } from 'vitest';
import {
  clearSession,
  displayName,
  greetingName,
  isAuthenticated,
  restoreSession,
  saveSession,
  session,
} from '../../src/features/auth/session.ts';
import { closeStorage, kvGet } from '../../src/lib/storage.ts';

const profile = { id: 7, username: 'manager', email: 'claire@acme.fr', first_name: 'Claire', last_name: 'Dubois' };

beforeEach(async () => {
  await closeStorage();
  await new Promise<void>((resolve) => {
    const req = indexedDB.deleteDatabase('vigie');
    req.onsuccess = () => resolve();
    req.onerror = () => resolve();
  });
  session.value = undefined;
});

describe('session persistence', () => {
  it('survives a reload through IndexedDB', async () => {
    const tokens = { access_token: 'a.b.c', refresh_token: 'd.e.f', expires_at: Date.now() + 3_600_000 };
    await saveSession({ tokens, profile });
    expect(isAuthenticated.value).toBe(true);

    session.value = undefined; // what a reload starts from
    await restoreSession();
    expect(session.value).toEqual({ tokens, profile });
    expect(isAuthenticated.value).toBe(true);
  });

  it('does not restore an expired session', async () => {
    await saveSession({
      tokens: { access_token: 'a.b.c', refresh_token: 'd.e.f', expires_at: Date.now() - 1 },
      profile,
    });
    await restoreSession();
    expect(session.value).toBeNull();
    expect(isAuthenticated.value).toBe(false);
  });

  it('forgets everything on clear', async () => {
    await saveSession({
      tokens: { access_token: 'a.b.c', refresh_token: 'd.e.f', expires_at: Date.now() + 1000 },
      profile,
    });
    await clearSession();
    expect(session.value).toBeNull();
    expect(await kvGet('session')).toBeUndefined();
  });
});

describe('display names (§5)', () => {
  it('falls back from username to preferred username, name, email local part, then Utilisateur', () => {
    expect(displayName({ username: 'jdoe', name: 'John' })).toBe('jdoe');
    expect(displayName({ username: ' ', preferred_username: 'johnny' })).toBe('johnny');
    expect(displayName({ name: 'John Doe' })).toBe('John Doe');
    expect(displayName({ email: 'john.doe@example.org' })).toBe('john.doe');
    expect(displayName({})).toBe('Utilisateur');
    expect(displayName(null)).toBe('Utilisateur');
  });

  it('greets by full name when known', () => {
    expect(greetingName(profile)).toBe('Claire Dubois');
    expect(greetingName({ id: 1, username: 'ops', email: 'ops@x.fr' })).toBe('ops');
  });
});
