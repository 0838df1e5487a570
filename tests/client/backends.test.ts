import { createServer, type Server } from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { useVigieClient } from './harness.ts';
import { login } from '../../src/features/auth/api/login.ts';
import { activeBackend, checkAvailability, localDataMode, MAX_BACKENDS, startBackends } from '../../src/app/modes.ts';
import { loadRuntimeConfig } from '../../src/app/runtime-config.ts';
import { TEST_PASSWORD } from '../server/helpers.ts';

const { t, seen, pointClient } = useVigieClient();

/** The host of the built app, serving (or not) the deployment's /config.json. */
let config: { status: number; body: string; type: string } | 'down' = 'down';
let host: Server;
let hostUrl: string;
let vigie: string;
const DEAD = 'http://127.0.0.1:1';

beforeAll(async () => {
  host = createServer((req, res) => {
    if (config === 'down' || req.url !== '/config.json') {
      res.writeHead(404, { 'content-type': 'text/plain' });
      return res.end('Not found');
    }
    res.writeHead(config.status, { 'content-type': config.type });
    res.end(config.body);
  });
  await new Promise<void>((r) => host.listen(0, '127.0.0.1', r));
  hostUrl = `http://127.0.0.1:${(host.address() as { port: number }).port}`;
  vigie = `http://127.0.0.1:${(t.app.server.address() as { port: number }).port}`;
});
afterAll(() => new Promise<void>((r) => host.close(() => r())));
afterEach(() => {
  activeBackend.value = '';
  localDataMode.value = false;
  config = 'down';
});

const fromHost = () => loadRuntimeConfig(globalThis.fetch, `${hostUrl}/config.json`);
const serve = (body: unknown) => (config = { status: 200, body: JSON.stringify(body), type: 'application/json' });

describe('spec §9 fallback backends (row 9.19): six entries, set at run time or at build time', () => {
  it('reads the list from /config.json at run time and signs in on the first backend that answers', async () => {
    serve({ backendUrls: [DEAD, `${vigie}/`] });
    const list = await startBackends('https://build-time.example', fromHost);
    expect(list).toEqual(['', DEAD, vigie]);

    // As at start: same origin first (nothing there in this test), then the dead one, then the Vigie server.
    pointClient({ baseUrl: '' });
    expect(await checkAvailability(list)).toBe(true);
    expect(activeBackend.value).toBe(vigie);
    expect(localDataMode.value).toBe(false);

    const profile = await login({ username: 'manager', password: TEST_PASSWORD });
    expect(profile.username).toBe('manager');
    expect(seen.requests.filter((r) => r.method === 'POST').map((r) => r.path)).toEqual(['/api/token/']);
  });

  it('uses the build-time VITE_BACKEND_URLS when the deployment has no /config.json, keeping six at most', async () => {
    const eight = [DEAD, ...Array.from({ length: 6 }, (_, i) => `http://127.0.0.1:${i + 2}`), vigie];
    const list = await startBackends(eight.join(','), fromHost);
    expect(list).toHaveLength(MAX_BACKENDS);
    expect(list).toEqual(['', ...eight.slice(0, MAX_BACKENDS - 1)]);
  });

  it('keeps the last /config.json for a start with the host out of reach, and drops it once the file is gone', async () => {
    serve({ backendUrls: [vigie] });
    expect(await startBackends(undefined, fromHost)).toEqual(['', vigie]);
    const unreachable = () => loadRuntimeConfig(globalThis.fetch, `${DEAD}/config.json`);
    expect(await startBackends(undefined, unreachable)).toEqual(['', vigie]);
    config = 'down';
    expect(await startBackends(undefined, fromHost)).toEqual(['']);
    expect(await startBackends(undefined, unreachable)).toEqual(['']);
  });
});
