import type { AddressInfo } from 'node:net';
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, DEFAULT_MAX_IN_FLIGHT, loadConfig } from '../../server/src/config.ts';
import { STORAGE_MESSAGES } from '../../server/src/domain/storage-errors.ts';
import { RequestGate } from '../../server/src/plugins/app/request-gate.ts';
import { createTestApp, signIn, type TestApp } from './helpers.ts';
import { backend } from './support/app.ts';

/**
 * Issue 19, shedding beyond the crowd: past the process's limit of API requests in progress, one more is answered
 * 503 « Serveur surchargé » with Retry-After at once, before any work; health probes pass whatever the crowd, and a
 * place frees as soon as an answer ends or its client leaves.
 */
describe('RequestGate', () => {
  it('lets `max` requests in, turns the next away, and frees a place once per release', () => {
    const gate = new RequestGate(2);
    const a = gate.tryEnter();
    const b = gate.tryEnter();
    expect(a && b).toBeTruthy();
    expect(gate.tryEnter()).toBeUndefined();
    expect(gate.refused).toBe(1);
    a!();
    a!();
    expect(gate.inFlight).toBe(1);
    const c = gate.tryEnter();
    expect(c).toBeTruthy();
    expect(gate.tryEnter()).toBeUndefined();
    expect(gate.refused).toBe(2);
  });
});

describe('VIGIE_MAX_IN_FLIGHT', () => {
  it('defaults well above a SOC room of 200 clients, and refuses what is no positive integer', () => {
    expect(loadConfig({}).maxInFlight).toBe(DEFAULT_MAX_IN_FLIGHT);
    expect(DEFAULT_MAX_IN_FLIGHT).toBeGreaterThanOrEqual(300);
    expect(loadConfig({ VIGIE_MAX_IN_FLIGHT: '50' }).maxInFlight).toBe(50);
    expect(() => loadConfig({ VIGIE_MAX_IN_FLIGHT: '0' })).toThrow(ConfigError);
    expect(() => loadConfig({ VIGIE_MAX_IN_FLIGHT: 'many' })).toThrow(ConfigError);
  });
});

describe(`the request gate in the app (${backend})`, () => {
  let t: TestApp;
  let access: string;
  let adminAccess: string;
  let port: number;
  beforeAll(async () => {
    t = await createTestApp({ runJobs: false, maxInFlight: 2 });
    ({ access } = await signIn(t.app, 'analyste'));
    ({ access: adminAccess } = await signIn(t.app, 'admin'));
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    port = (t.app.server.address() as AddressInfo).port;
  });
  afterAll(async () => t?.close());

  /** A request in progress until the socket is destroyed: its headers are in, its body never comes. */
  const pending = async (): Promise<Socket> => {
    const socket = connect(port, '127.0.0.1');
    socket.on('error', () => {});
    socket.write(
      `POST /api/projects/ HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${access}\r\n` +
        'Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{',
    );
    return socket;
  };
  const until = async (check: () => boolean) => {
    for (let i = 0; i < 100 && !check(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(check()).toBe(true);
  };
  const list = () =>
    fetch(`http://127.0.0.1:${port}/api/vulnerabilities/vulnerabilities/`, {
      headers: { authorization: `Bearer ${access}` },
    });

  it('answers 503 with Retry-After and the French detail past its limit, passes health probes, and frees places', async () => {
    // Answers that ended gave their places back.
    expect((await list()).status).toBe(200);
    expect((await list()).status).toBe(200);
    expect(t.requestGate.inFlight).toBe(0);

    const sockets = [await pending(), await pending()];
    await until(() => t.requestGate.inFlight === 2);

    const refused = await list();
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(refused.headers.get('cache-control')).toBe('no-store');
    expect(await refused.json()).toEqual({ detail: STORAGE_MESSAGES.busy, code: 'server_busy' });
    expect((await fetch(`http://127.0.0.1:${port}/api/health/`)).status).toBe(200);
    // Only the API is gated: the application's own files still load.
    expect((await fetch(`http://127.0.0.1:${port}/`)).status).toBe(200);

    // A client that leaves frees its place.
    sockets[0]!.destroy();
    await until(() => t.requestGate.inFlight === 1);
    expect((await list()).status).toBe(200);

    sockets[1]!.destroy();
    await until(() => t.requestGate.inFlight === 0);
    const status = await fetch(`http://127.0.0.1:${port}/api/admin/status/connections/`, {
      headers: { authorization: `Bearer ${adminAccess}` },
    });
    expect(status.status).toBe(200);
    expect((await status.json()).requests).toEqual({ in_flight: 1, max: 2, refused: 1 });
  });
});
