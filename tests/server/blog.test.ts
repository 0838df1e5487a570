import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { crc32, deflateSync } from 'node:zlib';
import { and, eq, sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { auditEvents, blogPosts } from '../../server/src/db/schema.ts';
import { seedBlogDemo } from '../../server/src/db/seed-blog.ts';
import { slugify } from '../../server/src/repositories/blog.ts';
import { apiFor, jsonOf, jsonWithFields, type Method } from './support/api.ts';
import { backend, useTestApp } from './support/app.ts';
import { FORBIDDEN, multipart, NOT_FOUND, type FormPart } from './support/http.ts';
import { auditEventsOf, seededTenants } from './support/world.ts';

const POST_FIELDS = [
  'id',
  'title',
  'slug',
  'excerpt',
  'content',
  'author',
  'published_date',
  'tags',
  'featured_image',
  'status',
  'created_at',
  'updated_at',
].sort();
const M = {
  title: 'Le titre est obligatoire (200 caractères au plus).',
  slug: 'Lien invalide : lettres minuscules, chiffres et tirets.',
  slugTaken: 'Ce lien (slug) est déjà utilisé.',
  excerpt: 'Le résumé ne doit pas dépasser 500 caractères.',
  content: 'Le contenu est obligatoire (200 000 caractères au plus).',
  tags: '10 étiquettes au plus, de 40 caractères chacune.',
  featuredImage: 'Image mise en avant invalide : un chemin de ce site commençant par un seul / est attendu.',
  status: 'Statut invalide : draft ou published.',
  imageFormat: "Format d'image non accepté : PNG, JPEG, GIF ou WebP.",
  imageTooLarge: 'Image trop volumineuse (5 Mio au plus).',
};

/** A real PNG built from its chunks: `width` × 1 pixels of opaque RGB. */
function buildPng(width: number): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([length, body, crc]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(1, 4);
  header.writeUInt8(8, 8); // bit depth
  header.writeUInt8(2, 9); // colour type: RGB
  const row = Buffer.alloc(1 + width * 3);
  for (let x = 0; x < width; x++) row.set([200, 30 + x, 60], 1 + x * 3);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(row)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

const PNG = buildPng(3);
const SVG = Buffer.from(
  '<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>',
  'utf8',
);
const HTML = Buffer.from('<!doctype html><html><body><script>alert(document.cookie)</script></body></html>', 'utf8');
const GIF = Buffer.concat([Buffer.from('GIF89a', 'latin1'), Buffer.from([1, 0, 1, 0, 0, 0, 0, 0x2c, 0, 0, 0, 0])]);

describe('slugify', () => {
  it('derives lower-case ASCII slugs from French titles', () => {
    expect(slugify('Élévation de privilèges : l’été des correctifs')).toBe(
      'elevation-de-privileges-l-ete-des-correctifs',
    );
    expect(slugify('  Œuvre  &  Cœur — ÇA MARCHE !  ')).toBe('oeuvre-coeur-ca-marche');
    expect(slugify('CVE-2024-8190 : Ivanti CSA')).toBe('cve-2024-8190-ivanti-csa');
    expect(slugify('!!!')).toBe('article');
    const long = slugify('mot '.repeat(40));
    expect(long.length).toBeLessThanOrEqual(80);
    expect(long).toMatch(/^mot(-mot)+$/);
  });
});

describe(`blog (${backend})`, () => {
  const t = useTestApp({ runJobs: false });
  const { call } = apiFor(t);
  let acme: string;
  let horizon: string;
  beforeAll(async () => ({ acme, horizon } = await seededTenants(t.database.db)));

  const db = () => t.database.db;
  const create = async (payload: Record<string, unknown>, username = 'manager', tenant?: string) =>
    jsonOf<Record<string, unknown> & { id: number; slug: string; published_date: string | null }>(
      await call(username, 'POST', '/api/blog/posts/', { payload, ...(tenant ? { tenant } : {}) }),
      201,
    );
  const upload = async (username: string, parts: FormPart[], tenant?: string) =>
    call(username, 'POST', '/api/blog/images/', { ...multipart(parts), ...(tenant ? { tenant } : {}) });
  const auditActions = async (action: string) =>
    db()
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.eventType, 'data_change'), sql`${auditEvents.details}->>'action' = ${action}`));

  it('seeds each demo tenant with published posts and one draft', async () => {
    const acmeList = (await call('analyste', 'GET', '/api/blog/posts/')).json();
    expect(acmeList.count).toBe(3);
    for (const post of acmeList.results) {
      expect(post.status).toBe('published');
      expect(Date.parse(post.published_date)).toBeLessThan(Date.now());
      expect(post.tags.length).toBeGreaterThan(0);
    }
    const acmeAll = (await call('manager', 'GET', '/api/blog/posts/?status=all', { tenant: acme })).json();
    expect(acmeAll.count).toBe(4);
    const contents = acmeAll.results.map((p: { content: string }) => p.content).join('\n');
    for (const markdown of ['\n## ', '\n- ', '\n1. ', '| --- |', '\n```']) expect(contents).toContain(markdown);
    expect(contents).toContain('CVE-2022-40684');

    const horizonList = (await call('lecteur', 'GET', '/api/blog/posts/')).json();
    expect(horizonList.count).toBe(3);
    expect((await call('manager', 'GET', '/api/blog/posts/?status=draft', { tenant: horizon })).json().count).toBe(1);
    // The same slug lives in both tenants: slugs are unique per tenant only.
    expect((await call('lecteur', 'GET', '/api/blog/posts/prioriser-correctifs-kev-epss/')).statusCode).toBe(200);

    // Seeding again adds nothing.
    const rows = (await db().select().from(blogPosts)).length;
    expect(rows).toBe(8);
    await seedBlogDemo(db(), { acme, horizon });
    expect((await db().select().from(blogPosts)).length).toBe(rows);

    // The remaining tests start from an empty blog.
    await db().delete(blogPosts);
  });

  it('creates a post: the contract’s fields, a slug from the title, the author, an audit entry', async () => {
    const res = await call('manager', 'POST', '/api/blog/posts/', {
      tenant: acme,
      payload: {
        title: '  Élévation de privilèges : l’été des correctifs  ',
        excerpt: 'Résumé',
        content: '## Titre\n\nTexte.',
        tags: ['Windows', ' CVE ', 'windows', ''],
      },
    });
    const post = jsonWithFields(res, 201, POST_FIELDS);
    expect(post).toMatchObject({
      title: 'Élévation de privilèges : l’été des correctifs',
      slug: 'elevation-de-privileges-l-ete-des-correctifs',
      excerpt: 'Résumé',
      content: '## Titre\n\nTexte.',
      author: 'Claire Dubois',
      published_date: null,
      tags: ['Windows', 'CVE'],
      featured_image: null,
      status: 'draft',
    });
    expect(Date.parse(post.created_at)).not.toBeNaN();
    expect(Date.parse(post.updated_at)).not.toBeNaN();
    const [entry] = await auditActions('blog_post_created');
    expect(entry).toMatchObject({ tenantId: acme, username: 'manager' });
    expect(entry!.details).toMatchObject({ post_id: post.id, slug: post.slug });
  });

  it('gives a taken slug -2, -3… within a tenant, and refuses a taken slug asked for explicitly', async () => {
    const title = 'Revue des accès à privilèges';
    expect((await create({ title, content: 'a' })).slug).toBe('revue-des-acces-a-privileges');
    expect((await create({ title, content: 'b' })).slug).toBe('revue-des-acces-a-privileges-2');
    expect((await create({ title, content: 'c' })).slug).toBe('revue-des-acces-a-privileges-3');
    // Another tenant's slugs do not count.
    expect((await create({ title, content: 'd' }, 'manager', horizon)).slug).toBe('revue-des-acces-a-privileges');
    expect((await create({ title: 'Autre', slug: 'mon-lien', content: 'e' })).slug).toBe('mon-lien');

    const taken = await call('manager', 'POST', '/api/blog/posts/', {
      payload: { title: 'Encore', slug: 'mon-lien', content: 'f' },
    });
    expect(taken.statusCode).toBe(409);
    expect(taken.json()).toEqual({ detail: M.slugTaken, code: 'slug_taken', fields: { slug: [M.slugTaken] } });

    const clash = await call('manager', 'PATCH', '/api/blog/posts/mon-lien/', {
      payload: { slug: 'revue-des-acces-a-privileges-2' },
    });
    expect(clash.statusCode).toBe(409);
    expect(clash.json().detail).toBe(M.slugTaken);
    const moved = await call('manager', 'PATCH', '/api/blog/posts/mon-lien/', { payload: { slug: 'nouveau-lien' } });
    expect(moved.statusCode, moved.body).toBe(200);
    expect(moved.json().slug).toBe('nouveau-lien');
    expect((await call('manager', 'GET', '/api/blog/posts/mon-lien/')).statusCode).toBe(404);
    expect((await call('manager', 'GET', '/api/blog/posts/nouveau-lien/')).statusCode).toBe(200);
    // Its own slug again is no change, not a conflict.
    expect(
      (await call('manager', 'PATCH', '/api/blog/posts/nouveau-lien/', { payload: { slug: 'nouveau-lien' } }))
        .statusCode,
    ).toBe(200);
  });

  it('answers the contract’s validation messages, field by field', async () => {
    const refused = async (
      payload: unknown,
      field: string,
      message: string,
      method: Method = 'POST',
      url = '/api/blog/posts/',
    ) => {
      const res = await call('manager', method, url, { payload });
      expect(res.statusCode, `${JSON.stringify(payload)} → ${res.body}`).toBe(400);
      expect(res.json().code).toBe('invalid');
      expect(res.json().fields[field]).toEqual([message]);
    };
    const ok = { title: 'Titre', content: 'Contenu' };
    await refused({ content: 'x' }, 'title', M.title);
    await refused({ ...ok, title: '   ' }, 'title', M.title);
    await refused({ ...ok, title: 'x'.repeat(201) }, 'title', M.title);
    await refused({ ...ok, title: 42 }, 'title', M.title);
    await refused({ ...ok, slug: 'Mon Lien' }, 'slug', M.slug);
    await refused({ ...ok, slug: 'lien--double' }, 'slug', M.slug);
    await refused({ ...ok, slug: 'été' }, 'slug', M.slug);
    await refused({ ...ok, excerpt: 'x'.repeat(501) }, 'excerpt', M.excerpt);
    await refused({ title: 'Titre' }, 'content', M.content);
    await refused({ ...ok, content: 'x'.repeat(200_001) }, 'content', M.content);
    await refused({ ...ok, tags: Array.from({ length: 11 }, (_, i) => `t${i}`) }, 'tags', M.tags);
    await refused({ ...ok, tags: ['x'.repeat(41)] }, 'tags', M.tags);
    await refused({ ...ok, tags: 'CVE' }, 'tags', M.tags);
    for (const image of [
      'https://tracker.example/pixel.png',
      '//tracker.example/p.png',
      '/\\tracker.example',
      'images/a.png',
    ]) {
      await refused({ ...ok, featured_image: image }, 'featured_image', M.featuredImage);
    }
    await refused({ ...ok, status: 'archived' }, 'status', M.status);
    await refused({ ...ok, author: 'x', intrus: 1 }, 'intrus', 'Champ inattendu : intrus.');

    // The limits themselves are accepted.
    const edge = await create({
      title: 'é'.repeat(200),
      excerpt: 'x'.repeat(500),
      content: 'x'.repeat(200_000),
      tags: Array.from({ length: 10 }, (_, i) => `${i}`.padEnd(40, 'x')),
      featured_image: '/api/blog/images/1/',
    });
    expect(edge.featured_image).toBe('/api/blog/images/1/');
    const local = await create({ ...ok, featured_image: '/images/logo.png' });
    expect(local.featured_image).toBe('/images/logo.png');

    const url = `/api/blog/posts/${local.slug}/`;
    await refused({ title: '' }, 'title', M.title, 'PATCH', url);
    await refused({ content: '' }, 'content', M.content, 'PATCH', url);
    await refused({ slug: null }, 'slug', M.slug, 'PATCH', url);
    await refused({ status: 'public' }, 'status', M.status, 'PATCH', url);
    const cleared = await call('manager', 'PATCH', url, { payload: { featured_image: null, tags: null } });
    expect(cleared.json()).toMatchObject({ featured_image: null, tags: [], title: 'Titre' });
  });

  it('keeps Markdown exactly as written, script tags included (the client sanitises)', async () => {
    const content =
      '\n# Alerte\n\n<script>alert("xss")</script>\n\n[lien](javascript:alert(1)) <img src=x onerror=alert(1)>\n\n' +
      '```js\nconsole.log("<b>")\n```\n  ';
    const post = await create({ title: 'Contenu brut', content, excerpt: '<b>gras</b>' });
    expect(post.content).toBe(content);
    expect(post.excerpt).toBe('<b>gras</b>');
    const read = (await call('manager', 'GET', `/api/blog/posts/${post.slug}/`)).json();
    expect(read.content).toBe(content);
  });

  it('sets published_date on the first publication only; unpublishing keeps it', async () => {
    const draft = await create({ title: 'Publication différée', content: 'x' });
    expect(draft.published_date).toBeNull();
    const url = `/api/blog/posts/${draft.slug}/`;
    const before = Date.now();
    const published = (await call('manager', 'PATCH', url, { payload: { status: 'published' } })).json();
    expect(published.status).toBe('published');
    const date = published.published_date as string;
    expect(Date.parse(date)).toBeGreaterThanOrEqual(before - 1000);
    expect(Date.parse(date)).toBeLessThanOrEqual(Date.now() + 1000);

    const unpublished = (await call('manager', 'PATCH', url, { payload: { status: 'draft' } })).json();
    expect(unpublished).toMatchObject({ status: 'draft', published_date: date });
    expect((await call('analyste', 'GET', url)).statusCode).toBe(404);
    const again = (await call('manager', 'PATCH', url, { payload: { status: 'published', title: 'Republié' } })).json();
    expect(again).toMatchObject({ status: 'published', published_date: date, title: 'Republié', slug: draft.slug });
    expect((await call('analyste', 'GET', url)).statusCode).toBe(200);

    const direct = await create({ title: 'Publié tout de suite', content: 'x', status: 'published' });
    expect(Date.parse(direct.published_date!)).toBeGreaterThanOrEqual(before - 1000);
    expect((await auditActions('blog_post_published')).length).toBeGreaterThanOrEqual(2);
    expect((await auditActions('blog_post_unpublished')).length).toBe(1);
  });

  describe('lists', () => {
    beforeAll(async () => {
      await db().delete(blogPosts);
      // Twelve published posts (the newest last), two drafts, and one post in the other tenant.
      for (let i = 1; i <= 12; i++) {
        await create({
          title: `Article ${i}`,
          excerpt: i === 7 ? 'Spécial rançongiciel' : `Résumé ${i}`,
          content: 'x',
          tags: i % 3 === 0 ? ['Rançongiciel', 'CVE'] : ['CVE'],
          status: 'published',
        });
        await new Promise((r) => setTimeout(r, 3));
      }
      await create({ title: 'Brouillon A', content: 'x', tags: ['Secret'] });
      await create({ title: 'Brouillon B rançongiciel', content: 'x' });
      await create(
        { title: 'Article Horizon', content: 'x', status: 'published', tags: ['Horizon'] },
        'manager',
        horizon,
      );
    });

    it('pages newest published first: {count, next, previous, results}', async () => {
      const first = (await call('analyste', 'GET', '/api/blog/posts/')).json();
      expect(Object.keys(first).sort()).toEqual(['count', 'next', 'previous', 'results']);
      expect(first.count).toBe(12);
      expect(first.results).toHaveLength(10);
      expect(first.results[0].title).toBe('Article 12');
      expect(first.results[9].title).toBe('Article 3');
      expect(first.previous).toBeNull();
      expect(first.next).toBe('/api/blog/posts/?page=2');
      const second = (await call('analyste', 'GET', first.next)).json();
      expect(second.results.map((p: { title: string }) => p.title)).toEqual(['Article 2', 'Article 1']);
      expect(second.next).toBeNull();
      expect(second.previous).toBe('/api/blog/posts/?page=1');

      const small = (await call('analyste', 'GET', '/api/blog/posts/?page_size=5&page=2&tag=cve')).json();
      expect(small.results.map((p: { title: string }) => p.title)).toEqual([7, 6, 5, 4, 3].map((n) => `Article ${n}`));
      expect(small.next).toBe('/api/blog/posts/?page_size=5&tag=cve&page=3');
      expect(small.previous).toBe('/api/blog/posts/?page_size=5&tag=cve&page=1');

      const big = await call('analyste', 'GET', '/api/blog/posts/?page_size=51');
      expect(big.statusCode).toBe(400);
      expect(big.json().fields.page_size).toEqual(['Taille de page invalide : un entier entre 1 et 50 est attendu.']);
      expect((await call('analyste', 'GET', '/api/blog/posts/?page_size=50')).json().results).toHaveLength(12);
    });

    it('filters by exact tag (any case) and by a substring of the title or excerpt', async () => {
      const tagged = (await call('analyste', 'GET', '/api/blog/posts/?tag=RANÇONGICIEL')).json();
      expect(tagged.results.map((p: { title: string }) => p.title)).toEqual([
        'Article 12',
        'Article 9',
        'Article 6',
        'Article 3',
      ]);
      expect((await call('analyste', 'GET', '/api/blog/posts/?tag=Rançon')).json().count).toBe(0);
      const byExcerpt = (await call('analyste', 'GET', '/api/blog/posts/?q=RANÇON')).json();
      expect(byExcerpt.results.map((p: { title: string }) => p.title)).toEqual(['Article 7']);
      const byTitle = (await call('analyste', 'GET', '/api/blog/posts/?q=ticle 1')).json();
      expect(byTitle.count).toBe(4); // 1, 10, 11, 12
      const withDrafts = (await call('manager', 'GET', '/api/blog/posts/?q=rançon&status=all')).json();
      expect(withDrafts.results.map((p: { title: string }) => p.title)).toEqual([
        'Brouillon B rançongiciel',
        'Article 7',
      ]);
      const drafts = (await call('admin', 'GET', `/api/blog/posts/?status=draft`)).json();
      expect(drafts.count).toBe(2);
      const bad = await call('manager', 'GET', '/api/blog/posts/?status=archived');
      expect(bad.statusCode).toBe(400);
      expect(bad.json().fields.status).toEqual(['Statut invalide : published, draft ou all.']);
    });

    it('counts the tags of published posts, most used first', async () => {
      const res = await call('analyste', 'GET', '/api/blog/tags/');
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({
        results: [
          { tag: 'CVE', count: 12 },
          { tag: 'Rançongiciel', count: 4 },
        ],
      });
      expect((await call('lecteur', 'GET', '/api/blog/tags/')).json()).toEqual({
        results: [{ tag: 'Horizon', count: 1 }],
      });
    });
  });

  it('lets only admins and managers write or see drafts; every member reads published posts', async () => {
    const draft = await create({ title: 'Brouillon confidentiel', content: 'x' });
    const published = await create({ title: 'Note publique', content: 'x', status: 'published' });
    const horizonDraft = await create({ title: 'Brouillon Horizon', content: 'x' }, 'manager', horizon);

    // analyste: a 'user' of Acme; lecteur: read-only in Horizon.
    for (const [username, tenant, slug] of [
      ['analyste', acme, draft.slug],
      ['lecteur', horizon, horizonDraft.slug],
    ] as const) {
      const opts = { tenant };
      const writes = [
        await call(username, 'POST', '/api/blog/posts/', { ...opts, payload: { title: 'Non', content: 'x' } }),
        await call(username, 'PATCH', `/api/blog/posts/${slug}/`, { ...opts, payload: { title: 'Non' } }),
        await call(username, 'DELETE', `/api/blog/posts/${slug}/`, opts),
        await upload(username, [{ name: 'file', filename: 'a.png', content: PNG }], tenant),
      ];
      for (const res of writes) {
        expect(res.statusCode, `${username}: ${res.body}`).toBe(403);
        expect(res.json()).toEqual(FORBIDDEN);
      }
      expect((await call(username, 'GET', `/api/blog/posts/${slug}/`, opts)).json()).toEqual(NOT_FOUND);
      for (const status of ['draft', 'all']) {
        const res = await call(username, 'GET', `/api/blog/posts/?status=${status}`, opts);
        expect(res.statusCode).toBe(403);
        expect(res.json()).toEqual(FORBIDDEN);
      }
      const list = (await call(username, 'GET', '/api/blog/posts/?page_size=50', opts)).json();
      expect(list.results.every((p: { status: string }) => p.status === 'published')).toBe(true);
    }
    expect((await call('analyste', 'GET', `/api/blog/posts/${published.slug}/`)).json().title).toBe('Note publique');
    const denied = await auditEventsOf(db(), { eventType: 'permission_denied', username: 'lecteur' });
    expect(denied.length).toBeGreaterThanOrEqual(4);

    // The superuser writes in any tenant; a manager reads drafts.
    const byAdmin = await create({ title: 'Écrit par l’administrateur', content: 'x' }, 'admin', acme);
    expect(byAdmin.author).toBe('Camille Laurent');
    expect((await call('manager', 'GET', `/api/blog/posts/${draft.slug}/`, { tenant: acme })).statusCode).toBe(200);
    expect((await call('manager', 'DELETE', `/api/blog/posts/${byAdmin.slug}/`)).statusCode).toBe(204);
    expect((await call('manager', 'GET', `/api/blog/posts/${byAdmin.slug}/`)).statusCode).toBe(404);
    expect((await auditActions('blog_post_deleted')).length).toBe(1);
    expect((await call('manager', 'DELETE', '/api/blog/posts/inconnu/')).json()).toEqual(NOT_FOUND);
    const anonymous = await t.app.inject({ method: 'GET', url: '/api/blog/posts/' });
    expect(anonymous.statusCode).toBe(401);
  });

  it('keeps each tenant’s blog to itself', async () => {
    const secret = await create({ title: 'Plan de réponse Acme', content: 'x', status: 'published' }, 'manager', acme);
    const url = `/api/blog/posts/${secret.slug}/`;
    expect((await call('manager', 'GET', url, { tenant: horizon })).json()).toEqual(NOT_FOUND);
    expect((await call('lecteur', 'GET', url)).json()).toEqual(NOT_FOUND);
    expect((await call('manager', 'PATCH', url, { tenant: horizon, payload: { title: 'Volé' } })).statusCode).toBe(404);
    expect((await call('manager', 'DELETE', url, { tenant: horizon })).statusCode).toBe(404);
    const list = (await call('manager', 'GET', '/api/blog/posts/?status=all&page_size=50', { tenant: horizon })).json();
    expect(list.results.map((p: { slug: string }) => p.slug)).not.toContain(secret.slug);
    expect((await call('manager', 'GET', '/api/blog/posts/?q=Acme', { tenant: horizon })).json().count).toBe(0);
    // Asking for a tenant one is not a member of is refused outright.
    expect((await call('lecteur', 'GET', url, { tenant: acme })).statusCode).toBe(403);
    expect((await call('manager', 'GET', url, { tenant: acme })).statusCode).toBe(200);
  });

  describe('images', () => {
    it('stores a PNG and serves it back byte for byte, with the contract’s headers', async () => {
      const res = await upload(
        'manager',
        [{ name: 'file', filename: 'schéma réseau.png', content: PNG, type: 'image/png' }],
        acme,
      );
      const image = jsonWithFields(res, 201, ['content_type', 'id', 'size', 'url']);
      expect(image).toEqual({
        id: image.id,
        url: `/api/blog/images/${image.id}/`,
        content_type: 'image/png',
        size: PNG.length,
      });

      // Any reader of the tenant gets it.
      const served = await call('analyste', 'GET', image.url);
      expect(served.statusCode).toBe(200);
      expect(served.rawPayload.equals(PNG)).toBe(true);
      expect(served.headers['content-type']).toBe('image/png');
      expect(served.headers['x-content-type-options']).toBe('nosniff');
      expect(served.headers['content-security-policy']).toBe("default-src 'none'; sandbox");
      expect(served.headers['cache-control']).toBe('private, max-age=3600');

      // Under a server-made key, outside any web root.
      const dir = path.join(t.filesDir, 'documents', 'blog', acme);
      expect(existsSync(dir)).toBe(true);
      const files = readdirSync(dir);
      expect(files).toHaveLength(1);
      expect(files[0]).toMatch(/^[0-9a-f-]{36}$/);
      const [entry] = await auditActions('blog_image_uploaded');
      expect(entry!.details).toMatchObject({ image_id: image.id, content_type: 'image/png', size: PNG.length });

      // Another tenant cannot reach it, whoever asks.
      const other = await call('manager', 'GET', image.url, { tenant: horizon });
      expect(other.statusCode).toBe(404);
      expect(other.json()).toEqual(NOT_FOUND);
      const lecteur = await call('lecteur', 'GET', image.url);
      expect(lecteur.statusCode).toBe(404);
      expect((await call('analyste', 'GET', '/api/blog/images/abc/')).statusCode).toBe(404);
    });

    it('takes the type from the bytes, not the name', async () => {
      const gif = await upload('admin', [{ name: 'file', filename: 'anim.png', content: GIF }], horizon);
      expect(gif.statusCode, gif.body).toBe(201);
      expect(gif.json().content_type).toBe('image/gif');
      const served = await call('lecteur', 'GET', gif.json().url);
      expect(served.headers['content-type']).toBe('image/gif');
      expect(served.rawPayload.equals(GIF)).toBe(true);
    });

    it('refuses SVG, a disguised HTML page, an empty part and an oversized image', async () => {
      const before = readdirSync(path.join(t.filesDir, 'documents', 'blog', acme)).length;
      for (const [filename, content, type] of [
        ['logo.svg', SVG, 'image/svg+xml'],
        ['photo.png', HTML, 'image/png'],
        ['vide.png', Buffer.alloc(0), 'image/png'],
      ] as const) {
        const res = await upload('manager', [{ name: 'file', filename, content, type }], acme);
        expect(res.statusCode, filename).toBe(400);
        expect(res.json()).toEqual({
          detail: M.imageFormat,
          code: 'unsupported_image',
          fields: { file: [M.imageFormat] },
        });
      }
      const oversized = Buffer.concat([PNG, Buffer.alloc(5 * 1024 * 1024 + 1 - PNG.length)]);
      const big = await upload('manager', [{ name: 'file', filename: 'grande.png', content: oversized }], acme);
      expect(big.statusCode).toBe(413);
      expect(big.json()).toMatchObject({ detail: M.imageTooLarge, code: 'file_too_large' });
      // Exactly 5 MiB is accepted.
      const limit = Buffer.concat([PNG, Buffer.alloc(5 * 1024 * 1024 - PNG.length)]);
      expect(
        (await upload('manager', [{ name: 'file', filename: 'limite.png', content: limit }], acme)).statusCode,
      ).toBe(201);
      expect(readdirSync(path.join(t.filesDir, 'documents', 'blog', acme))).toHaveLength(before + 1);

      const missing = await upload('manager', [{ name: 'legende', value: 'x' }], acme);
      expect(missing.statusCode).toBe(400);
      expect(missing.json().fields).toEqual({ file: ["L'image est requise (champ file)."] });
      const json = await call('manager', 'POST', '/api/blog/images/', { payload: { file: 'x' } });
      expect(json.statusCode).toBe(400);
      expect(json.json().detail).toBe("L'image doit être envoyée en multipart/form-data (champ file).");
    });
  });
});
