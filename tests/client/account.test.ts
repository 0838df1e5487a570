import { describe, expect, it } from 'vitest';
import { securityPolicies } from '../../server/src/db/schema.ts';
import { TEST_PASSWORD } from '../server/helpers.ts';
import { useVigieClient } from './harness.ts';
import { login } from '../../src/features/auth/api/login.ts';
import { createAdminAccount, FormError, register, updateMyProfile } from '../../src/lib/auth/account.ts';
import { session } from '../../src/lib/auth/session.ts';

const { t, seen } = useVigieClient('/settings');

const failure = (p: Promise<unknown>) => p.then(() => undefined).catch((e: unknown) => e as FormError);

describe('register (spec §5, §8) against the Vigie server', () => {
  it('checks required fields before calling the server', async () => {
    const err = await failure(register({ username: '', email: '', password: '' }));
    expect(err).toBeInstanceOf(FormError);
    expect(err!.message).toBe("Nom d'utilisateur requis");
    expect(err!.fields).toEqual({
      username: "Nom d'utilisateur requis",
      email: 'Email requis',
      password: 'Mot de passe requis',
    });
    expect(seen.requests).toEqual([]);
  });

  it('creates the account, sending confirm_password equal to the password by default', async () => {
    const profile = await register({
      username: 'nouveau',
      email: 'nouveau@client.fr',
      password: 'un-mot-de-passe-solide',
    });
    expect(profile.username).toBe('nouveau');
    const again = await login({ username: 'nouveau', password: 'un-mot-de-passe-solide' });
    expect(again.email).toBe('nouveau@client.fr');
  });

  it('gives "Un compte avec cet email existe déjà" on a 409', async () => {
    const err = await failure(
      register({ username: 'autre', email: 'claire.dubois@acme-securite.fr', password: 'un-mot-de-passe-solide' }),
    );
    expect(err!.status).toBe(409);
    expect(err!.message).toBe('Un compte avec cet email existe déjà');
  });

  it('prefixes the server’s field message with the spec §8 label on a 400', async () => {
    const err = await failure(register({ username: 'x y', email: 'pas-un-email', password: 'un-mot-de-passe-solide' }));
    expect(err!.status).toBe(400);
    expect(err!.message).toMatch(/^(Nom d'utilisateur invalide : |Email invalide : ).+/);
  });

  it('gives "Création de compte non autorisée" when registration is closed', async () => {
    await t.database.db.update(securityPolicies).set({ allowRegistration: false });
    const err = await failure(
      register({ username: 'ferme', email: 'ferme@client.fr', password: 'un-mot-de-passe-solide' }),
    );
    await t.database.db.update(securityPolicies).set({ allowRegistration: true });
    expect(err!.status).toBe(403);
    expect(err!.message).toBe('Création de compte non autorisée');
    expect(seen.navigations).toEqual([]);
  });
});

describe('admin account creation (spec §5, §8)', () => {
  it('validates locally with the spec §5 messages', async () => {
    await expect(createAdminAccount({ username: 'a', email: '', password: 'x' })).rejects.toThrow(
      'Tous les champs requis doivent être remplis',
    );
    await expect(createAdminAccount({ username: 'a', email: 'a@b.fr', password: 'court' })).rejects.toThrow(
      'Le mot de passe doit contenir au moins 8 caractères',
    );
    expect(seen.requests).toEqual([]);
  });

  it('is refused to a manager with "Création de compte admin non autorisée" and no redirect', async () => {
    await login({ username: 'manager', password: TEST_PASSWORD });
    const err = await failure(
      createAdminAccount({ username: 'chef', email: 'chef@acme.fr', password: 'un-mot-de-passe-solide' }),
    );
    expect(err!.status).toBe(403);
    expect(err!.message).toBe('Création de compte admin non autorisée');
    await new Promise((r) => setTimeout(r, 150));
    expect(seen.navigations).toEqual([]);
  });

  it('lets a superuser create an administrator, sending is_staff and is_superuser', async () => {
    await login({ username: 'admin', password: TEST_PASSWORD });
    const created = await createAdminAccount({
      username: 'chef2',
      email: 'chef2@acme.fr',
      password: 'un-mot-de-passe-solide',
    });
    expect(created).toMatchObject({ username: 'chef2', is_staff: true, is_superuser: true });
  });
});

describe('profile update', () => {
  it('says "Utilisateur non authentifié." without a session', async () => {
    await expect(updateMyProfile({ first_name: 'X' })).rejects.toThrow('Utilisateur non authentifié.');
  });

  it('saves the fields and updates the stored profile', async () => {
    await login({ username: 'analyste', password: TEST_PASSWORD });
    await updateMyProfile({ first_name: 'Marcel' });
    expect(session.value!.profile.first_name).toBe('Marcel');
  });
});
