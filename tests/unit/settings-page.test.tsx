import { act } from 'react';
import { describe, expect, it } from 'vitest';
import { json, screenQueries, settle, setupScreen, typeInto } from './screen-helpers.tsx';
import { SettingsPage } from '../../src/features/settings/settings-page.tsx';
import ConfirmEmailPage from '../../src/features/settings/confirm-email-page.tsx';
import { session } from '../../src/lib/auth/session.ts';
import SettingsScreen, { showsDeveloperTools } from '../../src/app/settings-screen.tsx';

const screen = setupScreen();
const { text, $, writes } = screenQueries(screen);

async function submit(form: HTMLFormElement) {
  act(() => void form.dispatchEvent(new Event('submit', { bubbles: true, cancelable: true })));
  await settle();
}

const profileForm = () => $<HTMLFormElement>('form[aria-labelledby="profile-title"]');
const input = (name: string) => profileForm().querySelector<HTMLInputElement>(`input[id$="-${name}"]`);

describe('profile form', () => {
  it('asks for the current password once the e-mail changes, and shows that a link was sent', async () => {
    const sent =
      'Un lien de confirmation a été envoyé à ana@nouveau.fr. L’adresse sera changée une fois ce lien ouvert.';
    screen.handler = (method) =>
      method === 'PATCH'
        ? json({
            id: 1,
            username: 'ana',
            email: 'ana@example.fr',
            role: 'user',
            detail: sent,
            pending_email: 'ana@nouveau.fr',
          })
        : json({ enabled: false });
    await screen.render(<SettingsPage />, '/settings');
    expect(input('current_password')).toBeNull();
    // The domain in another letter case is the same address.
    typeInto(input('email')!, 'ana@EXAMPLE.fr');
    expect(input('current_password')).toBeNull();

    typeInto(input('email')!, 'ana@nouveau.fr');
    expect(input('current_password')!.type).toBe('password');
    expect(text()).toContain('Mot de passe actuel (pour changer d’adresse e-mail)');
    typeInto(input('current_password')!, 'secret actuel');
    await submit(profileForm());

    expect(writes()).toHaveLength(1);
    expect(writes()[0]!.body).toMatchObject({ email: 'ana@nouveau.fr', current_password: 'secret actuel' });
    expect(text()).toContain(sent);
    // The account keeps its address until the link is opened; the form says so and forgets the password.
    expect(input('email')!.value).toBe('ana@example.fr');
    expect(input('current_password')).toBeNull();
    expect(session.value!.profile).not.toHaveProperty('detail');
    expect(session.value!.profile.email).toBe('ana@example.fr');
  });

  it('sends no password for a change of names, and shows the server’s French refusal', async () => {
    screen.handler = (method) =>
      method === 'PATCH'
        ? json(
            {
              detail: 'Mot de passe actuel incorrect.',
              code: 'invalid_password',
              fields: { current_password: ['Mot de passe actuel incorrect.'] },
            },
            400,
          )
        : json({ enabled: false });
    await screen.render(<SettingsPage />, '/settings');
    typeInto(input('first_name')!, 'Ana');
    typeInto(input('email')!, 'ana@nouveau.fr');
    typeInto(input('current_password')!, 'faux');
    await submit(profileForm());
    expect(text()).toContain('Mot de passe actuel incorrect.');

    screen.handler = (method) =>
      method === 'PATCH' ? json({ id: 1, username: 'ana', email: 'ana@example.fr', role: 'user' }) : json({});
    typeInto(input('email')!, 'ana@example.fr');
    await submit(profileForm());
    expect(writes().at(-1)!.body).toEqual({ first_name: 'Ana', last_name: '', email: 'ana@example.fr' });
    expect(text()).toContain('Profil enregistré.');
  });
});

describe('/confirm-email', () => {
  it('posts the token of the link and says the address is confirmed', async () => {
    screen.handler = (method, url) =>
      method === 'POST' && url.pathname === '/api/accounts/email/confirm/'
        ? json({ detail: 'Adresse e-mail confirmée.', email: 'ana@nouveau.fr' })
        : json({ id: 1, username: 'ana', email: 'ana@nouveau.fr', role: 'user' });
    await screen.render(<ConfirmEmailPage />, '/confirm-email?token=jeton-du-lien');
    const posts = writes();
    expect(posts).toHaveLength(1);
    expect(posts[0]!.body).toEqual({ token: 'jeton-du-lien' });
    expect($('[role="status"]').textContent).toContain('Adresse e-mail confirmée.');
  });

  it('says why not in French', async () => {
    screen.handler = () => json({ detail: 'Lien de confirmation invalide ou expiré.', code: 'invalid_token' }, 400);
    await screen.render(<ConfirmEmailPage />, '/confirm-email?token=perime');
    expect($('[role="alert"]').textContent).toContain('Lien de confirmation invalide ou expiré.');
  });
});

