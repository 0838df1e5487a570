import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { and, eq, sql } from 'drizzle-orm';
import pino from 'pino';
import { auditEvents, serverLogs } from '../../server/src/db/schema.ts';
import { rowsOf } from '../../server/src/db/client.ts';
import { redactUrl, scrubText, ServerLogSink } from '../../server/src/services/server-logs.ts';
import { SystemSettingsStore } from '../../server/src/services/system-settings.ts';
import { logTasks, PURGE_SERVER_LOGS, purgeServerLogLines } from '../../server/src/tasks/log-tasks.ts';
import { TASKS } from '../../server/src/tasks/index.ts';
import type { TaskContext } from '../../server/src/tasks/types.ts';
import { signIn, TEST_PASSWORD } from './helpers.ts';
import { apiFor, jsonOf } from './support/api.ts';
import { backend, useTestApp } from './support/app.ts';
import { auditEventsOf } from './support/world.ts';

const t = useTestApp({ runJobs: false });
const api = apiFor(t);
let sink: ServerLogSink;

beforeAll(async () => {
  sink = ServerLogSink.of(t.database);
  await api.signInAll('admin', 'manager', 'analyste', 'lecteur');
});

const call = (who: string, url: string, method: 'GET' | 'POST' = 'GET') => api.call(who, method, url);

/** Every line answered so far is in the table. */
async function flushed(): Promise<void> {
  // onResponse runs as the response finishes, which may be just after inject() resolves.
  await new Promise((resolve) => setImmediate(resolve));
  await sink.flush();
}

interface LogJson {
  id: number;
  time: string;
  level: string;
  message: string;
  request_id: string | null;
  method: string | null;
  url: string | null;
  status_code: number | null;
  response_time_ms: number | null;
  tenant_id: string | null;
  user_id: number | null;
  username: string | null;
  context: Record<string, unknown>;
}

const list = async (query: string) =>
  jsonOf<{ logs: LogJson[]; total: number; page: number; page_size: number }>(
    await call('admin', `/api/admin/logs/?${query}`),
    200,
  );

const daysAgo = (days: number, hours = 0) => new Date(Date.now() - (days * 24 + hours) * 3_600_000);

async function setLogLevel(level: string): Promise<void> {
  const res = await api.call('admin', 'PATCH', '/api/system/settings/', { payload: { log_level: level } });
  expect(res.statusCode).toBe(200);
}

