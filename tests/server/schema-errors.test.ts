import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fieldMessages } from '../../server/src/schemas/validation-messages.ts';
import { createTestApp, onPostgres, signIn, type TestApp } from './helpers.ts';

describe(`Schema errors in French (${onPostgres ? 'PostgreSQL' : 'PGlite'})`, () => {
  let t: TestApp;
  let headers: Record<string, string>;
  beforeAll(async () => {
    t = await createTestApp();
    headers = { authorization: `Bearer ${(await signIn(t.app, 'analyste')).access}` };
  });
  afterAll(async () => t.close());

  const post = (payload: unknown) =>
    t.app.inject({ method: 'POST', url: '/api/assets/', headers, payload: payload as object });

  it('names the field and says what was expected, in French', async () => {
    const res = await post({ name: 42 });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({
      detail: 'Type invalide (attendu : un texte).',
      code: 'invalid',
      fields: { name: ['Type invalide (attendu : un texte).'] },
    });
  });

  it("uses the field's own message where the route gives one", async () => {
    const res = await post({ name: 'x', asset_type: 3 });
    expect(res.json().fields).toEqual({
      asset_type: [
        'Type d’actif invalide. Valeurs possibles : server, workstation, network, application, database, cloud, container, iot, other.',
      ],
    });
  });

  it('refuses an unknown field by name', async () => {
    const res = await post({ name: 'x', colour: 'blue' });
    expect(res.statusCode).toBe(400);
    expect(res.json().fields).toEqual({ colour: ['Champ inconnu : « colour ».'] });
  });

  it('answers 404 for a path id that is not an id, after authentication', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/assets/abc/', headers });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ detail: 'Ressource introuvable.', code: 'not_found' });
    const anonymous = await t.app.inject({ method: 'GET', url: '/api/assets/abc/' });
    expect(anonymous.statusCode).toBe(401);
  });

  it('formats every keyword without English', () => {
    const errors = [
      { keyword: 'required', instancePath: '', params: { missingProperty: 'title' } },
      { keyword: 'maxLength', instancePath: '/title', params: { limit: 200 } },
      { keyword: 'maxLength', instancePath: '/long', params: { limit: 200 } },
      { keyword: 'enum', instancePath: '/level', params: { allowedValues: ['info', 'warning'] } },
      { keyword: 'minimum', instancePath: '/score', params: { limit: 0 } },
      { keyword: 'type', instancePath: '/tags', params: { type: 'array' } },
      {
        keyword: 'required',
        instancePath: '',
        params: { missingProperty: 'name' },
        parentSchema: { properties: { name: { errorMessage: { required: 'Le nom est requis.' } } } },
      },
    ];
    expect(fieldMessages(errors)).toEqual({
      title: ['Ce champ est obligatoire.'],
      long: ['Au plus 200 caractères.'],
      level: ['Valeur invalide. Valeurs possibles : info, warning.'],
      score: ['Valeur trop petite : au moins 0.'],
      tags: ['Type invalide (attendu : une liste).'],
      name: ['Le nom est requis.'],
    });
  });
});
