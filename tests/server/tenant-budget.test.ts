import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, DEFAULT_HEAVY_PER_TENANT, loadConfig } from '../../server/src/config.ts';
import { ConcurrencyBudget, TENANT_BUDGET_MESSAGE } from '../../server/src/plugins/app/tenant-budget.ts';
import { createTestApp, signIn, type TestApp } from './helpers.ts';
import { backend } from './support/app.ts';
import { seededTenants } from './support/world.ts';

/**
 * Issue 19, fairness: heavy routes (streamed exports, report uploads) hold database connections for long, so each
 * tenant runs at most a few at once per process. One more from the same tenant is shed at once (503, Retry-After),
 * while every other tenant's heavy and light requests are served as usual.
 */
describe(`a per-tenant budget on heavy routes (${backend})`, () => {
  let t: TestApp;
  let acme: string;
  let horizon: string;
  let analyste: string; // Acme
  let lecteur: string; // Horizon
  beforeAll(async () => {
    t = await createTestApp({ runJobs: false, heavyPerTenant: 1 });
    ({ acme, horizon } = await seededTenants(t.database.db));
    analyste = (await signIn(t.app, 'analyste')).access;
    lecteur = (await signIn(t.app, 'lecteur')).access;
  });
  afterAll(async () => t?.close());

  const get = (access: string, url: string) =>
    t.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${access}` } });
  const EXPORT = '/api/vulnerabilities/export/?format=csv';

  it('sheds a tenant’s heavy request past its budget, and only that tenant’s', async () => {
    // Acme's one slot is taken (an export in progress).
    const release = t.heavyBudget.tryAcquire(acme)!;
    expect(release).toBeDefined();
    try {
      const shed = await get(analyste, EXPORT);
      expect(shed.statusCode, shed.body).toBe(503);
      expect(shed.headers['retry-after']).toBe('5');
      expect(shed.json()).toEqual({ detail: TENANT_BUDGET_MESSAGE, code: 'tenant_busy' });
      // Acme's light reads are not heavy: served.
      expect((await get(analyste, '/api/vulnerabilities/vulnerabilities/?page=2&page_size=5')).statusCode).toBe(200);
      expect((await get(analyste, '/api/vulnerabilities/summary/')).statusCode).toBe(200);
      // Horizon has its own budget: its export goes through.
      const other = await get(lecteur, EXPORT);
      expect(other.statusCode, other.body.slice(0, 200)).toBe(200);
      expect(other.headers['content-type']).toMatch(/text\/csv/);
    } finally {
      release();
    }
    expect((await get(analyste, EXPORT)).statusCode).toBe(200);
  });

  it('gives the slot back when an export ends, well or badly', async () => {
    expect((await get(analyste, EXPORT)).statusCode).toBe(200);
    expect(t.heavyBudget.inUse(acme)).toBe(0);
    // Refused before any work (an unknown format): the slot is back too.
    expect((await get(analyste, '/api/vulnerabilities/export/?format=xls')).statusCode).toBe(400);
    expect(t.heavyBudget.inUse(acme)).toBe(0);
    expect(t.heavyBudget.inUse(horizon)).toBe(0);
    // Two in a row from Acme both pass: the first one's slot came back.
    expect((await get(analyste, EXPORT)).statusCode).toBe(200);
    expect((await get(analyste, EXPORT)).statusCode).toBe(200);
  });

  it('counts report uploads against the same budget', async () => {
    const release = t.heavyBudget.tryAcquire(acme)!;
    try {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/vulnerabilities/scans/import/',
        headers: { authorization: `Bearer ${analyste}`, 'content-type': 'multipart/form-data; boundary=x' },
        payload: '--x--\r\n',
      });
      expect(res.statusCode, res.body).toBe(503);
      expect(res.json().code).toBe('tenant_busy');
    } finally {
      release();
    }
  });
});

describe('the concurrency budget itself', () => {
  it('holds at most max per key, releases once, and keys are independent', () => {
    const budget = new ConcurrencyBudget(2);
    const a1 = budget.tryAcquire('a')!;
    const a2 = budget.tryAcquire('a')!;
    expect(budget.tryAcquire('a')).toBeUndefined();
    expect(budget.tryAcquire('b')).toBeDefined();
    a1();
    a1(); // a second call gives nothing back twice
    expect(budget.inUse('a')).toBe(1);
    expect(budget.tryAcquire('a')).toBeDefined();
    expect(budget.tryAcquire('a')).toBeUndefined();
    a2();
    expect(budget.inUse('a')).toBe(1);
  });

  it('reads its size from VIGIE_TENANT_HEAVY_MAX', () => {
    expect(loadConfig({}).heavyPerTenant).toBe(DEFAULT_HEAVY_PER_TENANT);
    expect(loadConfig({ VIGIE_TENANT_HEAVY_MAX: '4' }).heavyPerTenant).toBe(4);
    expect(() => loadConfig({ VIGIE_TENANT_HEAVY_MAX: '0' })).toThrow(ConfigError);
  });
});