describe(`the log store (${backend})`, () => {
  beforeEach(() => setLogLevel('info'));

  it('keeps one structured line per API request: method, URL, status, time, user and tenant', async () => {
    const res = await call('analyste', '/api/assets/?page_size=5');
    expect(res.statusCode).toBe(200);
    await flushed();
    const [row] = await t.database.db
      .select()
      .from(serverLogs)
      .where(and(eq(serverLogs.url, '/api/assets/?page_size=5'), eq(serverLogs.method, 'GET')));
    expect(row).toMatchObject({
      level: 'info',
      message: 'GET /api/assets/ 200',
      statusCode: 200,
      requestId: expect.any(String),
      tenantId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      userId: expect.any(Number),
    });
    expect(row!.responseTimeMs).toBeGreaterThanOrEqual(0);
    expect(row!.context).toMatchObject({ route: '/api/assets/', ip: expect.any(String) });
  });

  it('stores no password, token or cookie, whatever the request carried', async () => {
    const session = await signIn(t.app, 'analyste');
    await t.app.inject({
      method: 'POST',
      url: '/api/token/',
      payload: { username: 'analyste', password: 'wrong-pass' },
    });
    await t.app.inject({
      method: 'POST',
      url: '/api/token/refresh/?refresh=' + session.refresh,
      payload: { refresh: session.refresh },
    });
    await t.app.inject({
      method: 'GET',
      url: `/api/assets/?access_token=${session.access}&search=x`,
      headers: { authorization: `Bearer ${session.access}`, cookie: `vigie_access=${session.access}` },
    });
    await t.app.inject({
      method: 'GET',
      url: '/reset-password?token=secret-reset-token-123',
    });
    // A server line carrying secrets, as pino hands it to the sink's stream.
    const lines: string[] = [];
    const logger = pino({ level: 'debug' }, { write: (line: string) => void lines.push(line) });
    logger.child({ reqId: 'req-secret' }).error(
      {
        err: new Error(`connect failed for postgres://vigie:db-password-42@db/vigie`),
        headers: { authorization: `Bearer ${session.access}`, cookie: 'vigie_refresh=abc' },
        body: { username: 'analyste', password: TEST_PASSWORD, nested: { refresh_token: session.refresh } },
      },
      `retrying with token=${session.refresh}`,
    );
    for (const line of lines) sink.stream.write(line);
    await flushed();

    const all = JSON.stringify(rowsOf(await t.database.db.execute(sql`select * from server_logs`)));
    for (const secret of [
      TEST_PASSWORD,
      'wrong-pass',
      session.access,
      session.refresh,
      await api.token('admin'),
      'secret-reset-token-123',
      'db-password-42',
      'vigie_refresh=abc',
    ]) {
      expect(all, `leaked ${secret.slice(0, 12)}…`).not.toContain(secret);
    }
    expect(all).not.toMatch(/Bearer ey/);
    // The lines themselves are there, redacted.
    const [pinoLine] = await t.database.db.select().from(serverLogs).where(eq(serverLogs.requestId, 'req-secret'));
    expect(pinoLine).toMatchObject({ level: 'error', message: 'retrying with token=[REDACTED]' });
    expect(pinoLine!.context).toMatchObject({
      headers: { authorization: '[REDACTED]', cookie: '[REDACTED]' },
      body: { username: 'analyste', password: '[REDACTED]', nested: { refresh_token: '[REDACTED]' } },
    });
    const [refresh] = await t.database.db
      .select()
      .from(serverLogs)
      .where(sql`${serverLogs.url} like '/api/token/refresh/%'`);
    expect(refresh!.url).toBe('/api/token/refresh/?[REDACTED]');
  });

  it('keeps only the lines at or above the log_level setting', async () => {
    await setLogLevel('warning');
    await call('admin', '/api/assets/?marker=level-ok');
    await call('admin', '/api/assets/does-not-exist/?marker=level-missing');
    await flushed();
    const rows = await t.database.db
      .select({ url: serverLogs.url, level: serverLogs.level })
      .from(serverLogs)
      .where(sql`${serverLogs.url} like '%marker=level-%'`);
    expect(rows).toEqual([{ url: '/api/assets/does-not-exist/?marker=level-missing', level: 'warning' }]);

    await setLogLevel('debug');
    await t.app.inject({ method: 'GET', url: '/assets/app-abc123.js?marker=level-static' });
    await flushed();
    const [staticLine] = await t.database.db
      .select({ level: serverLogs.level })
      .from(serverLogs)
      .where(sql`${serverLogs.url} like '%marker=level-static%'`);
    expect(staticLine).toEqual({ level: 'debug' });
  });

  it('stores each line of a batch as it was, whatever its characters, and empty fields as null', async () => {
    const tricky = ['quote " and \\ backslash', '{braces},commas', 'NULL', '', 'accents « é » 🛡', "l'apostrophe"];
    const time = new Date('2026-11-29T08:00:00.123Z');
    const lines = tricky.map((text, i) => ({
      time,
      level: 'warning' as const,
      message: `batch-${i} ${text}`,
      requestId: i === 0 ? null : `req-${i}`,
      url: `/api/x/?marker=batch-${i}&q=${encodeURIComponent(text)}`,
      statusCode: i === 1 ? null : 400 + i,
      responseTimeMs: i === 2 ? null : 1.25 * i,
      tenantId: null,
      userId: i === 3 ? 7 : null,
      context: { text, n: i, nested: { list: [text, null] } },
    }));
    for (const line of lines) sink.push(line);
    await sink.flush();
    const rows = await t.database.db
      .select()
      .from(serverLogs)
      .where(sql`${serverLogs.url} like '%marker=batch-%'`)
      .orderBy(serverLogs.message);
    // Each line as it was pushed; the method it did not give is null.
    expect(rows.map(({ id: _id, ...r }) => r)).toEqual(lines.map((line) => ({ ...line, method: null })));
  });

  it('drops and counts lines past its buffer cap instead of holding the server back', async () => {
    const before = sink.stats();
    const marker = `cap-${Date.now()}`;
    for (let i = 0; i < ServerLogSink.MAX_BUFFER + 7; i++) {
      sink.push({ time: new Date(), level: 'info', message: marker });
    }
    expect(sink.stats().dropped - before.dropped).toBeGreaterThanOrEqual(7);
    await sink.flush();
    const [{ n } = { n: 0 }] = await t.database.db
      .select({ n: sql<number>`count(*)::int` })
      .from(serverLogs)
      .where(eq(serverLogs.message, marker));
    expect(n).toBeGreaterThan(ServerLogSink.MAX_BUFFER - ServerLogSink.BATCH);
    expect(n).toBeLessThanOrEqual(ServerLogSink.MAX_BUFFER);
    await t.database.db.delete(serverLogs).where(eq(serverLogs.message, marker));
  });
});

