import { act } from 'react';
import { describe, expect, it } from 'vitest';
import { json, screenQueries, settle, setupScreen, typeInto } from './screen-helpers.tsx';
import { SettingsPage } from '../../src/features/settings/settings-page.tsx';
import ConfirmEmailPage from '../../src/features/settings/confirm-email-page.tsx';
import { session } from '../../src/lib/auth/session.ts';

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
