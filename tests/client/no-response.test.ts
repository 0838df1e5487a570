import { afterEach, describe, expect, it, vi } from 'vitest';
import { useVigieClient } from './harness.ts';
import { apiRequest, setClientEnvironment } from '../../src/lib/api-client.ts';
import { login } from '../../src/features/auth/api/login.ts';
import { session } from '../../src/lib/auth/session.ts';
import { HealthMonitor, healthCheck, localDataMode, watchConnection } from '../../src/app/modes.ts';
import { setAuditLogSink } from '../../src/lib/audit-log.ts';
import { AuditBuffer } from '../../src/features/audit/audit-buffer.ts';
import { auditEventsOf } from '../server/support/world.ts';
import { TEST_PASSWORD } from '../server/helpers.ts';

const { t } = useVigieClient();
let cleanup: (() => Promise<void>) | undefined;
afterEach(async () => {
  await cleanup?.();
  cleanup = undefined;
  localDataMode.value = false;
});

/** The app's audit wiring on a buffer of the test's own, sending through the API client. */
function auditTrail(): AuditBuffer {
  const buffer = new AuditBuffer({
    dbName: `no-response-${Date.now()}`,
    beacon: () => false,
    send: (events, { endpoint, token }) =>
      apiRequest(endpoint, { method: 'POST', body: { events }, ...(token ? { token } : { anonymous: true }) }),
    getToken: () => session.value?.tokens.access_token,
    getContext: () =>
      session.value ? { user_id: session.value.profile.id, username: session.value.profile.username } : null,
  });
  // As src/app/audit.ts connects the app's trail (that module reads the build's settings, out of this project's reach).
  const disconnect = setAuditLogSink((eventType, details, severity) => void buffer.log(eventType, details, severity));
  cleanup = async () => {
    disconnect();
    await buffer.clear();
    await buffer.close();
  };
  return buffer;
}

describe('no response (spec §8, row 8.13): the backend connection is tested, then the error is recorded', () => {
  it('asks the server’s health, then records api_error, which reaches the server’s audit trail', async () => {
    await login({ username: 'analyste', password: TEST_PASSWORD });
    const buffer = auditTrail();
    const asked: string[] = [];
    watchConnection(undefined, new HealthMonitor(healthCheck));
    // The one request the network drops; every other one (the health check, the audit send) reaches the server.
    setClientEnvironment({
      fetch: (input: RequestInfo | URL, init?: RequestInit) => {
        const req = new Request(input, init);
        const path = new URL(req.url).pathname;
        asked.push(`${req.method} ${path}`);
        return path === '/api/projects/' ? Promise.reject(new TypeError('Failed to fetch')) : globalThis.fetch(req);
      },
    });

    const err = await apiRequest('/projects/', { query: { search: 'secret' } }).catch((e: unknown) => e);
    expect((err as Error).message).toBe('Backend connection failed');
    // The connection test: the server's health endpoint, asked after the failure.
    await vi.waitFor(() => expect(asked).toContain('GET /api/health/'));
    expect(asked.indexOf('GET /api/health/')).toBeGreaterThan(asked.indexOf('GET /api/projects/'));
    await vi.waitFor(async () => expect(await buffer.size()).toBe(1));
    await buffer.flush();

    const rows = await auditEventsOf(t.database.db, { eventType: 'api_error', username: 'analyste' });
    expect(rows).toHaveLength(1);
    expect(rows[0]!.severity).toBe('ERROR');
    expect((rows[0]!.details as { client: Record<string, unknown> }).client).toEqual({
      error: 'no_response',
      url: '/api/projects/',
      method: 'GET',
      failure: 'network',
      connection_test: 'backend_reachable',
      backend_reachable: true,
      unanswered_requests: 1,
      local_data_mode: false,
    });
    expect(JSON.stringify(rows[0])).not.toContain('secret');
    expect(localDataMode.value).toBe(false);
  });
});
