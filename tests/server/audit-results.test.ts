import { beforeAll, describe, expect, it } from 'vitest';
import { and, eq, sql } from 'drizzle-orm';
import { auditEvents } from '../../server/src/db/schema.ts';
import { apiFor, jsonOf, type Method } from './support/api.ts';
import { backend, useTestApp } from './support/app.ts';
import { ACME, seededTenants, type TenantName } from './support/world.ts';

const MARK = 'zqfixture';
const EVENT_KEYS = [
  'description',
  'details',
  'event_type',
  'extra',
  'id',
  'ip_address',
  'severity',
  'source',
  'tenant_id',
  'timestamp',
  'user',
];

interface Event {
  id: number;
  timestamp: string;
  event_type: string;
  user: string | null;
  severity: string;
  source: string;
  tenant_id: string | null;
  description: string;
  details: { browser: string | null; os: string | null; success: boolean };
  extra: Record<string, unknown>;
}
interface Page {
  results: Event[];
  total: number;
  page: number;
  size: number;
  pages: number;
}

describe(`audit trail: results and export (${backend})`, () => {
  const t = useTestApp({ runJobs: false });
  const api = apiFor(t);
  let acme: string;
  let horizon: string;

  const call = (username: string, url: string, opts: { tenant?: TenantName; method?: Method } = {}) =>
    api.call(username, opts.method ?? 'GET', url, opts.tenant ? { tenant: opts.tenant } : {});
  const list = async (username: string, query: string, tenant: TenantName = ACME) =>
    jsonOf<Page>(await call(username, `/api/audit/results/?${query}`, { tenant }), 200);

  // Acme: 15 fixture events, one a minute from 2026-03-10 09:00 UTC (oldest first); Horizon: 3; platform: 2.
  const at = (minutes: number, day = '2026-03-10') => new Date(Date.parse(`${day}T09:00:00Z`) + minutes * 60_000);
  const TYPES = ['user_login', 'login_failed', 'data_change'] as const;
  const SEVERITIES = ['INFO', 'WARNING', 'ERROR', 'CRITICAL', 'INFO'] as const;

  beforeAll(async () => {
    ({ acme, horizon } = await seededTenants(t.database.db));
    const rows: (typeof auditEvents.$inferInsert)[] = [];
    for (let i = 0; i < 15; i++) {
      rows.push({
        tenantId: acme,
        timestamp: at(i),
        eventType: TYPES[i % 3]!,
        username: i % 2 === 0 ? 'Analyste' : 'manager',
        ipAddress: '10.0.0.1',
        description: `${MARK} acme ${i}`,
        severity: SEVERITIES[i % 5]!,
        source: i < 10 ? 'server' : 'frontend',
        details: { browser: 'Firefox 128', os: 'Linux', success: i % 4 !== 0, step: i, api_token: 'jamais' },
      });
    }
    // The next day, and one that a spreadsheet would run as a formula.
    rows.push({
      tenantId: acme,
      timestamp: at(0, '2026-03-11'),
      eventType: 'data_change',
      username: 'analyste',
      description: `=HYPERLINK("http://evil","${MARK}")`,
      severity: 'WARNING',
      source: 'server',
      details: { browser: 'Chrome 120', os: 'Windows 10', success: true },
    });
    for (let i = 0; i < 3; i++) {
      rows.push({
        tenantId: horizon,
        timestamp: at(i),
        eventType: 'user_login',
        username: 'lecteur',
        description: `${MARK} horizon ${i}`,
        details: { browser: 'Safari 17', os: 'macOS', success: true },
      });
    }
    for (let i = 0; i < 2; i++) {
      rows.push({
        tenantId: null,
        timestamp: at(30 + i),
        eventType: 'login_failed',
        username: null,
        description: `${MARK} plateforme ${i}`,
        severity: 'WARNING',
        details: { browser: 'inconnu', os: 'inconnu', success: false },
      });
    }
    await t.database.db.insert(auditEvents).values(rows);
  });

  it('answers 403 to tenant users and viewers, and records the refusal', async () => {
    for (const [username, tenant] of [
      ['analyste', 'Acme Sécurité'],
      ['lecteur', 'Banque Horizon'],
    ] as const) {
      for (const url of ['/api/audit/results/', '/api/audit/results/1/', '/api/audit/export/csv/']) {
        const res = await call(username, url, { tenant });
        expect(res.statusCode).toBe(403);
        expect(res.json()).toMatchObject({
          code: 'permission_denied',
          detail: "Vous n'avez pas les autorisations nécessaires pour accéder à cette ressource",
        });
      }
    }
    const denied = await t.database.db
      .select({ username: auditEvents.username })
      .from(auditEvents)
      .where(eq(auditEvents.eventType, 'permission_denied'));
    expect(denied.map((d) => d.username).sort()).toEqual([...Array(3).fill('analyste'), ...Array(3).fill('lecteur')]);
  });

  it('pages the current tenant’s trail newest first, 10 by default, with exactly the AuditEvent fields', async () => {
    const first = await list('manager', `q=${MARK}`);
    expect(first).toMatchObject({ total: 16, page: 1, size: 10, pages: 2 });
    expect(first.results).toHaveLength(10);
    expect(first.results[0]!.description).toContain('HYPERLINK');
    expect(first.results.slice(1).map((e) => e.description)).toEqual(
      [14, 13, 12, 11, 10, 9, 8, 7, 6].map((i) => `${MARK} acme ${i}`),
    );
    const e = first.results[1]!;
    expect(Object.keys(e).sort()).toEqual(EVENT_KEYS);
    expect(e).toMatchObject({
      timestamp: at(14).toISOString(),
      event_type: TYPES[14 % 3],
      user: 'Analyste',
      severity: 'INFO',
      tenant_id: acme,
      source: 'frontend',
      details: { browser: 'Firefox 128', os: 'Linux', success: true },
      extra: { step: 14, api_token: '[masqué]' },
    });
    const second = await list('manager', `q=${MARK}&page=2`);
    expect(second.results.map((r) => r.description)).toEqual([5, 4, 3, 2, 1, 0].map((i) => `${MARK} acme ${i}`));
    expect((await list('manager', `q=${MARK}&page=3`)).results).toEqual([]);
    const big = await list('manager', `q=${MARK}&size=100`);
    expect(big).toMatchObject({ total: 16, size: 100, pages: 1 });
    expect(big.results.every((r) => r.tenant_id === acme)).toBe(true);
  });

  it('filters by type, severity, user, source, dates and text', async () => {
    const count = async (query: string) => (await list('manager', `q=${MARK}&${query}`)).total;
    expect(await count('event_type=user_login')).toBe(5);
    expect(await count('event_type=user_login,login_failed')).toBe(10);
    expect(await count('severity=warning,critical')).toBe(7);
    expect(await count('user=ANALYSTE')).toBe(9);
    expect(await count('user=analyst')).toBe(0);
    expect(await count('source=frontend')).toBe(5);
    expect(await count('date_from=2026-03-11')).toBe(1);
    expect(await count('date_to=2026-03-10')).toBe(15);
    expect(await count('date_from=2026-03-10T09:05:00Z&date_to=2026-03-10T09:07:00Z')).toBe(3);
    expect(await count('date_from=2026-03-10T10:05:00%2B01:00&date_to=2026-03-10T09:07')).toBe(3);
    expect((await list('manager', 'q=acme 1')).results.map((r) => r.description).sort()).toEqual(
      [1, 10, 11, 12, 13, 14].map((i) => `${MARK} acme ${i}`).sort(),
    );
    expect((await list('manager', 'q=100%25')).total).toBe(0);
    // The manager's other tenant.
    const h = await list('manager', `q=${MARK}`, 'Banque Horizon');
    expect(h.total).toBe(3);
    expect(h.results.every((r) => r.tenant_id === horizon)).toBe(true);
  });

  it('rejects bad values with 400 and the fields', async () => {
    const bad = async (query: string, field: string) => {
      const res = await call('manager', `/api/audit/results/?${query}`, { tenant: 'Acme Sécurité' });
      expect(res.statusCode, query).toBe(400);
      const body = res.json<{ detail: string; code: string; fields: Record<string, string[]> }>();
      expect(body.code).toBe('invalid');
      expect(Object.keys(body.fields)).toEqual([field]);
    };
    await bad('size=101', 'size');
    await bad('size=0', 'size');
    await bad('page=abc', 'page');
    await bad('severity=INFO,FATAL', 'severity');
    await bad('source=mobile', 'source');
    await bad('event_type=a b', 'event_type');
    await bad('date_from=2026-02-31', 'date_from');
    await bad('date_to=hier', 'date_to');
    await bad('date_from=2026-03-11&date_to=2026-03-10', 'date_to');
    await bad('tenant=acme', 'tenant');
    await bad(`q=${'x'.repeat(201)}`, 'q');
  });

  it('lets only a superuser read every tenant (platform events included) or another tenant', async () => {
    expect((await call('manager', '/api/audit/results/?tenant=all', { tenant: 'Acme Sécurité' })).statusCode).toBe(403);
    const other = await call('manager', `/api/audit/results/?tenant=${horizon}`, { tenant: 'Acme Sécurité' });
    expect(other.statusCode).toBe(403);
    // Naming the current tenant is the same as naming none.
    expect((await list('manager', `q=${MARK}&tenant=${acme}`)).total).toBe(16);

    const all = await list('admin', `q=${MARK}&tenant=all&size=100`);
    expect(all.total).toBe(21);
    expect(new Set(all.results.map((r) => r.tenant_id))).toEqual(new Set([acme, horizon, null]));
    const ts = all.results.map((r) => r.timestamp);
    expect(ts).toEqual([...ts].sort().reverse());
    expect((await list('admin', `q=${MARK}&tenant=${horizon}`)).total).toBe(3);
    expect((await list('admin', `q=${MARK}`)).total).toBe(16);
  });

  it('reads one event inside the readable scope only', async () => {
    const [acmeRow] = await t.database.db
      .select({ id: auditEvents.id })
      .from(auditEvents)
      .where(eq(auditEvents.description, `${MARK} acme 3`));
    const [horizonRow] = await t.database.db
      .select({ id: auditEvents.id })
      .from(auditEvents)
      .where(eq(auditEvents.description, `${MARK} horizon 0`));
    const [platformRow] = await t.database.db
      .select({ id: auditEvents.id })
      .from(auditEvents)
      .where(eq(auditEvents.description, `${MARK} plateforme 0`));
    const one = await call('manager', `/api/audit/results/${acmeRow!.id}/`, { tenant: 'Acme Sécurité' });
    expect(one.statusCode).toBe(200);
    expect(Object.keys(one.json()).sort()).toEqual(EVENT_KEYS);
    expect(one.json()).toMatchObject({ id: acmeRow!.id, description: `${MARK} acme 3`, tenant_id: acme });
    for (const id of [horizonRow!.id, platformRow!.id, 999_999_999]) {
      expect((await call('manager', `/api/audit/results/${id}/`, { tenant: 'Acme Sécurité' })).statusCode).toBe(404);
    }
    expect((await call('manager', '/api/audit/results/abc/', { tenant: 'Acme Sécurité' })).statusCode).toBe(404);
    const platform = await call('admin', `/api/audit/results/${platformRow!.id}/?tenant=all`);
    expect(platform.statusCode).toBe(200);
    expect(platform.json()).toMatchObject({ tenant_id: null, user: null, details: { success: false } });
  });

  it('audits every read of the trail, in the trail that was read', async () => {
    const reads = () =>
      t.database.db
        .select({ tenantId: auditEvents.tenantId, description: auditEvents.description, details: auditEvents.details })
        .from(auditEvents)
        .where(and(eq(auditEvents.eventType, 'sensitive_data_access'), eq(auditEvents.username, 'admin')));
    const before = (await reads()).length;
    await list('admin', `q=${MARK}&tenant=all`);
    await list('admin', `q=${MARK}&tenant=${horizon}`);
    const after = (await reads()).slice(before);
    expect(after).toEqual([
      expect.objectContaining({ tenantId: null, description: 'Consultation du journal d’audit' }),
      expect.objectContaining({ tenantId: horizon }),
    ]);
    expect(after[0]!.details).toMatchObject({ scope: 'all', filters: { q: MARK, tenant: 'all' }, success: true });
  });

  it('exports the same rows as the results, as CSV (BOM, quoting, formulas neutralised) and JSON', async () => {
    const query = `q=${MARK}&severity=INFO,WARNING`;
    const json = await call('manager', `/api/audit/export/json/?${query}`, { tenant: 'Acme Sécurité' });
    expect(json.statusCode).toBe(200);
    expect(json.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(json.headers['content-disposition']).toMatch(/^attachment; filename="audit-\d{4}-\d{2}-\d{2}\.json"$/);
    const exported = json.json<Event[]>();
    const results = await list('manager', `${query}&size=100`);
    expect(results.total).toBe(10);
    expect(exported).toEqual(results.results);

    const csv = await call('manager', `/api/audit/export/csv/?${query}`, { tenant: 'Acme Sécurité' });
    expect(csv.statusCode).toBe(200);
    expect(csv.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(csv.headers['content-disposition']).toMatch(/filename="audit-\d{4}-\d{2}-\d{2}\.csv"$/);
    expect(
      csv.body.startsWith(
        '\uFEFFIdentifiant,Date,Type d’événement,Utilisateur,Adresse IP,Gravité,Origine,Organisation,',
      ),
    ).toBe(true);
    const lines = csv.body.slice(1).trimEnd().split('\r\n');
    expect(lines).toHaveLength(11);
    expect(lines.slice(1).map((l) => Number(l.split(',')[0]))).toEqual(results.results.map((r) => r.id));
    const formula = lines.find((l) => l.includes('HYPERLINK'))!;
    expect(formula).toContain(`"'=HYPERLINK(""http://evil"",""${MARK}"")"`);
    const e = results.results.find((r) => r.description === `${MARK} acme 5`)!;
    expect(lines).toContain(
      `${e.id},${e.timestamp},${e.event_type},manager,10.0.0.1,INFO,server,${acme},Firefox 128,Linux,true,${MARK} acme 5,` +
        `"{""step"":5,""api_token"":""[masqué]""}"`,
    );
  });

  it('streams every row in keyset batches, ties on the timestamp included', async () => {
    // 2 500 events at one instant: more than one batch, in the list's order.
    await t.database.db.execute(sql`
      insert into audit_events (tenant_id, "timestamp", event_type, description, details)
      select ${horizon}::uuid, '2026-01-02T03:04:05.123456Z', 'bulk', 'bulk ' || g, '{}'::jsonb
      from generate_series(1, 2500) g`);
    const res = await call('admin', '/api/audit/export/json/?event_type=bulk', { tenant: 'Banque Horizon' });
    const rows = res.json<Event[]>();
    expect(rows).toHaveLength(2500);
    expect(new Set(rows.map((r) => r.id)).size).toBe(2500);
    const ids = rows.map((r) => r.id);
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
    const page = await list('admin', 'event_type=bulk&size=100&page=3', 'Banque Horizon');
    expect(page.results.map((r) => r.id)).toEqual(ids.slice(200, 300));
    const csv = await call('admin', `/api/audit/export/csv/?event_type=bulk&tenant=${horizon}`);
    expect(csv.body.trimEnd().split('\r\n')).toHaveLength(2501);
  });

  it('refuses an unknown export format with 400', async () => {
    const res = await call('manager', '/api/audit/export/xlsx/', { tenant: 'Acme Sécurité' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'invalid', fields: { format: [expect.any(String)] } });
  });
});
