import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { createTestApp, onPostgres, type TestApp } from './helpers.ts';

const pkgVersion = (JSON.parse(readFileSync('package.json', 'utf8')) as { version: string }).version;

describe(`GET /api/health/ (${onPostgres ? 'PostgreSQL' : 'PGlite'})`, () => {
  let t: TestApp;
  afterEach(async () => t.close());

  it('answers ok with the database state and the version', async () => {
    t = await createTestApp();
    const res = await t.app.inject({ method: 'GET', url: '/api/health/' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: 'ok', database: 'ok', version: pkgVersion });
    expect(res.headers['cache-control']).toBe('no-store');
  });

  it('also answers without the trailing slash', async () => {
    t = await createTestApp();
    const res = await t.app.inject({ method: 'GET', url: '/api/health' });
    expect(res.statusCode).toBe(200);
  });

  it('answers 503 with database down when the database is unreachable', async () => {
    t = await createTestApp();
    await t.database.close();
    const res = await t.app.inject({ method: 'GET', url: '/api/health/' });
    expect(res.statusCode).toBe(503);
    expect(res.json()).toMatchObject({ database: 'down', version: pkgVersion });
  });
});
