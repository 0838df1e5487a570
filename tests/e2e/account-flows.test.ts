import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { totpNow } from '../../server/src/lib/totp.ts';
import { TEST_PASSWORD } from '../server/helpers.ts';
import { signInThroughForm, useServerAndBrowser } from './harness.ts';
import { settled } from './screens.ts';

/**
 * Issue 20's account flows, as people do them in Chromium: sign-up then sign-in, an administrator account made by a
 * superuser, a role changed by an administrator, and two-factor authentication set up with the QR code then used
 * with a recovery code.
 */
const e2e = useServerAndBrowser();

async function rows<T>(text: string, values: unknown[] = []): Promise<T[]> {
  return (await e2e.t.database.executeSql(text, values)).rows as T[];
}

const suffix = () => Date.now().toString(36);

async function signInAs(page: Page, username: string, password = TEST_PASSWORD): Promise<void> {
  await page.goto('/login');
  await page.getByLabel("Nom d'utilisateur").fill(username);
  await page.getByLabel('Mot de passe').fill(password);
  await page.getByRole('button', { name: 'Se connecter' }).click();
}

async function openUsers(page: Page): Promise<void> {
  await page.goto('/admin/users');
  await settled(page);
}

describe('account flows in Chromium', () => {
  it('sign-up, offered once the policy allows it, then sign-in with the new account', async () => {
    const username = `inscrit.${suffix()}`;
    await rows(`update security_policies set allow_registration = false`);
    const visitor = await (await e2e.context({ width: 820, height: 1180 })).newPage();
    await visitor.goto('/login');
    await settled(visitor);
    expect(await visitor.getByRole('link', { name: 'Créer un compte' }).count()).toBe(0);

    const admin = await signInThroughForm(await e2e.context(), 'admin', { waitForWorker: false });
    await admin.goto('/admin/security');
    await settled(admin);
    await admin.getByRole('switch', { name: 'Inscription libre autorisée' }).check();
    await admin.getByRole('button', { name: 'Enregistrer' }).click();
    await expect
      .poll(() => rows<{ open: boolean }>(`select allow_registration as open from security_policies`))
      .toEqual([{ open: true }]);

    try {
      await visitor.goto('/login');
      await visitor.getByRole('link', { name: 'Créer un compte' }).click();
      await visitor.waitForURL('**/register');
      const form = visitor.getByRole('form', { name: 'Créer un compte' });
      await form.getByLabel('Nom d’utilisateur *').fill(username);
      await form.getByLabel('E-mail *').fill(`${username}@exemple.fr`);
      await form.getByLabel('Mot de passe *', { exact: true }).fill('court');
      await form.getByLabel('Confirmation du mot de passe *').fill('court');
      await visitor.getByRole('button', { name: 'Créer le compte' }).click();
      // The password policy's refusal, in French, beside the field; what was typed stays.
      await expect.poll(() => visitor.getByText(/caractères/).count()).toBeGreaterThan(0);
      expect(await form.getByLabel('Nom d’utilisateur *').inputValue()).toBe(username);
      await form.getByLabel('Mot de passe *', { exact: true }).fill(TEST_PASSWORD);
      await form.getByLabel('Confirmation du mot de passe *').fill(TEST_PASSWORD);
      await visitor.getByRole('button', { name: 'Créer le compte' }).click();
      await visitor.getByText(`Compte « ${username} » créé.`).waitFor();

      await signInAs(visitor, username);
      await visitor.waitForURL('**/dashboard');
      await visitor.locator('main h1').first().waitFor();
      expect(await visitor.locator('main h1').first().textContent()).toMatch(/^Bonjour/);
    } finally {
      await rows(`update security_policies set allow_registration = false`);
    }
  });

  it('a superuser creates an administrator account, which then signs in and administers', async () => {
    const username = `rssi.${suffix()}`;
    const page = await signInThroughForm(await e2e.context(), 'admin', { waitForWorker: false });
    await openUsers(page);
    await page.getByRole('button', { name: 'Nouveau compte administrateur' }).click();
    const form = page.getByRole('form', { name: 'Nouveau compte administrateur' });
    await form.getByLabel("Nom d'utilisateur *").fill(username);
    await form.getByLabel('E-mail *').fill(`${username}@acme-securite.fr`);
    await form.getByLabel(/^Mot de passe \*/).fill(TEST_PASSWORD);
    await page.getByRole('button', { name: 'Créer le compte administrateur' }).click();
    await page.getByText(`Compte administrateur « ${username} » créé.`).waitFor();
    expect(
      await rows(`select 1 from users where username = $1 and is_superuser and is_staff`, [username]),
    ).toHaveLength(1);

    const other = await (await e2e.context()).newPage();
    await signInAs(other, username);
    await other.waitForURL('**/dashboard');
    await other.getByRole('link', { name: 'Administration', exact: true }).click();
    await other.getByRole('navigation', { name: 'Administration' }).waitFor();
    await openUsers(other);
    expect(await other.getByRole('button', { name: 'Nouveau compte administrateur' }).count()).toBe(1);
  });

  it('an administrator changes a member’s role; the member’s rights follow at the next sign-in', async () => {
    const page = await signInThroughForm(await e2e.context(), 'admin', { waitForWorker: false });
    await openUsers(page);
    await page.getByRole('button', { name: 'Modifier : analyste' }).click();
    const form = page.getByRole('form', { name: 'Modifier l’utilisateur analyste' });
    await form.getByLabel('Rôle').selectOption('readonly');
    await form.getByRole('button', { name: 'Enregistrer' }).click();
    await page.getByText('Utilisateur « analyste » modifié.').waitFor();
    const row = page.locator('tr[data-user-id]', { hasText: 'analyste' });
    expect(await row.textContent()).toContain('Lecture seule');

    try {
      const member = await (await e2e.context()).newPage();
      await signInAs(member, 'analyste');
      await member.waitForURL('**/dashboard');
      await member.goto('/projects');
      await settled(member);
      // A reader sees the projects but no way to create one.
      expect(await member.getByRole('button', { name: /Nouveau projet/ }).count()).toBe(0);
    } finally {
      await rows(
        `update memberships set role = 'user' where user_id = (select id from users where username = 'analyste')`,
      );
    }
  });

  it('two-factor authentication: QR code and key, then a sign-in with a recovery code', async () => {
    const page = await signInThroughForm(await e2e.context(), 'manager', { waitForWorker: false });
    await page.goto('/settings');
    await settled(page);
    await page.getByRole('button', { name: 'Activer' }).click();
    const qr = page.getByRole('img', { name: 'QR code à scanner avec votre application d’authentification' });
    await qr.waitFor();
    expect((await qr.boundingBox())!.width).toBeGreaterThan(100);
    const secret = (await page.locator('.tfa-secret').textContent())!.replace(/\s+/g, '');
    expect(secret).toMatch(/^[A-Z2-7]{16,}$/);
    await page.getByLabel('Code à 6 chiffres').fill(totpNow(secret));
    await page.getByRole('button', { name: 'Confirmer l’activation' }).click();
    const codes = page.getByRole('group', { name: 'Codes de secours' }).locator('code');
    await codes.first().waitFor();
    const recovery = (await codes.allTextContents()).map((c) => c.trim());
    expect(recovery).toHaveLength(10);

    try {
      const later = await (await e2e.context()).newPage();
      await signInAs(later, 'manager');
      await later.getByLabel('Code de double authentification').waitFor();
      await later.getByRole('button', { name: 'Application indisponible ? Utiliser un code de secours' }).click();
      await later.getByLabel('Code de secours').fill(recovery[0]!);
      await later.getByRole('button', { name: 'Se connecter' }).click();
      await later.waitForURL('**/dashboard');
      // Used once: the same code no longer opens a session.
      const again = await (await e2e.context()).newPage();
      await signInAs(again, 'manager');
      await again.getByRole('button', { name: 'Application indisponible ? Utiliser un code de secours' }).click();
      await again.getByLabel('Code de secours').fill(recovery[0]!);
      await again.getByRole('button', { name: 'Se connecter' }).click();
      await again.locator('[role="alert"]').first().waitFor();
      expect(again.url()).toContain('/login');
    } finally {
      await rows(`update users set totp_secret = null, totp_enabled = false where username = 'manager'`);
      await rows(`delete from recovery_codes where user_id = (select id from users where username = 'manager')`);
    }
  });
});
