import { describe, expect, it } from 'vitest';
import { apiFor } from './support/api.ts';
import { backend, useTestApp } from './support/app.ts';
import { ACME } from './support/world.ts';

// Issue 17: a limit of N characters takes N emoji (each two UTF-16 units), as JSON Schema's maxLength already did.
const EMOJI = '😀';
let serial = 0;
/** `n` characters: emoji, ending with a counter so names stay unique. */
const emoji = (n: number) => {
  const tag = String(++serial);
  return EMOJI.repeat(n - tag.length) + tag;
};

describe(`lengths count characters, not UTF-16 units (${backend})`, () => {
  const t = useTestApp({ runJobs: false });
  const api = apiFor(t);

  const cases: { what: string; url: string; field: string; limit: number; body: (text: string) => object }[] = [
    { what: 'asset name', url: '/api/assets/', field: 'name', limit: 200, body: (name) => ({ name }) },
    { what: 'project name', url: '/api/projects/', field: 'name', limit: 200, body: (name) => ({ name }) },
    { what: 'threat title', url: '/api/threats/', field: 'title', limit: 300, body: (title) => ({ title }) },
    {
      what: 'finding title',
      url: '/api/vulnerabilities/vulnerabilities/',
      field: 'title',
      limit: 500,
      body: (title) => ({ title, severity: 'low' }),
    },
    { what: 'scan name', url: '/api/vulnerabilities/scans/', field: 'name', limit: 200, body: (name) => ({ name }) },
    {
      what: 'blog title',
      url: '/api/blog/posts/',
      field: 'title',
      limit: 200,
      body: (title) => ({ title, content: 'Texte', status: 'draft' }),
    },
    {
      what: 'notification title',
      url: '/api/notifications/notifications/',
      field: 'title',
      limit: 200,
      body: (title) => ({ title }),
    },
    {
      what: 'tenant name',
      url: '/api/admin/tenants/',
      field: 'name',
      limit: 200,
      body: (name) => ({ name, domain: `longueurs-${++serial}.fr` }),
    },
  ];

  it.each(cases)('takes $limit emoji as a $what, and refuses one more', async ({ url, field, limit, body }) => {
    const fits = await api.call('admin', 'POST', url, { tenant: ACME, payload: body(emoji(limit)) });
    expect(fits.statusCode, fits.body).toBe(201);
    const over = await api.call('admin', 'POST', url, { tenant: ACME, payload: body(emoji(limit + 1)) });
    expect(over.statusCode, over.body).toBe(400);
    expect(Object.keys(over.json().fields)).toEqual([field]);
  });

  it('counts the profile’s names in characters too', async () => {
    const fits = await api.call('analyste', 'PATCH', '/api/accounts/me/', {
      payload: { first_name: EMOJI.repeat(150) },
    });
    expect(fits.statusCode, fits.body).toBe(200);
    const over = await api.call('analyste', 'PATCH', '/api/accounts/me/', {
      payload: { first_name: EMOJI.repeat(151) },
    });
    expect(over.statusCode).toBe(400);
  });
});
