import { act } from 'react';
import { describe, expect, it } from 'vitest';
import { LoginPage } from '../../src/features/auth/login-page.tsx';
import { session } from '../../src/lib/auth/session.ts';
import { json, screenQueries, settle, setupScreen, typeInto } from './screen-helpers.tsx';

const screen = setupScreen();
const { $ } = screenQueries(screen);

async function submit() {
  act(() => void $<HTMLFormElement>('form').dispatchEvent(new Event('submit', { bubbles: true, cancelable: true })));
  await settle();
}

async function signInWith(answer: (body: Record<string, unknown>) => Response, otp?: string) {
  session.value = null;
  screen.handler = (method, url, body) =>
    method === 'POST' && url.pathname === '/api/token/' ? answer(body as Record<string, unknown>) : json({}, 404);
  await screen.render(<LoginPage />, '/login');
  typeInto($<HTMLInputElement>('#username'), 'ana');
  typeInto($<HTMLInputElement>('#password'), 'secret');
  await submit();
  if (otp !== undefined) {
    typeInto($<HTMLInputElement>('#otp'), otp);
    await submit();
  }
}

describe('the sign-in form says spec §8’s login texts exactly (rows 8.1, 8.4)', () => {
  it('a 400 reads « Invalid credentials », marked English, then its French sense', async () => {
    await signInWith(() => json({ detail: 'Invalid credentials', code: 'invalid_credentials' }, 400));
    expect($('[role="alert"]').textContent).toBe(
      'Invalid credentials — identifiants invalides : vérifiez le nom d’utilisateur et le mot de passe.',
    );
    expect($('[role="alert"] [lang="en"]').textContent).toBe('Invalid credentials');
  });

  it('a 403 asking for a code reads « Two-factor authentication required »; a refused code, the server’s words', async () => {
    await signInWith(
      (body) =>
        body.otp
          ? json({ detail: 'Code de vérification invalide.', code: 'invalid_otp', two_factor_required: true }, 403)
          : json({ detail: 'Two-factor authentication required', two_factor_required: true }, 403),
      '000000',
    );
    expect($('[role="alert"]').textContent).toBe('Code de vérification invalide.');
    expect(screen.container.querySelector('[role="alert"] [lang="en"]')).toBeNull();
    // The code field stays: the next try sends a new code.
    expect($<HTMLInputElement>('#otp')).toBeTruthy();
  });

  it('« Identifiants incomplets » when both fields are empty (spec §5, row 5.2), before any call', async () => {
    session.value = null;
    screen.handler = () => json({}, 404);
    await screen.render(<LoginPage />, '/login');
    const before = screen.calls.filter((c) => c.url.pathname.includes('token')).length;
    await submit();
    expect($('[role="alert"]').textContent).toBe('Identifiants incomplets');
    expect(screen.calls.filter((c) => c.url.pathname.includes('token')).length).toBe(before);
  });
});
