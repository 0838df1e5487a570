import { afterEach, describe, expect, it, vi } from 'vitest';
import { openDB } from 'idb';
import {
  backendList,
  checkAvailability,
  HealthMonitor,
  probeBackend,
  localDataMode,
  activeBackend,
  setMockMode,
  mockApiMode,
  restoreMockMode,
  watchConnection,
  scheduleAvailabilityCheck,
  startBackends,
} from '../../src/app/modes.ts';
import { loadRuntimeConfig, parseRuntimeConfig, RUNTIME_CONFIG_KEY } from '../../src/app/runtime-config.ts';
import { connectAuditLog } from '../../src/app/audit.ts';
import { AuditBuffer, type AuditEvent } from '../../src/features/audit/audit-buffer.ts';
import { apiRequest, resetApiClient, setClientEnvironment } from '../../src/lib/api-client.ts';
import { setAuditLogSink } from '../../src/lib/audit-log.ts';
import { kvDelete, kvGet } from '../../src/lib/storage.ts';

afterEach(() => {
  localDataMode.value = false;
  activeBackend.value = '';
  resetApiClient();
  setAuditLogSink(null);
});

describe('backend list (spec §9)', () => {
  it('puts the same origin first and keeps at most six entries without duplicates', () => {
    expect(backendList(undefined)).toEqual(['']);
    expect(backendList(' https://a.example/ , https://b.example,https://a.example')).toEqual([
      '',
      'https://a.example',
      'https://b.example',
    ]);
    const eight = Array.from({ length: 8 }, (_, i) => `https://b${i}.example`);
    expect(backendList(eight.join(','))).toEqual(['', ...eight.slice(0, 5)]);
    expect(backendList(eight)).toEqual(['', ...eight.slice(0, 5)]);
  });

  it('keeps absolute http(s) URLs and paths of this origin, nothing else', () => {
    expect(
      backendList([
        'https://api2.example.fr/',
        '/backend-2',
        'http://10.0.0.5:8000/api-root',
        '//evil.example',
        'javascript:alert(1)',
        'ftp://x.example',
        'https://a.example/?q=1',
        '',
        location.origin,
      ]),
    ).toEqual(['', 'https://api2.example.fr', '/backend-2', 'http://10.0.0.5:8000/api-root']);
  });
});

describe('run-time backend list (spec §9): the run-time file, else the build’s VITE_BACKEND_URLS', () => {
  const answer =
    (body: string, status = 200, type = 'application/json') =>
    () =>
      Promise.resolve(new Response(body, { status, headers: { 'content-type': type } }));
  const noAnswer = () => Promise.reject(new TypeError('Failed to fetch'));
  const CONFIG = '/config.json';
  afterEach(() => kvDelete(RUNTIME_CONFIG_KEY));

  it('reads backendUrls as a list or one comma-separated string, ignoring the rest', () => {
    expect(parseRuntimeConfig({ backendUrls: ['https://a', 3, 'https://b'], other: 1 })).toEqual({
      backendUrls: ['https://a', 'https://b'],
    });
    expect(parseRuntimeConfig({ backendUrls: 'https://a, https://b' })).toEqual({
      backendUrls: ['https://a', 'https://b'],
    });
    for (const none of [null, [], 'x', { backendUrls: 5 }]) expect(parseRuntimeConfig(none)).toEqual({});
  });

  it('prefers the run-time list to the build-time one, and falls back to it when /config.json lists none', async () => {
    const runtime = () => loadRuntimeConfig(answer('{"backendUrls":["https://run.example"]}'), CONFIG);
    expect(await startBackends('https://build.example', runtime)).toEqual(['', 'https://run.example']);
    const empty = () => loadRuntimeConfig(answer('{"backendUrls":[]}'), CONFIG);
    expect(await startBackends('https://build.example', empty)).toEqual(['', 'https://build.example']);
    const failing = () => Promise.reject(new Error('boom'));
    expect(await startBackends('https://build.example', failing)).toEqual(['', 'https://build.example']);
  });

  it('keeps the last configuration read for a start without the network, and forgets it once the file is gone', async () => {
    await loadRuntimeConfig(answer('{"backendUrls":["https://kept.example"]}'), CONFIG);
    expect(await loadRuntimeConfig(noAnswer, CONFIG)).toEqual({ backendUrls: ['https://kept.example'] });
    // A host answering every path with its index page has no configuration either.
    expect(await loadRuntimeConfig(answer('<!doctype html>', 200, 'text/html'), CONFIG)).toEqual({});
    expect(await loadRuntimeConfig(noAnswer, CONFIG)).toEqual({});
    await loadRuntimeConfig(answer('{"backendUrls":["https://kept.example"]}'), CONFIG);
    expect(await loadRuntimeConfig(answer('Not found', 404, 'text/plain'), CONFIG)).toEqual({});
    expect(await kvGet(RUNTIME_CONFIG_KEY)).toBeUndefined();
  });

  it('asks /config.json without caching, and the availability check waits for the list', async () => {
    const asked: [string, RequestInit | undefined][] = [];
    const record: typeof fetch = (url, init) => {
      asked.push([url instanceof Request ? url.url : url.toString(), init]);
      return noAnswer();
    };
    // The build names no run-time file (VITE_RUNTIME_CONFIG_URL): nothing is asked.
    expect(await loadRuntimeConfig(record, undefined)).toEqual({});
    expect(asked).toEqual([]);
    await loadRuntimeConfig(record, '/config.json');
    expect(asked[0]![0]).toBe('/config.json');
    expect(asked[0]![1]).toMatchObject({ cache: 'no-store', credentials: 'same-origin' });

    let resolve!: (list: string[]) => void;
    const list = new Promise<string[]>((r) => (resolve = r));
    setClientEnvironment({ fetch: () => Promise.reject(new TypeError('Failed to fetch')) });
    scheduleAvailabilityCheck(list, 0);
    await new Promise((r) => setTimeout(r, 10));
    expect(localDataMode.value).toBe(false);
    resolve(['']);
    await vi.waitFor(() => expect(localDataMode.value).toBe(true));
  });
});