describe('two-factor card', () => {
  const SECRET = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP';
  const CODES = Array.from({ length: 10 }, (_, i) => `abcd${i + 2}-efgh${i + 2}`);
  const card = () => $('section[aria-labelledby="tfa-title"]');
  const buttonIn = (label: string) =>
    [...card().querySelectorAll<HTMLButtonElement>('button')].find((b) => b.textContent === label)!;

  it('shows a QR code and the key in groups, then the recovery codes once turned on', async () => {
    screen.handler = (method, url) => {
      if (url.pathname === '/api/accounts/2fa/status/') return json({ enabled: false, recovery_codes_left: 0 });
      if (url.pathname === '/api/accounts/2fa/enable/')
        return json({ enabled: false, secret: SECRET, otpauth_url: `otpauth://totp/Vigie:ana?secret=${SECRET}` });
      if (url.pathname === '/api/accounts/2fa/verify/') return json({ enabled: true, recovery_codes: CODES });
      return json({}, method === 'GET' ? 200 : 404);
    };
    await screen.render(<SettingsPage />, '/settings');
    act(() => buttonIn('Activer').click());
    await settle();

    const qr = card().querySelector('svg.qr-code')!;
    expect(qr.getAttribute('role')).toBe('img');
    expect(qr.getAttribute('aria-label')).toContain('QR code');
    // A real code: the finder pattern's dark modules make a long path.
    expect(qr.querySelector('path')!.getAttribute('d')!.length).toBeGreaterThan(1000);
    expect(card().querySelector('.tfa-secret')!.textContent).toBe('JBSW Y3DP EHPK 3PXP JBSW Y3DP EHPK 3PXP');

    typeInto(card().querySelector<HTMLInputElement>('#tfa-code')!, '123456');
    await submit(card().querySelector('form')!);
    expect(writes().at(-1)!.body).toEqual({ token: '123456' });
    expect(text()).toContain('Double authentification activée.');
    expect([...card().querySelectorAll('.recovery-codes li')].map((li) => li.textContent)).toEqual(CODES);
    expect(text()).toContain('Ils ne seront plus affichés.');
    expect(card().querySelector('svg.qr-code')).toBeNull();
  });

  it('says how many recovery codes are left, warns when few, and makes new ones with a code', async () => {
    screen.handler = (_method, url) => {
      if (url.pathname === '/api/accounts/2fa/status/') return json({ enabled: true, recovery_codes_left: 2 });
      if (url.pathname === '/api/accounts/2fa/recovery-codes/') return json({ enabled: true, recovery_codes: CODES });
      return json({});
    };
    await screen.render(<SettingsPage />, '/settings');
    const left = [...card().querySelectorAll('p')].find((p) => p.textContent?.startsWith('Codes de secours'))!;
    expect(left.textContent).toBe('Codes de secours restants : 2.');
    expect(left.className).toContain('warn');

    typeInto(card().querySelector<HTMLInputElement>('#tfa-code')!, '654321');
    await act(async () => buttonIn('Nouveaux codes de secours').click());
    await settle();
    const call = screen.calls.find((c) => c.url.pathname === '/api/accounts/2fa/recovery-codes/')!;
    expect(call.body).toEqual({ token: '654321' });
    expect(card().querySelectorAll('.recovery-codes li')).toHaveLength(10);
    expect(text()).toContain('Nouveaux codes de secours : les précédents ne fonctionnent plus.');
  });
});

describe('the developer switches', () => {
  it('show to administrators only, and to everyone in a development build', () => {
    const user = { id: 1, username: 'ana', email: 'a@x.fr', role: 'user' };
    expect(showsDeveloperTools(user, 't1', false)).toBe(false);
    expect(showsDeveloperTools({ ...user, role: 'manager' }, 't1', false)).toBe(false);
    expect(showsDeveloperTools({ ...user, role: 'admin' }, 't1', false)).toBe(true);
    expect(showsDeveloperTools({ ...user, is_superuser: true }, 't1', false)).toBe(true);
    expect(showsDeveloperTools(user, 't1', true)).toBe(true);
    expect(showsDeveloperTools(undefined, undefined, false)).toBe(false);
  });

  it('sit in Préférences, with the mock API switch', async () => {
    screen.handler = () => json({ enabled: false, recovery_codes_left: 0 });
    session.value = { ...session.value!, profile: { ...session.value!.profile, role: 'admin' } };
    await screen.render(<SettingsScreen />, '/settings');
    expect($('#dev-tools-title').textContent).toBe('Outils de démonstration');
    expect(text()).toContain('Mode API simulée');
  });
});