describe('GET /api/admin/logs/', () => {
  const marker = 'filtre-marqueur';
  beforeAll(async () => {
    const base = { message: `${marker} `, context: {} };
    await t.database.db.insert(serverLogs).values([
      {
        ...base,
        time: daysAgo(3),
        level: 'info',
        message: `${marker} un`,
        method: 'GET',
        url: '/api/a/',
        statusCode: 200,
      },
      {
        ...base,
        time: daysAgo(2),
        level: 'warning',
        message: `${marker} deux`,
        method: 'POST',
        url: '/api/b/',
        statusCode: 404,
      },
      {
        ...base,
        time: daysAgo(1),
        level: 'error',
        message: `${marker} trois`,
        method: 'GET',
        url: '/api/c/',
        statusCode: 500,
        requestId: 'req-trois',
      },
      { ...base, time: daysAgo(0, 1), level: 'critical', message: `${marker} quatre`, context: { module: 'jobs' } },
      {
        ...base,
        time: daysAgo(0, 2),
        level: 'debug',
        message: `${marker} cinq`,
        method: 'GET',
        url: '/api/e/?x=100%',
        statusCode: 204,
      },
    ]);
  });

  it('answers {logs, total}, newest first, paged', async () => {
    const all = await list(`q=${marker}`);
    expect(all.total).toBe(5);
    expect(all.logs.map((l) => l.message)).toEqual(
      ['quatre', 'cinq', 'trois', 'deux', 'un'].map((w) => `${marker} ${w}`),
    );
    expect(all.logs[2]).toEqual({
      id: expect.any(Number),
      time: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      level: 'error',
      message: `${marker} trois`,
      request_id: 'req-trois',
      method: 'GET',
      url: '/api/c/',
      status_code: 500,
      response_time_ms: null,
      tenant_id: null,
      user_id: null,
      username: null,
      context: {},
    });
    const page2 = await list(`q=${marker}&page=2&page_size=2`);
    expect(page2).toMatchObject({ total: 5, page: 2, page_size: 2 });
    expect(page2.logs.map((l) => l.message)).toEqual([`${marker} trois`, `${marker} deux`]);
    expect((await list(`q=${marker}&page=9&page_size=2`)).logs).toEqual([]);
  });

  it('filters by level, minimum level, status, method, request, dates and text', async () => {
    const messages = async (q: string) => (await list(`q=${marker}&${q}`)).logs.map((l) => l.message.split(' ')[1]);
    expect(await messages('level=error')).toEqual(['trois']);
    expect(await messages('level=WARNING,error')).toEqual(['trois', 'deux']);
    expect(await messages('min_level=error')).toEqual(['quatre', 'trois']);
    expect(await messages('level=debug&min_level=error')).toEqual([]);
    expect(await messages('status=404')).toEqual(['deux']);
    expect(await messages('status=2xx')).toEqual(['cinq', 'un']);
    expect(await messages('method=post')).toEqual(['deux']);
    expect(await messages('request_id=req-trois')).toEqual(['trois']);
    const day = (d: Date) => d.toISOString().slice(0, 10);
    expect(await messages(`date_from=${daysAgo(1, 1).toISOString()}`)).toEqual(['quatre', 'cinq', 'trois']);
    expect(await messages(`date_to=${daysAgo(2, -1).toISOString()}`)).toEqual(['deux', 'un']);
    expect(await messages(`date_from=${day(daysAgo(3))}&date_to=${day(daysAgo(3))}`)).toEqual(['un']);
    // The text matches the URL too, and LIKE wildcards are literal.
    expect((await list('q=/api/b/')).logs.map((l) => l.message)).toEqual([`${marker} deux`]);
    expect((await list('q=100%25')).logs.map((l) => l.message)).toEqual([`${marker} cinq`]);
  });

  it('refuses malformed filters with French messages', async () => {
    const bad = async (q: string, field: string, message: RegExp) => {
      const res = await call('admin', `/api/admin/logs/?${q}`);
      expect(res.statusCode, q).toBe(400);
      const body = res.json<{ detail: string; code: string; fields: Record<string, string[]> }>();
      expect(body.code).toBe('invalid');
      expect(body.fields[field]?.[0], q).toMatch(message);
    };
    await bad('level=verbose', 'level', /^Niveau invalide/);
    await bad('min_level=x', 'min_level', /^Niveau invalide/);
    await bad('status=abc', 'status', /^Statut HTTP invalide/);
    await bad('status=600', 'status', /^Statut HTTP invalide/);
    await bad('date_from=2026-02-31', 'date_from', /^Date invalide/);
    await bad('date_from=2026-03-02&date_to=2026-03-01', 'date_to', /précède/);
    await bad('page=0', 'page', /^Numéro de page invalide/);
    await bad('page_size=501', 'page_size', /^Taille de page invalide/);
    await bad('tenant_id=acme', 'tenant_id', /^Organisation invalide/);
    await bad('method=G3T', 'method', /^Méthode HTTP invalide/);
  });

  it('exports the filtered lines as a CSV or JSON file, and records the export', async () => {
    const csv = await call('admin', `/api/admin/logs/export/?q=${marker}&min_level=warning`);
    expect(csv.statusCode).toBe(200);
    expect(csv.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(csv.headers['content-disposition']).toMatch(/^attachment; filename="vigie-logs-\d{4}-\d\d-\d\d\.csv"$/);
    // A BOM first, so spreadsheet software reads the accents as UTF-8.
    expect(csv.body.startsWith('\uFEFFIdentifiant,')).toBe(true);
    const lines = csv.body.slice(1).trimEnd().split('\r\n');
    expect(lines[0]).toBe(
      'Identifiant,Date,Niveau,Message,Requête,Méthode,URL,Code HTTP,Durée (ms),Organisation,Identifiant utilisateur,' +
        'Utilisateur,Contexte (JSON)',
    );
    expect(lines.slice(1).map((l) => l.split(',')[2])).toEqual(['critical', 'error', 'warning']);

    const json = await call('admin', `/api/admin/logs/export/?format=json&q=${marker}`);
    expect(json.statusCode).toBe(200);
    expect(json.headers['content-disposition']).toMatch(/filename="vigie-logs-.*\.json"/);
    const rows = json.json<LogJson[]>();
    expect(rows).toHaveLength(5);
    expect(rows[0]).toMatchObject({ level: 'critical', context: { module: 'jobs' } });

    const wrong = await call('admin', '/api/admin/logs/export/?format=xml');
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json()).toMatchObject({ fields: { format: ['Format d’export invalide : csv ou json attendu.'] } });

    const recorded = await t.database.db
      .select({ description: auditEvents.description, tenantId: auditEvents.tenantId })
      .from(auditEvents)
      .where(eq(auditEvents.eventType, 'sensitive_data_access'));
    expect(recorded).toEqual(
      expect.arrayContaining([
        { description: 'Export des journaux du serveur (CSV)', tenantId: null },
        { description: 'Export des journaux du serveur (JSON)', tenantId: null },
      ]),
    );
  });

  it('is for superusers only: managers (staff), users and viewers get 403, strangers 401', async () => {
    for (const who of ['manager', 'analyste', 'lecteur']) {
      for (const url of ['/api/admin/logs/', '/api/admin/logs/export/']) {
        const res = await call(who, url);
        expect(res.statusCode, `${who} ${url}`).toBe(403);
        expect(res.json()).toMatchObject({ code: 'permission_denied' });
      }
    }
    expect((await t.app.inject({ method: 'GET', url: '/api/admin/logs/' })).statusCode).toBe(401);
    const denied = await auditEventsOf(t.database.db, {
      eventType: 'permission_denied',
      description: 'Accès refusé : journaux du serveur',
    });
    expect(new Set(denied.map((d) => d.username))).toEqual(new Set(['manager', 'analyste', 'lecteur']));
  });
});

