import { afterEach, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './helpers.ts';

describe('HTTP layer: security headers, static app, fallbacks', () => {
  let t: TestApp;
  afterEach(async () => t.close());

  it('sends a strict Content-Security-Policy on pages and /api', async () => {
    t = await createTestApp();
    for (const url of ['/', '/api/health/']) {
      const res = await t.app.inject({ method: 'GET', url, headers: { accept: 'text/html' } });
      const csp = String(res.headers['content-security-policy']);
      const scriptSrc = /script-src ([^;]+)/.exec(csp)?.[1] ?? '';
      expect(scriptSrc).toBe("'self'");
      expect(csp).not.toContain('unsafe-inline');
      expect(csp).not.toContain('unsafe-eval');
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).toContain("object-src 'none'");
      expect(res.headers['x-content-type-options']).toBe('nosniff');
    }
  });

  it('adds HSTS only for requests that arrived over https', async () => {
    t = await createTestApp({ serverOptions: { trustProxy: true } });
    const plain = await t.app.inject({ method: 'GET', url: '/api/health/' });
    expect(plain.headers['strict-transport-security']).toBeUndefined();
    const tls = await t.app.inject({ method: 'GET', url: '/api/health/', headers: { 'x-forwarded-proto': 'https' } });
    expect(tls.headers['strict-transport-security']).toContain('max-age=31536000');
  });

  it('serves app routes with index.html, never /api', async () => {
    t = await createTestApp();
    const page = await t.app.inject({ method: 'GET', url: '/dashboard', headers: { accept: 'text/html' } });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toContain('text/html');
    expect(page.body).toContain('<html lang="fr">');
    expect(page.headers['cache-control']).toBe('no-cache');

    const api = await t.app.inject({ method: 'GET', url: '/api/nothing-here/', headers: { accept: 'text/html' } });
    expect(api.statusCode).toBe(404);
    expect(api.json()).toEqual({ detail: 'Ressource introuvable.', code: 'not_found' });

    const missingAsset = await t.app.inject({ method: 'GET', url: '/assets/missing.js' });
    expect(missingAsset.statusCode).toBe(404);
  });

  it('marks hashed assets immutable and the service worker revalidated', async () => {
    t = await createTestApp();
    const asset = await t.app.inject({ method: 'GET', url: '/assets/app-abc123.js' });
    expect(asset.statusCode).toBe(200);
    expect(asset.headers['cache-control']).toContain('immutable');
    const sw = await t.app.inject({ method: 'GET', url: '/sw.js' });
    expect(sw.statusCode).toBe(200);
    expect(sw.headers['cache-control']).toBe('no-cache');
  });

  it('says the app is not built instead of serving nothing', async () => {
    t = await createTestApp({ withBuild: false });
    const page = await t.app.inject({ method: 'GET', url: '/', headers: { accept: 'text/html' } });
    expect(page.statusCode).toBe(503);
    expect(page.body).toContain('npm run build');
    const health = await t.app.inject({ method: 'GET', url: '/api/health/' });
    expect(health.statusCode).toBe(200);
  });
});
