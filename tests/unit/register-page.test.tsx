import { act } from 'react';
import { describe, expect, it } from 'vitest';
import RegisterPage from '../../src/features/auth/register-page.tsx';
import { LoginPage } from '../../src/features/auth/login-page.tsx';
import { session } from '../../src/lib/auth/session.ts';
import { json, screenQueries, settle, setupScreen, typeInto } from './screen-helpers.tsx';

const screen = setupScreen();
const { $, text, writes } = screenQueries(screen);

function backend(
  allowed: boolean,
  post: () => Response = () => json({ id: 7, username: 'nina', email: 'n@x.fr' }, 201),
) {
  screen.handler = (method, url) => {
    if (url.pathname !== '/api/register/') return json({}, 404);
    return method === 'GET' ? json({ allowed }) : post();
  };
}

async function submit() {
  act(() => void $<HTMLFormElement>('form').dispatchEvent(new Event('submit', { bubbles: true, cancelable: true })));
  await settle();
}

describe('/register', () => {
  it('creates an account while the policy allows it, and says what comes next', async () => {
    session.value = null;
    backend(true);
    await screen.render(<RegisterPage />, '/register');
    expect($('h1').textContent).toBe('Créer un compte');
    typeInto($<HTMLInputElement>('#register-username'), 'nina');
    typeInto($<HTMLInputElement>('#register-email'), 'n@x.fr');
    typeInto($<HTMLInputElement>('#register-password'), 'un mot de passe sûr');
    typeInto($<HTMLInputElement>('#register-confirm_password'), 'un mot de passe sûr');
    await submit();
    expect(writes()[0]!.body).toMatchObject({
      username: 'nina',
      email: 'n@x.fr',
      password: 'un mot de passe sûr',
      confirm_password: 'un mot de passe sûr',
    });
    expect($('[role="status"]').textContent).toContain('Compte « nina » créé.');
    expect($('[role="status"]').textContent).toContain('Un administrateur doit encore vous ajouter à une organisation');
  });

  it('checks spec §5’s required fields before sending, and shows the server’s §8 message', async () => {
    session.value = null;
    backend(true, () => json({ detail: 'x', email: ['Un compte avec cet email existe déjà'] }, 409));
    await screen.render(<RegisterPage />, '/register');
    await submit();
    expect(writes()).toHaveLength(0);
    expect(text()).toContain("Nom d'utilisateur requis");
    typeInto($<HTMLInputElement>('#register-username'), 'nina');
    typeInto($<HTMLInputElement>('#register-email'), 'n@x.fr');
    typeInto($<HTMLInputElement>('#register-password'), 'un mot de passe sûr');
    await submit();
    expect($('[role="alert"]').textContent).toBe('Un compte avec cet email existe déjà');
  });

  it('says registration is closed when the policy closes it, and offers no form', async () => {
    session.value = null;
    backend(false);
    await screen.render(<RegisterPage />, '/register');
    expect(screen.container.querySelector('form')).toBeNull();
    expect(text()).toContain('L’inscription libre n’est pas ouverte sur cette plateforme');
  });

  it('the sign-in page links to it only while registration is open', async () => {
    session.value = null;
    backend(true);
    await screen.render(<LoginPage />, '/login');
    expect(screen.container.querySelector('a[href="/register"]')?.textContent).toBe('Créer un compte');
    backend(false);
    await screen.render(<></>, '/login');
    await screen.render(<LoginPage />, '/login');
    expect(screen.container.querySelector('a[href="/register"]')).toBeNull();
  });
});
