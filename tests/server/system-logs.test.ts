import { beforeAll, describe, expect, it } from 'vitest';
import { serverLogs } from '../../server/src/db/schema.ts';
import { apiFor, jsonOf } from './support/api.ts';
import { backend, useTestApp } from './support/app.ts';
import { auditEventsOf } from './support/world.ts';

const t = useTestApp({ runJobs: false });
const api = apiFor(t);

interface SystemLogJson {
  id: number;
  time: string;
  level: string;
  message: string;
  request_id: string | null;
  method: string | null;
  url: string | null;
  status_code: number | null;
}

const call = (who: string, url: string) => api.call(who, 'GET', url);
const read = async (query = '') =>
  jsonOf<{ logs: SystemLogJson[]; total: number }>(await call('admin', `/api/system/logs/${query}`), 200);

const marker = `syslog-${Date.now()}`;

beforeAll(async () => {
  await api.signInAll('admin', 'manager', 'analyste', 'lecteur');
  // Lines far in the future so they come first, whatever the requests of the suite log meanwhile.
  const future = (m: number) => new Date(Date.now() + 3_600_000 - m * 60_000);
  await t.database.db.insert(serverLogs).values([
    { time: future(5), level: 'debug', message: `${marker} debug`, context: { secret: 'x' } },
    { time: future(4), level: 'info', message: `${marker} info`, context: {} },
    {
      time: future(3),
      level: 'warning',
      message: `${marker} warning`,
      method: 'GET',
      url: '/api/assets/',
      statusCode: 404,
      requestId: 'req-w',
      context: { module: 'http' },
    },
    { time: future(2), level: 'error', message: `${marker} error`, context: { module: 'jobs' } },
    { time: future(1), level: 'critical', message: `${marker} critical`, context: {} },
  ]);
});

describe(`GET /api/system/logs/ (${backend})`, () => {
  it('answers the newest lines at warning and above, 20 at most, with exactly the system fields', async () => {
    const body = await read();
    expect(body.logs.length).toBeLessThanOrEqual(20);
    expect(body.logs.slice(0, 3).map((l) => l.message)).toEqual([
      `${marker} critical`,
      `${marker} error`,
      `${marker} warning`,
    ]);
    expect(body.logs.every((l) => ['warning', 'error', 'critical'].includes(l.level))).toBe(true);
    expect(body.total).toBeGreaterThanOrEqual(3);
    const warning = body.logs[2]!;
    expect(Object.keys(warning).sort()).toEqual(
      ['id', 'level', 'message', 'method', 'request_id', 'status_code', 'time', 'url'].sort(),
    );
    expect(warning).toMatchObject({ method: 'GET', url: '/api/assets/', status_code: 404, request_id: 'req-w' });
  });

  it('takes a line count and a lowest level', async () => {
    const two = await read('?limit=2&min_level=error');
    expect(two.logs.map((l) => l.message)).toEqual([`${marker} critical`, `${marker} error`]);
    const all = await read('?limit=100&min_level=DEBUG');
    expect(all.logs.map((l) => l.message)).toEqual(expect.arrayContaining([`${marker} debug`, `${marker} info`]));
    expect(all.total).toBeGreaterThanOrEqual(5);
  });

  it('refuses a wrong count or level with French messages', async () => {
    const bad = async (q: string, field: string, message: string) => {
      const res = await call('admin', `/api/system/logs/?${q}`);
      expect(res.statusCode, q).toBe(400);
      expect(res.json(), q).toMatchObject({ code: 'invalid', fields: { [field]: [message] } });
    };
    const count = 'Nombre de lignes invalide : un entier entre 1 et 100 est attendu.';
    await bad('limit=0', 'limit', count);
    await bad('limit=101', 'limit', count);
    await bad('limit=dix', 'limit', count);
    await bad(
      'min_level=verbose',
      'min_level',
      'Niveau invalide. Valeurs possibles : debug, info, warning, error, critical.',
    );
  });

  it('is for superusers only: managers (staff), users and viewers get 403, strangers 401', async () => {
    for (const who of ['manager', 'analyste', 'lecteur']) {
      const res = await call(who, '/api/system/logs/');
      expect(res.statusCode, who).toBe(403);
      expect(res.json()).toMatchObject({ code: 'permission_denied' });
    }
    expect((await t.app.inject({ method: 'GET', url: '/api/system/logs/' })).statusCode).toBe(401);
    const denied = await auditEventsOf(t.database.db, {
      eventType: 'permission_denied',
      description: 'Accès refusé : journaux du système',
    });
    expect(new Set(denied.map((d) => d.username))).toEqual(new Set(['manager', 'analyste', 'lecteur']));
  });
});