describe('availability check (spec §1)', () => {
  it('uses the first reachable backend and leaves local-data mode off', async () => {
    const tried: string[] = [];
    const ok = await checkAvailability(['', 'https://b', 'https://c'], async (base) => {
      tried.push(base);
      return base === 'https://b';
    });
    expect(ok).toBe(true);
    expect(tried).toEqual(['', 'https://b']);
    expect(activeBackend.value).toBe('https://b');
    expect(localDataMode.value).toBe(false);
  });

  it('switches local-data mode on when no backend answers', async () => {
    expect(await checkAvailability(['', 'https://b'], async () => false)).toBe(false);
    expect(localDataMode.value).toBe(true);
  });
});

describe('availability probe (spec §7)', () => {
  /** A fetch answering `status` that records the URL and Authorization header of each request. */
  function recording(status: number) {
    const seen: { url: string; auth: string | null }[] = [];
    setClientEnvironment({
      fetch: async (input, init) => {
        seen.push({
          url: input instanceof Request ? input.url : input.toString(),
          auth: new Headers(init?.headers).get('Authorization'),
        });
        return new Response(JSON.stringify({ status: 'ok' }), {
          status,
          headers: { 'content-type': 'application/json' },
        });
      },
    });
    return seen;
  }

  it('asks a signed-out visitor’s backend its health, never the current user (no 401 on the sign-in page)', async () => {
    const seen = recording(200);
    expect(await probeBackend('', undefined)).toBe(true);
    expect(seen).toEqual([{ url: '/api/health/', auth: null }]);
  });

  it('asks about the current user with the session’s token when signed in', async () => {
    const seen = recording(200);
    expect(await probeBackend('https://b', 'access-token')).toBe(true);
    expect(seen).toEqual([{ url: 'https://b/api/current-user/', auth: 'Bearer access-token' }]);
  });

  it('counts an authentication answer as a backend, a 5xx as none', async () => {
    recording(401);
    expect(await probeBackend('', 'expired-token')).toBe(true);
    recording(502);
    expect(await probeBackend('', undefined)).toBe(false);
    recording(404);
    expect(await probeBackend('', undefined)).toBe(true);
  });
});

describe('health check (spec §9)', () => {
  it('checks at most once per 60 s and reuses the last answer in between', async () => {
    let now = 0;
    let calls = 0;
    const monitor = new HealthMonitor(
      async () => {
        calls++;
        return true;
      },
      () => now,
    );
    expect(await monitor.healthy()).toBe(true);
    now = 59_999;
    expect(await monitor.healthy()).toBe(true);
    expect(calls).toBe(1);
    now = 60_000;
    await monitor.healthy();
    expect(calls).toBe(2);
  });

  it('after three consecutive failures is bypassed and reports healthy', async () => {
    let now = 0;
    let calls = 0;
    const monitor = new HealthMonitor(
      async () => {
        calls++;
        return false;
      },
      () => now,
    );
    const answers: boolean[] = [];
    for (let i = 0; i < 5; i++) {
      answers.push(await monitor.healthy());
      now += 60_000;
    }
    expect(answers).toEqual([false, false, false, true, true]);
    expect(calls).toBe(3);
  });

  it('a success resets the failure count', async () => {
    let now = 0;
    const results = [false, false, true, false, false];
    const monitor = new HealthMonitor(
      async () => results.shift()!,
      () => now,
    );
    for (let i = 0; i < 5; i++) {
      await monitor.healthy();
      now += 60_000;
    }
    expect(monitor.consecutiveFailures).toBe(2);
  });
});

