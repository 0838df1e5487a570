import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import type { FastifyInstance, RouteOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { onPostgres } from './helpers.ts';
import { appWithRouteList } from './support/route-list.ts';

interface Operation {
  responses?: Record<string, { description?: string }>;
}
interface Document {
  openapi: string;
  info: { title: string; version: string };
  paths: Record<string, Record<string, Operation>>;
}

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];
/** `/api/x/:id/` and `/api/x/{pk}/` both read `/api/x/{}/`; the trailing slash is optional in the API. */
const shape = (url: string) =>
  url
    .replace(/:[A-Za-z_]+/g, '{}')
    .replace(/\{[^}]*\}/g, '{}')
    .replace(/\/\d+(?=\/|$)/g, '/{}')
    .replace(/\/$/, '');

describe(`OpenAPI document (${onPostgres ? 'PostgreSQL' : 'PGlite'})`, () => {
  let fastify: FastifyInstance;
  let close: (() => Promise<void>) | undefined;
  let routes: RouteOptions[] = [];
  let doc: Document;

  beforeAll(async () => {
    ({ fastify, routes, close } = await appWithRouteList());
    const res = await fastify.inject({ method: 'GET', url: '/api/openapi.json' });
    expect(res.statusCode).toBe(200);
    doc = res.json();
  });
  afterAll(async () => {
    await close?.();
  });

  it('is served at /api/openapi.json as OpenAPI 3.1 with the app version', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.title).toBe('Vigie API');
    const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };
    expect(doc.info.version).toBe(pkg.version);
  });

  it('documents every API route with its responses, and nothing else', () => {
    const documented = new Map<string, Operation>();
    for (const [url, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) documented.set(`${method.toUpperCase()} ${shape(url)}`, op);
    }
    const missing: string[] = [];
    const withoutResponses: string[] = [];
    const seen = new Set<string>();
    for (const route of routes) {
      if (!route.url.startsWith('/api/') || route.url.startsWith('/api/docs') || route.url === '/api/openapi.json')
        continue;
      if (route.url.includes('*')) continue; // the /api catch-all that answers 404
      for (const method of [route.method].flat()) {
        if (!METHODS.includes(method)) continue;
        const key = `${method} ${shape(route.url)}`;
        if (seen.has(key)) continue;
        seen.add(key);
        const op = documented.get(key);
        if (!op) missing.push(key);
        else if (
          !Object.entries(op.responses ?? {}).some(
            ([status, r]) => /^2\d\d$/.test(status) && r.description !== 'Default Response',
          )
        )
          withoutResponses.push(key);
      }
    }
    expect(seen.size).toBeGreaterThan(100);
    expect(missing).toEqual([]);
    expect(withoutResponses).toEqual([]);
    // Nothing of the PWA or the documentation's own files is an operation.
    expect(Object.keys(doc.paths).filter((p) => !p.startsWith('/api/'))).toEqual([]);
  });

  it('agrees with docs/api-*.md on paths', () => {
    const inDocument = new Set(Object.keys(doc.paths).map(shape));
    const inMarkdown = new Set<string>();
    for (const file of readdirSync('docs').filter((f) => /^api-.*\.md$/.test(f))) {
      const text = readFileSync(path.join('docs', file), 'utf8');
      // `GET /api/x/{id}/` or, in tables relative to /api, `GET/PATCH /x/{id}/?page=`.
      for (const m of text.matchAll(
        /`(?:GET|POST|PUT|PATCH|DELETE)(?:\/(?:GET|POST|PUT|PATCH|DELETE))* (\/[^`?\s]*)/g,
      )) {
        const url = m[1]!.startsWith('/api/') ? m[1]! : `/api${m[1]!}`;
        inMarkdown.add(shape(url));
      }
    }
    expect(inMarkdown.size).toBeGreaterThan(50);
    expect([...inMarkdown].filter((p) => !inDocument.has(p))).toEqual([]);
  });

  it('serves a browsable reference under /api/docs with the strict CSP kept', async () => {
    const page = await fastify.inject({ method: 'GET', url: '/api/docs/' });
    const html =
      page.statusCode === 302 || page.statusCode === 301
        ? (await fastify.inject({ method: 'GET', url: String(page.headers.location) })).body
        : page.body;
    expect(html).toContain('swagger-ui');
    expect(html).not.toMatch(/<script>(?!\s*<\/script>)/);
    const csp = String(page.headers['content-security-policy']);
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    const initializer = await fastify.inject({ method: 'GET', url: '/api/docs/static/swagger-initializer.js' });
    expect(initializer.statusCode).toBe(200);
  });
});
