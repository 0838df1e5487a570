import { act } from 'react';
import { describe, expect, it } from 'vitest';
import { mountEachTest } from './support/mount.tsx';
import { LoginPage, returnPath } from '../../src/features/auth/login-page.tsx';

const view = mountEachTest();

function render(url: string) {
  window.history.replaceState(null, '', url);
  view.render(<LoginPage />);
}

describe('where a sign-in leads', () => {
  it('goes back to the page the visitor was sent away from, only a path of this site, else the dashboard', () => {
    expect(returnPath('/displays?code=K7QH-4MZP')).toBe('/displays?code=K7QH-4MZP');
    expect(returnPath('/vulnerabilities/12')).toBe('/vulnerabilities/12');
    for (const unsafe of [
      null,
      '',
      'https://evil.example/',
      '//evil.example/x',
      '/\\evil.example',
      'javascript:alert(1)',
    ])
      expect(returnPath(unsafe), String(unsafe)).toBe('/dashboard');
    expect(returnPath('/login?next=/x')).toBe('/dashboard');
  });
});

describe('LoginPage', () => {
  it('has labelled username and password fields and a "Se connecter" button', () => {
    render('/login');
    const user = view.container.querySelector<HTMLInputElement>('#username')!;
    const pass = view.container.querySelector<HTMLInputElement>('#password')!;
    expect(view.container.querySelector('label[for="username"]')!.textContent).toBe("Nom d'utilisateur");
    expect(view.container.querySelector('label[for="password"]')!.textContent).toBe('Mot de passe');
    expect(pass.type).toBe('password');
    expect(user.autocomplete).toBe('username');
    expect(view.container.querySelector('button[type="submit"]')!.textContent).toBe('Se connecter');
  });

  it('says in French what is missing: both (spec §5 « Identifiants incomplets »), then the password', () => {
    render('/login');
    const form = view.container.querySelector('form')!;
    act(() => {
      form.dispatchEvent(new Event('submit', { bubbles: true, cancelable: true }));
    });
    expect(view.container.querySelector('[role="alert"]')!.textContent).toBe('Identifiants incomplets');

    const user = view.container.querySelector<HTMLInputElement>('#username')!;
    act(() => {
      // React ignores a plain `.value =`; the prototype setter is how a real keystroke updates it.
      // eslint-disable-next-line @typescript-eslint/unbound-method
      const setter = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value')!.set!;
      setter.call(user, 'manager');
      user.dispatchEvent(new Event('input', { bubbles: true }));
    });
    act(() => {
      form.dispatchEvent(new Event('submit', { bubbles: true, cancelable: true }));
    });
    expect(view.container.querySelector('[role="alert"]')!.textContent).toBe('Mot de passe obligatoire.');
  });

  it.each([
    ['/login?session_expired=true', 'Votre session a expiré. Veuillez vous reconnecter.'],
    ['/login?profile_error', 'Impossible de récupérer le profil utilisateur après connexion'],
  ])('explains the %s flag', (url, message) => {
    render(url);
    expect(view.container.querySelector('[role="status"]')!.textContent).toBe(message);
  });
});
