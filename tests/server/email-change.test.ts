import { beforeAll, describe, expect, it } from 'vitest';
import { desc, eq } from 'drizzle-orm';
import { emailChanges, mailOutbox, users } from '../../server/src/db/schema.ts';
import { TEST_PASSWORD } from './helpers.ts';
import { jsonOf, signedIn, type Session } from './support/api.ts';
import { backend, useTestApp } from './support/app.ts';
import { auditEventsOf } from './support/world.ts';

const CONFIRM = '/api/accounts/email/confirm/';
const LINK_INVALID = 'Lien de confirmation invalide ou expiré.';

describe(`e-mail change (${backend})`, () => {
  const t = useTestApp();
  let analyste: Session;
  beforeAll(async () => {
    analyste = await signedIn(t.app, 'analyste');
  });

  const emailOf = async (username: string) =>
    (await t.database.db.select({ email: users.email }).from(users).where(eq(users.username, username)))[0]!.email;
  const lastMailTo = async (recipient: string) =>
    (
      await t.database.db
        .select()
        .from(mailOutbox)
        .where(eq(mailOutbox.recipient, recipient))
        .orderBy(desc(mailOutbox.id))
        .limit(1)
    )[0];
  const tokenMailedTo = async (recipient: string) => {
    const mail = await lastMailTo(recipient);
    const token = /\/confirm-email\?token=([A-Za-z0-9_-]{43})/.exec(mail?.body ?? '')?.[1];
    expect(token, mail?.body).toBeDefined();
    return token!;
  };
  const confirm = (token: unknown) => t.app.inject({ method: 'POST', url: CONFIRM, payload: { token } });

  it('asks for the current password, in French, before anything changes', async () => {
    const missing = await analyste.patch('/api/accounts/me/', { email: 'marc@nouveau.fr', first_name: 'Jamais' });
    expect(jsonOf(missing, 400)).toEqual({
      detail: 'Saisissez votre mot de passe actuel pour changer d’adresse e-mail.',
      code: 'invalid',
      fields: { current_password: ['Saisissez votre mot de passe actuel pour changer d’adresse e-mail.'] },
    });
    const wrong = await analyste.patch('/api/accounts/me/', {
      email: 'marc@nouveau.fr',
      first_name: 'Jamais',
      current_password: 'pas le bon',
    });
    expect(jsonOf(wrong, 400)).toEqual({
      detail: 'Mot de passe actuel incorrect.',
      code: 'invalid_password',
      fields: { current_password: ['Mot de passe actuel incorrect.'] },
    });
    expect(await emailOf('analyste')).toBe('marc.lefevre@acme-securite.fr');
    const [row] = await t.database.db.select().from(users).where(eq(users.username, 'analyste'));
    expect(row!.firstName).not.toBe('Jamais');
    expect(await lastMailTo('marc@nouveau.fr')).toBeUndefined();
    const refusals = await auditEventsOf(t.database.db, { eventType: 'user_updated', username: 'analyste' });
    expect(refusals.map((e) => e.description)).toContain(
      'Changement d’adresse e-mail refusé : mot de passe actuel incorrect',
    );
  });

  it('keeps the address until the link mailed to the new one is followed, then changes it once', async () => {
    const res = await analyste.patch('/api/accounts/me/', {
      email: 'marc@NOUVEAU.fr',
      first_name: 'Marcel',
      current_password: TEST_PASSWORD,
    });
    const answer = jsonOf<Record<string, unknown>>(res, 200);
    expect(answer).toMatchObject({
      username: 'analyste',
      first_name: 'Marcel',
      email: 'marc.lefevre@acme-securite.fr',
      pending_email: 'marc@nouveau.fr',
      detail: 'Un lien de confirmation a été envoyé à marc@nouveau.fr. L’adresse sera changée une fois ce lien ouvert.',
    });
    expect(await emailOf('analyste')).toBe('marc.lefevre@acme-securite.fr');
    expect(jsonOf(await analyste.get('/api/users/me/'), 200)).toMatchObject({ email: 'marc.lefevre@acme-securite.fr' });
    // Only the digest of the token is kept.
    const token = await tokenMailedTo('marc@nouveau.fr');
    const stored = await t.database.db.select().from(emailChanges);
    expect(stored.map((r) => r.tokenHash)).not.toContain(token);
    expect(stored.at(-1)).toMatchObject({ newEmail: 'marc@nouveau.fr', usedAt: null });

    for (const bad of ['', 'x'.repeat(43), `${token}x`]) {
      expect(jsonOf(await confirm(bad), 400)).toEqual({ detail: LINK_INVALID, code: 'invalid_token' });
    }
    expect(jsonOf(await confirm(` ${token} `), 200)).toEqual({
      detail: 'Adresse e-mail confirmée.',
      email: 'marc@nouveau.fr',
    });
    expect(await emailOf('analyste')).toBe('marc@nouveau.fr');
    expect(jsonOf(await confirm(token), 400)).toMatchObject({ detail: LINK_INVALID });

    // The previous address hears of it; the trail has both steps under the account's name.
    expect((await lastMailTo('marc.lefevre@acme-securite.fr'))?.subject).toBe(
      'Vigie — l’adresse e-mail de votre compte a changé',
    );
    const trail = await auditEventsOf(t.database.db, { eventType: 'user_updated', username: 'analyste' });
    expect(trail.map((e) => e.description)).toEqual(
      expect.arrayContaining([
        'Changement d’adresse e-mail demandé (confirmation envoyée à la nouvelle adresse)',
        'Adresse e-mail changée (lien de confirmation suivi)',
      ]),
    );
    // The new address signs in.
    const byEmail = await t.app.inject({
      method: 'POST',
      url: '/api/token/',
      payload: { email: 'marc@nouveau.fr', password: TEST_PASSWORD },
    });
    expect(byEmail.statusCode).toBe(200);
  });

  it('honours only the last link asked for, and no expired one', async () => {
    const ask = (email: string) =>
      analyste.patch('/api/accounts/me/', { email, current_password: TEST_PASSWORD }).then((r) => jsonOf(r, 200));
    await ask('premier@exemple.fr');
    const first = await tokenMailedTo('premier@exemple.fr');
    await ask('second@exemple.fr');
    const second = await tokenMailedTo('second@exemple.fr');
    expect(jsonOf(await confirm(first), 400)).toMatchObject({ detail: LINK_INVALID });

    await t.database.db.update(emailChanges).set({ expiresAt: new Date(Date.now() - 1000) });
    expect(jsonOf(await confirm(second), 400)).toMatchObject({ detail: LINK_INVALID });
    expect(await emailOf('analyste')).toBe('marc@nouveau.fr');
  });

  it('answers 409 when the address was taken in the meantime, and 409 at once when it already is', async () => {
    const taken = await analyste.patch('/api/accounts/me/', {
      email: 'ADMIN@vigie.local',
      current_password: TEST_PASSWORD,
    });
    expect(jsonOf(taken, 409)).toEqual({ detail: 'Un compte avec cet email existe déjà', code: 'duplicate_email' });

    jsonOf(
      await analyste.patch('/api/accounts/me/', { email: 'libre@exemple.fr', current_password: TEST_PASSWORD }),
      200,
    );
    const token = await tokenMailedTo('libre@exemple.fr');
    await t.database.db.update(users).set({ email: 'Libre@exemple.fr' }).where(eq(users.username, 'lecteur'));
    expect(jsonOf(await confirm(token), 409)).toMatchObject({ code: 'duplicate_email' });
    expect(await emailOf('analyste')).toBe('marc@nouveau.fr');
  });
});