describe('mock API mode (spec §1)', () => {
  it('stores the switch where the service worker reads it and returns the alert message', async () => {
    expect(await setMockMode(true)).toBe('Mode API simulée activé : les données affichées sont des données d’exemple.');
    expect(await kvGet('mock-api-mode')).toBe(true);
    mockApiMode.value = false;
    await restoreMockMode();
    expect(mockApiMode.value).toBe(true);
    expect(await setMockMode(false)).toBe('Mode API simulée désactivé : retour aux données du serveur.');
    expect(await kvGet('mock-api-mode')).toBe(false);
  });
});

describe('no response (spec §8): the connection is tested, then the error is recorded', () => {
  /** A health monitor whose answer the test gives, and the order things happen in. */
  function setup(consecutiveFailures = 0) {
    const steps: string[] = [];
    const recorded: { type: string; details: Record<string, unknown>; severity: string }[] = [];
    let answer!: (ok: boolean) => void;
    const monitor = {
      consecutiveFailures,
      healthy: () => {
        steps.push('connection tested');
        return new Promise<boolean>((resolve) => {
          answer = (ok) => {
            steps.push(`backend ${ok ? 'reachable' : 'unreachable'}`);
            resolve(ok);
          };
        });
      },
    };
    setAuditLogSink((type, details, severity) => {
      steps.push(`recorded ${type}`);
      recorded.push({ type, details, severity });
    });
    watchConnection(() => steps.push('told'), monitor);
    // The API client's fetch rejects as when nothing answers.
    setClientEnvironment({
      fetch: () => Promise.reject(new TypeError('Failed to fetch')),
    });
    return { steps, recorded, answer: (ok: boolean) => answer(ok) };
  }

  const fail = () => apiRequest('/projects/').catch(() => undefined);
  const flush = () => new Promise((resolve) => setTimeout(resolve, 0));

  it('records api_error (error) only after the test, with its outcome: backend unreachable', async () => {
    const { steps, recorded, answer } = setup();
    await fail();
    expect(steps).toEqual(['told', 'connection tested']);
    expect(recorded).toEqual([]);
    // Another request without an answer while the test runs shares it.
    await fail();
    expect(steps).toEqual(['told', 'connection tested', 'told']);
    answer(false);
    await flush();
    expect(steps).toEqual(['told', 'connection tested', 'told', 'backend unreachable', 'recorded api_error']);
    expect(recorded).toEqual([
      {
        type: 'api_error',
        severity: 'error',
        details: {
          error: 'no_response',
          // The first request left without an answer: its path and method.
          url: '/api/projects/',
          method: 'GET',
          failure: 'network',
          connection_test: 'backend_unreachable',
          backend_reachable: false,
          unanswered_requests: 2,
          local_data_mode: true,
        },
      },
    ]);
    expect(localDataMode.value).toBe(true);
  });

  it('says so when the backend is reachable, and stays out of local-data mode', async () => {
    const { steps, recorded, answer } = setup();
    await fail();
    answer(true);
    await flush();
    expect(steps).toEqual(['told', 'connection tested', 'backend reachable', 'recorded api_error']);
    expect(recorded[0]!.details).toMatchObject({
      connection_test: 'backend_reachable',
      backend_reachable: true,
      unanswered_requests: 1,
      local_data_mode: false,
    });
    expect(localDataMode.value).toBe(false);
    // The next failure is tested and recorded again.
    await fail();
    answer(false);
    await flush();
    expect(recorded.map((r) => r.details.connection_test)).toEqual(['backend_reachable', 'backend_unreachable']);
  });

  it('does not claim the backend is reachable when the spec §9 check is bypassed', async () => {
    const { recorded, answer } = setup(3);
    await fail();
    answer(true);
    await flush();
    expect(recorded[0]!.details).toMatchObject({ connection_test: 'check_bypassed', backend_reachable: null });
  });

  it('lands in the audit buffer: error is above the spec §9 minimum level', async () => {
    const dbName = 'modes-no-response';
    const buffer = new AuditBuffer({ send: () => Promise.resolve(), beacon: () => true, dbName });
    const disconnect = connectAuditLog(buffer);
    try {
      watchConnection(undefined, { consecutiveFailures: 0, healthy: () => Promise.resolve(false) });
      setClientEnvironment({ fetch: () => Promise.reject(new TypeError('Failed to fetch')) });
      await fail();
      let events: AuditEvent[] = [];
      for (let i = 0; i < 20 && events.length === 0; i++) {
        await flush();
        if ((await buffer.size()) === 0) continue;
        const db = await openDB(dbName, 1);
        events = ((await db.getAll('events')) as { event: AuditEvent }[]).map((r) => r.event);
        db.close();
      }
      expect(events.map((e) => [e.event_type, e.severity, e.details.connection_test])).toEqual([
        ['api_error', 'error', 'backend_unreachable'],
      ]);
    } finally {
      disconnect();
      await buffer.close();
    }
  });
});
