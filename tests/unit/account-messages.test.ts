import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { resetApiClient, setClientEnvironment } from '../../src/lib/api-client.ts';
import { createAdminAccount, FormError, register } from '../../src/lib/auth/account.ts';

// spec §8's sign-up and admin-creation messages, each from the answer that calls for it (rows 8.21–8.30 of the
// conformance table): a stub fetch stands for servers that answer what ours never does (a 500, a 418, a time-out).

let answer: () => Response | Promise<Response>;
const sent: { path: string; body: unknown }[] = [];

beforeEach(() => {
  sent.length = 0;
  setClientEnvironment({
    baseUrl: () => 'http://backend.test',
    navigate: () => {},
    fetch: async (input: RequestInfo | URL, init?: RequestInit) => {
      const url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
      sent.push({ path: url.pathname, body: typeof init?.body === 'string' ? JSON.parse(init.body) : init?.body });
      return answer();
    },
  });
});
afterEach(() => resetApiClient());

const json = (body: unknown, status: number) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

const NEW_USER = { username: 'jdupont', email: 'j.dupont@client.fr', password: 'Motdepasse-2026!' };

async function failure(call: Promise<unknown>): Promise<FormError> {
  const err = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(FormError);
  return err as FormError;
}

describe('register (spec §8)', () => {
  it('says the request expired when the server never answers', async () => {
    answer = () => Promise.reject(new DOMException('The operation timed out.', 'TimeoutError'));
    expect((await failure(register(NEW_USER))).message).toBe('La requête a expiré. Vérifiez votre connexion internet.');
    expect(sent.map((s) => s.path)).toEqual(['/api/register/']);
  });

  it('labels each field’s 400 message as §8 spells it, the confirmation included', async () => {
    for (const [field, label] of [
      ['username', "Nom d'utilisateur invalide : "],
      ['email', 'Email invalide : '],
      ['password', 'Mot de passe invalide : '],
      ['confirm_password', 'Confirmation du mot de passe : '],
    ] as const) {
      answer = () => json({ [field]: ['valeur refusée'] }, 400);
      expect((await failure(register(NEW_USER))).message).toBe(`${label}valeur refusée`);
    }
  });

  it('says « Données d’inscription invalides » on a 400 without a known field', async () => {
    answer = () => json({ detail: 'Bad Request' }, 400);
    expect((await failure(register(NEW_USER))).message).toBe("Données d'inscription invalides");
  });

  it('gives the 500 and any other status their §8 texts', async () => {
    answer = () => json({ detail: 'boom' }, 500);
    expect((await failure(register(NEW_USER))).message).toBe(
      'Erreur interne du serveur. Veuillez réessayer plus tard.',
    );
    answer = () => json({ detail: 'teapot' }, 418);
    const other = await failure(register(NEW_USER));
    expect(other.message).toBe('Erreur de serveur inattendue : 418');
  });
});

describe('admin account creation (spec §8)', () => {
  const ADMIN = { ...NEW_USER, first_name: 'Jean', last_name: 'Dupont' };

  it('says « Impossible de créer le compte admin » on a 400 without a field message', async () => {
    answer = () => json({ detail: 'Bad Request' }, 400);
    expect((await failure(createAdminAccount(ADMIN))).message).toBe('Impossible de créer le compte admin');
    answer = () => json({ email: ['Adresse déjà utilisée'] }, 400);
    expect((await failure(createAdminAccount(ADMIN))).message).toBe('Adresse déjà utilisée');
  });

  it('says « La création du compte admin a échoué » on any other failure', async () => {
    answer = () => json({ detail: 'Bad Gateway' }, 502);
    expect((await failure(createAdminAccount(ADMIN))).message).toBe('La création du compte admin a échoué');
    expect(sent.at(-1)?.body).toMatchObject({ is_staff: true, is_superuser: true });
  });
});