describe('the retention purge', () => {
  const ctx = (args: Record<string, unknown>): TaskContext => ({
    taskId: 'test',
    tenantId: null,
    args,
    requestedBy: null,
    database: t.database,
    filesDir: t.filesDir,
    log: pino({ level: 'silent' }),
    signal: new AbortController().signal,
    progress: async () => {},
  });

  it('is a daily platform task known to the queue', () => {
    expect(TASKS.find((d) => d.name === PURGE_SERVER_LOGS)).toBe(logTasks[0]);
    expect(logTasks[0]).toMatchObject({ scope: 'platform', schedule: { cron: '15 3 * * *' } });
  });

  it('deletes the lines older than log_retention_days (or the days a launch names)', async () => {
    const at = (days: number) => ({ time: daysAgo(days), level: 'info', message: `purge ${days}`, context: {} });
    await t.database.db.insert(serverLogs).values([at(90), at(31), at(29), at(10), at(1)]);
    const left = async () =>
      (
        await t.database.db
          .select({ message: serverLogs.message })
          .from(serverLogs)
          .where(sql`${serverLogs.message} like 'purge %'`)
          .orderBy(serverLogs.time)
      ).map((r) => r.message);

    // The setting: 30 days by default.
    const outcome = await purgeServerLogLines(ctx({}));
    expect(outcome.meta).toMatchObject({ retention_days: 30 });
    expect(outcome.result).toMatch(/jours supprimées$/);
    expect(await left()).toEqual(['purge 29', 'purge 10', 'purge 1']);

    await SystemSettingsStore.of(t.database.db).update({ log_retention_days: 7 }, 1);
    expect((await purgeServerLogLines(ctx({}))).meta).toMatchObject({ retention_days: 7 });
    expect(await left()).toEqual(['purge 1']);
    await SystemSettingsStore.of(t.database.db).update({ log_retention_days: 30 }, 1);

    await expect(purgeServerLogLines(ctx({ days: 0 }))).rejects.toThrow(/days/);
  });
});

