import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ApiError, resetApiClient, setClientEnvironment } from '../../src/lib/api-client.ts';
import { session } from '../../src/lib/auth/session.ts';
import {
  createThreat,
  deleteThreat,
  fetchThreat,
  fetchThreats,
  fetchThreatSummary,
  markMitigated,
  readThreatSummary,
  updateThreat,
  type ThreatInput,
} from '../../src/features/threats/threats-api.ts';
import { threat } from './support/threat-fixtures.ts';

type Answer = Response | 'no-answer';
let answer: (method: string, path: string) => Answer;
let calls: { method: string; path: string }[];
let navigations: string[];

beforeEach(() => {
  calls = [];
  navigations = [];
  setClientEnvironment({
    navigate: (url) => navigations.push(url),
    pathname: () => '/threats',
    fetch: async (input: RequestInfo | URL, init?: RequestInit) => {
      const url = new URL(
        typeof input === 'string' ? input : input instanceof URL ? input.href : input.url,
        'http://x',
      );
      const method = (init?.method ?? 'GET').toUpperCase();
      calls.push({ method, path: url.pathname });
      const a = answer(method, url.pathname);
      if (a === 'no-answer') throw new TypeError('Failed to fetch');
      return a;
    },
  });
  session.value = {
    tokens: { access_token: 'tok', refresh_token: '', expires_at: Date.now() + 3_600_000 },
    profile: { id: 1, username: 'ana', email: 'ana@example.fr', role: 'user' },
  };
});

afterEach(() => {
  resetApiClient();
  session.value = null;
});

const json = (body: unknown, status = 200) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

const THREAT = threat(5, { title: 'Rançongiciel' });

const INPUT: ThreatInput = {
  title: 'Rançongiciel',
  description: '',
  threat_type: 'ransomware',
  severity: 'high',
  status: 'ACTIVE',
  source: '',
  cve_id: null,
  asset_id: null,
};

describe('threats API: the spec §7 fallback values, marked as failures', () => {
  it('summary → the empty summary shape when the server does not answer', async () => {
    answer = () => 'no-answer';
    const outcome = await readThreatSummary();
    expect(outcome).toEqual({
      failed: true,
      data: { threats_count: 0, by_severity: [], by_status: [], recent_threats: [] },
      message: 'Backend connection failed',
      status: 0,
      fields: {},
    });
  });

  it('list → an empty page keeping the requested page and size, on a 500', async () => {
    answer = () => json({ detail: 'boom' }, 500);
    const outcome = await fetchThreats({ page: 3, size: 25, severity: 'high' });
    expect(outcome.failed).toBe(true);
    expect(outcome.data).toEqual({ results: [], total: 0, page: 3, size: 25, pages: 0 });
    expect(outcome.failed && outcome.status).toBe(500);
  });

  it('get by id → GET /api/threats/{id}/, null on a 404 with its French message', async () => {
    answer = () => json({ detail: 'Ressource introuvable.' }, 404);
    const outcome = await fetchThreat(42);
    expect(calls).toEqual([{ method: 'GET', path: '/api/threats/42/' }]);
    expect(outcome).toMatchObject({ failed: true, data: null, status: 404, message: 'Ressource introuvable.' });
  });

  it('create → null, with the server’s field messages, on a 400', async () => {
    const fields = { cve_id: ['Identifiant CVE invalide (format attendu : CVE-AAAA-NNNN).'] };
    answer = () => json({ detail: 'Données invalides.', code: 'invalid', fields }, 400);
    const outcome = await createThreat(INPUT);
    expect(outcome).toMatchObject({ failed: true, data: null, status: 400, fields });
  });

  it('update → null when the server does not answer', async () => {
    answer = () => 'no-answer';
    const outcome = await updateThreat(5, INPUT);
    expect(calls).toEqual([{ method: 'PUT', path: '/api/threats/5/' }]);
    expect(outcome).toMatchObject({ failed: true, data: null, status: 0 });
  });

  it('delete → false on a 500, true once deleted', async () => {
    answer = () => json({ detail: 'x' }, 500);
    expect(await deleteThreat(5)).toMatchObject({ failed: true, data: false });
    answer = () => new Response(null, { status: 204 });
    expect(await deleteThreat(5)).toMatchObject({ failed: false, data: true });
    expect(calls.map((c) => `${c.method} ${c.path}`)).toEqual(['DELETE /api/threats/5/', 'DELETE /api/threats/5/']);
  });

  it('mark mitigated → false when the server does not answer', async () => {
    answer = () => 'no-answer';
    expect(await markMitigated(5)).toMatchObject({ failed: true, data: false, status: 0 });
  });

  it('answers that arrive are not failures and carry their origin', async () => {
    answer = (method, path) =>
      path === '/api/threats/summary/'
        ? json({ threats_count: 1, by_severity: [], by_status: [], recent_threats: [THREAT] })
        : method === 'GET' && path === '/api/threats/'
          ? json({ results: [THREAT], total: 1, page: 1, size: 10, pages: 1 })
          : json({ ...THREAT, is_mitigated: true, status: 'MITIGATED' });
    expect(await readThreatSummary()).toMatchObject({
      failed: false,
      data: { threats_count: 1 },
      origin: { source: 'network' },
    });
    expect(await fetchThreats({ page: 1, size: 10 })).toMatchObject({ failed: false, data: { total: 1 } });
    expect(await fetchThreat(5)).toMatchObject({ failed: false, data: { id: 5 } });
    expect(await createThreat(INPUT)).toMatchObject({ failed: false, data: { id: 5 } });
    expect(await updateThreat(5, INPUT)).toMatchObject({ failed: false, data: { id: 5 } });
    expect(await markMitigated(5)).toMatchObject({ failed: false, data: { is_mitigated: true } });
  });

  it('403 and 401 are thrown as before, not turned into a fallback', async () => {
    answer = () => json({ detail: 'Vous n’avez pas les droits.' }, 403);
    await expect(fetchThreats({ page: 1, size: 10 })).rejects.toMatchObject({
      status: 403,
      message: 'Vous n’avez pas les droits.',
    });
    await expect(deleteThreat(5)).rejects.toBeInstanceOf(ApiError);
    answer = () => json({ detail: 'expired' }, 401);
    await expect(readThreatSummary()).rejects.toMatchObject({ status: 401 });
  });

  it('the kiosk’s summary still throws, so a wall screen keeps its last figures', async () => {
    answer = () => 'no-answer';
    await expect(fetchThreatSummary()).rejects.toMatchObject({ status: 0, message: 'Backend connection failed' });
  });
});
