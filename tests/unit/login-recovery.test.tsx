import { act } from 'react';
import { describe, expect, it } from 'vitest';
import { LoginPage } from '../../src/features/auth/login-page.tsx';
import { session } from '../../src/lib/auth/session.ts';
import { json, screenQueries, settle, setupScreen, typeInto } from './screen-helpers.tsx';

const screen = setupScreen();
const { $, button } = screenQueries(screen);

async function submit() {
  act(() => void $<HTMLFormElement>('form').dispatchEvent(new Event('submit', { bubbles: true, cancelable: true })));
  await settle();
}

describe('signing in with a recovery code', () => {
  it('offers a recovery code in place of the app’s code, and sends it as the code', async () => {
    session.value = null;
    screen.handler = (method, url) => {
      if (method === 'POST' && url.pathname === '/api/token/')
        return json(
          { detail: 'Two-factor authentication required', code: 'two_factor_required', two_factor_required: true },
          403,
        );
      return json({}, 404);
    };
    await screen.render(<LoginPage />, '/login');
    typeInto($<HTMLInputElement>('#username'), 'ana');
    typeInto($<HTMLInputElement>('#password'), 'secret');
    await submit();
    // spec §8's words exactly, marked English, then their French sense.
    expect($('[role="alert"]').textContent).toBe(
      'Two-factor authentication required — double authentification requise : saisissez le code de votre application.',
    );
    expect($('[role="alert"] [lang="en"]').textContent).toBe('Two-factor authentication required');
    expect($<HTMLInputElement>('#otp').inputMode).toBe('numeric');

    act(() => button('Application indisponible ? Utiliser un code de secours').click());
    expect(screen.container.querySelector('#otp')).toBeNull();
    const code = $<HTMLInputElement>('#recovery-code');
    expect(code.inputMode).toBe('');
    typeInto(code, 'abcde-fghjk');
    const before = screen.calls.length;
    await submit();
    const sent = screen.calls.slice(before).find((c) => c.url.pathname === '/api/token/');
    expect(sent?.body).toMatchObject({ otp: 'abcde-fghjk' });

    act(() => button('Utiliser le code de l’application').click());
    expect($<HTMLInputElement>('#otp').value).toBe('');
  });
});