describe('redaction', () => {
  it('drops the query of authentication paths and masks secret-looking parameters elsewhere', () => {
    expect(redactUrl('/api/token/?username=a&password=b')).toBe('/api/token/?[REDACTED]');
    expect(redactUrl('/api/accounts/password/reset/confirm/?t=x')).toBe(
      '/api/accounts/password/reset/confirm/?[REDACTED]',
    );
    expect(redactUrl('/api/assets/?search=a%20b&page=2')).toBe('/api/assets/?search=a%20b&page=2');
    expect(redactUrl('/api/x/?%74oken=abc&q=1')).toBe('/api/x/?token=[REDACTED]&q=1');
    expect(redactUrl('/api/x/?api_key=k&sig=s&code=c&author=jo')).toBe(
      '/api/x/?api_key=[REDACTED]&sig=[REDACTED]&code=[REDACTED]&author=jo',
    );
  });

  it('masks bearer tokens, JWTs, inline passwords and URL credentials inside text', () => {
    expect(scrubText('Authorization: Bearer abcdefghijklmnop')).toBe('Authorization: Bearer [REDACTED]');
    expect(scrubText('jwt eyJhbGciOi.eyJzdWIiOiIx.c2lnbmF0dXJl end')).toBe('jwt [REDACTED] end');
    expect(scrubText('login password=hunter22 ok')).toBe('login password=[REDACTED] ok');
    expect(scrubText('{"secret": "s3cr3t"}')).toBe('{"secret": "[REDACTED]"}');
    expect(scrubText('smtp://user:pw@mail:25')).toBe('smtp://user:[REDACTED]@mail:25');
  });
});
