import { beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import pino from 'pino';
import { auditEvents, systemSettings } from '../../server/src/db/schema.ts';
import { purgeAuditEvents } from '../../server/src/tasks/audit-tasks.ts';
import { SystemSettingsStore } from '../../server/src/services/system-settings.ts';
import { MAINTENANCE_MESSAGE } from '../../server/src/plugins/app/system-settings.ts';
import type { TaskContext } from '../../server/src/tasks/types.ts';
import { signIn } from './helpers.ts';
import { apiFor } from './support/api.ts';
import { useTestApp } from './support/app.ts';
import { SYSTEM_SETTINGS_DEFAULTS } from './support/contract.ts';
import { auditEventsOf } from './support/world.ts';

const t = useTestApp({ runJobs: false });
const api = apiFor(t);
beforeAll(() => api.signInAll('admin', 'manager', 'analyste', 'lecteur'));

const call = (who: string, method: 'GET' | 'PATCH', url: string, payload?: unknown) =>
  api.call(who, method, url, payload !== undefined ? { payload } : {});

describe('GET and PATCH /api/system/settings/', () => {
  it('answers the spec §3 defaults to an administrator', async () => {
    const res = await call('admin', 'GET', '/api/system/settings/');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual(SYSTEM_SETTINGS_DEFAULTS);
  });

  it('refuses managers, users and viewers (reading and changing), and records the refusal', async () => {
    for (const who of ['manager', 'analyste', 'lecteur']) {
      expect((await call(who, 'GET', '/api/system/settings/')).statusCode).toBe(403);
      expect((await call(who, 'PATCH', '/api/system/settings/', { debug_mode: true })).statusCode).toBe(403);
    }
    const [denied] = await auditEventsOf(
      t.database.db,
      { eventType: 'permission_denied', username: 'lecteur' },
      { newestFirst: true, limit: 1 },
    );
    expect(denied?.description).toBe('Accès refusé aux paramètres système');
    expect((await t.app.inject({ method: 'GET', url: '/api/system/settings/' })).statusCode).toBe(401);
  });

  it('validates every value by type and range, names the field, and changes nothing when one is wrong', async () => {
    const res = await call('admin', 'PATCH', '/api/system/settings/', {
      api_timeout: 0,
      log_retention_days: 'trente',
      theme: 'pink',
      debug_mode: 'yes',
      timezone: 'Mars/Olympus',
      notification_email: 'pas-une-adresse',
      app_name: '   ',
      secret_key: 'x',
      language: 'fr',
    });
    expect(res.statusCode).toBe(400);
    const fields = res.json<{ fields: Record<string, string[]> }>().fields;
    expect(Object.keys(fields).sort()).toEqual(
      [
        'api_timeout',
        'app_name',
        'debug_mode',
        'log_retention_days',
        'notification_email',
        'secret_key',
        'theme',
        'timezone',
      ].sort(),
    );
    expect(fields.api_timeout).toEqual(['« api_timeout » doit être un entier entre 1 et 300 (secondes).']);
    expect(fields.secret_key).toEqual(['Paramètre inconnu : « secret_key ».']);
    expect(fields.theme).toEqual(['« theme » doit valoir light, dark.']);
    expect((await t.database.db.select().from(systemSettings)).length).toBe(0);
    expect((await call('admin', 'GET', '/api/system/settings/')).json()).toEqual(SYSTEM_SETTINGS_DEFAULTS);
    expect((await call('admin', 'PATCH', '/api/system/settings/', [1, 2])).statusCode).toBe(400);
  });

  it('keeps a valid change, merges later ones, and audits what changed', async () => {
    const first = await call('admin', 'PATCH', '/api/system/settings/', {
      log_retention_days: 90,
      timezone: 'Europe/Paris',
    });
    expect(first.statusCode).toBe(200);
    expect(first.json()).toEqual({ ...SYSTEM_SETTINGS_DEFAULTS, log_retention_days: 90, timezone: 'Europe/Paris' });
    const second = await call('admin', 'PATCH', '/api/system/settings/', { app_name: 'Vigie SOC', theme: 'dark' });
    expect(second.json()).toEqual({
      ...SYSTEM_SETTINGS_DEFAULTS,
      log_retention_days: 90,
      timezone: 'Europe/Paris',
      app_name: 'Vigie SOC',
      theme: 'dark',
    });
    const [row] = await t.database.db.select().from(systemSettings);
    expect(row?.values).toEqual({
      log_retention_days: 90,
      timezone: 'Europe/Paris',
      app_name: 'Vigie SOC',
      theme: 'dark',
    });
    const [event] = await auditEventsOf(
      t.database.db,
      { eventType: 'configuration_change' },
      { newestFirst: true, limit: 1 },
    );
    expect(event?.description).toBe('Paramètres système modifiés : app_name, theme');
    expect(event?.details).toMatchObject({ changes: { theme: { from: 'light', to: 'dark' } } });
    // Put the defaults back for the next tests.
    const back = await call('admin', 'PATCH', '/api/system/settings/', {
      log_retention_days: 30,
      timezone: 'UTC',
      app_name: 'Vigie',
      theme: 'light',
    });
    expect(back.json()).toEqual(SYSTEM_SETTINGS_DEFAULTS);
  });
});

describe('maintenance mode', () => {
  it('answers 503 with a French message to everyone but administrators, and keeps sign-in open', async () => {
    const on = await call('admin', 'PATCH', '/api/system/settings/', { maintenance_mode: true });
    expect(on.json()).toMatchObject({ maintenance_mode: true });
    try {
      for (const who of ['manager', 'analyste', 'lecteur']) {
        const res = await call(who, 'GET', '/api/assets/');
        expect(res.statusCode).toBe(503);
        expect(res.json()).toEqual({ detail: MAINTENANCE_MESSAGE, code: 'maintenance' });
        expect(res.headers['retry-after']).toBe('300');
      }
      expect((await call('admin', 'GET', '/api/assets/')).statusCode).toBe(200);
      // Signing in and the health check still answer, so an administrator can come and end it.
      expect((await signIn(t.app, 'analyste')).access).toBeTruthy();
      expect((await t.app.inject({ method: 'GET', url: '/api/health/' })).statusCode).toBe(200);
      // An anonymous caller of a data path learns nothing but the maintenance.
      expect((await t.app.inject({ method: 'GET', url: '/api/assets/' })).statusCode).toBe(401);
    } finally {
      expect((await call('admin', 'PATCH', '/api/system/settings/', { maintenance_mode: false })).statusCode).toBe(200);
    }
    expect((await call('analyste', 'GET', '/api/assets/')).statusCode).toBe(200);
  });
});

describe('log_retention_days drives the audit purge', () => {
  it('purges with the stored retention when the launch names none', async () => {
    const store = SystemSettingsStore.of(t.database.db);
    await store.update({ log_retention_days: 5 }, 1);
    await t.database.db.execute(sql`
      insert into audit_events (timestamp, event_type, description)
      values (now() - interval '6 days', 'user_login', 'retention-6'), (now() - interval '4 days', 'user_login', 'retention-4')`);
    const ctx: TaskContext = {
      taskId: 'test',
      tenantId: null,
      args: {},
      requestedBy: null,
      database: t.database,
      filesDir: '/nonexistent',
      log: pino({ level: 'silent' }),
      signal: new AbortController().signal,
      progress: async () => {},
    };
    const outcome = await purgeAuditEvents(ctx);
    expect(outcome.meta).toMatchObject({ retention_days: 5 });
    const left = await t.database.db
      .select({ d: auditEvents.description })
      .from(auditEvents)
      .where(sql`${auditEvents.description} like 'retention-%'`);
    expect(left.map((r) => r.d)).toEqual(['retention-4']);
    await t.database.db.delete(systemSettings);
  });
});

// Last: it changes stored settings, which the earlier tests expect at their defaults.
describe('GET /api/system/appearance/', () => {
  it('tells anyone, signed in or not, the appearance settings only, and follows their change', async () => {
    const anonymous = await t.app.inject({ method: 'GET', url: '/api/system/appearance/' });
    expect(anonymous.statusCode).toBe(200);
    expect(anonymous.json()).toEqual({ app_name: 'Vigie', theme: 'light', timezone: 'UTC', language: 'fr' });
    const patched = await call('admin', 'PATCH', '/api/system/settings/', {
      app_name: 'Vigie SOC',
      theme: 'dark',
      timezone: 'Europe/Paris',
    });
    expect(patched.statusCode).toBe(200);
    try {
      const after = await call('lecteur', 'GET', '/api/system/appearance/');
      expect(after.json()).toEqual({ app_name: 'Vigie SOC', theme: 'dark', timezone: 'Europe/Paris', language: 'fr' });
    } finally {
      await call('admin', 'PATCH', '/api/system/settings/', { app_name: 'Vigie', theme: 'light', timezone: 'UTC' });
    }
  });
});
