import { afterEach, describe, expect, it } from 'vitest';
import { connectSources } from '../../server/src/plugins/external/security-headers.ts';
import { createTestApp, type TestApp } from './helpers.ts';
import { withEnv } from './support/app.ts';

// Spec §9.19's fallback backends on another origin: the page may reach them only if the CSP's connect-src names them
// (VIGIE_CONNECT_SRC); nothing else opens it.

describe('VIGIE_CONNECT_SRC: the fallback backends the page may call', () => {
  let t: TestApp | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  it('reads http(s) origins, without repeats; none by default', () => {
    expect(connectSources(undefined)).toEqual([]);
    expect(connectSources(' https://api2.example.fr , http://10.0.0.5:8000/,https://api2.example.fr')).toEqual([
      'https://api2.example.fr',
      'http://10.0.0.5:8000',
    ]);
  });

  it('refuses anything that is not an origin, so a typo cannot open the policy', () => {
    for (const bad of [
      '*',
      'https://*.example.fr',
      'https://api.example.fr/api/',
      'api.example.fr',
      'ftp://x.fr',
      'data:',
    ])
      expect(() => connectSources(bad), bad).toThrow(/VIGIE_CONNECT_SRC/);
  });

  it('adds them to connect-src, and only there', async () => {
    t = await withEnv({ VIGIE_CONNECT_SRC: 'https://api2.example.fr' }, () => createTestApp());
    const res = await t.app.inject({ method: 'GET', url: '/api/health/' });
    const csp = String(res.headers['content-security-policy']);
    expect(/connect-src ([^;]+)/.exec(csp)?.[1]).toBe("'self' https://api2.example.fr");
    expect(/script-src ([^;]+)/.exec(csp)?.[1]).toBe("'self'");
    expect(/default-src ([^;]+)/.exec(csp)?.[1]).toBe("'self'");
  });

  it('keeps connect-src to the app’s own origin without it', async () => {
    t = await withEnv({ VIGIE_CONNECT_SRC: undefined }, () => createTestApp());
    const res = await t.app.inject({ method: 'GET', url: '/api/health/' });
    expect(/connect-src ([^;]+)/.exec(String(res.headers['content-security-policy']))?.[1]).toBe("'self'");
  });
});
