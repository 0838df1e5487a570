// @vitest-environment jsdom
// DOMPurify does not support happy-dom (its sanitising is broken there): the blog screens are checked in jsdom.
import { act } from 'react';
import { Route, Switch } from 'wouter';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { json, settle, setupScreen, signIn, type ScreenHandler } from './screen-helpers.tsx';
import BlogListPage from '../../src/features/blog/blog-list-page.tsx';
import BlogPostPage from '../../src/features/blog/blog-post-page.tsx';
import BlogEditorPage from '../../src/features/blog/blog-editor-page.tsx';
import { mayWriteBlog, slugify } from '../../src/features/blog/blog-api.ts';
import blogSample from '../../sample-data/blog-posts.json';

const screen = setupScreen();

function post(slug: string, extra: Record<string, unknown> = {}) {
  return {
    id: 1,
    title: `Titre ${slug}`,
    slug,
    excerpt: `Résumé ${slug}`,
    content:
      '## Section\n\n| A | B |\n| --- | --- |\n| 1 | 2 |\n\n<script>window.hacked = true</script>\n\n<img src="x" onerror="window.hacked = true">',
    author: 'Claire Moreau',
    published_date: '2025-05-20T09:00:00Z',
    tags: ['CVE', 'Citrix'],
    featured_image: null,
    status: 'published',
    created_at: '2025-05-19T09:00:00Z',
    updated_at: '2025-05-20T09:00:00Z',
    ...extra,
  };
}

const page = (results: unknown[], count = results.length) => ({ count, next: null, previous: null, results });

function api(
  overrides: Partial<Record<'list' | 'one' | 'write' | 'upload' | 'image', ScreenHandler>> = {},
): ScreenHandler {
  return (method, url, body) => {
    const path = url.pathname;
    if (path === '/api/blog/tags/')
      return json({
        results: [
          { tag: 'CVE', count: 2 },
          { tag: 'KEV', count: 1 },
        ],
      });
    if (path === '/api/blog/images/' && method === 'POST')
      return (
        overrides.upload?.(method, url, body) ??
        json({ id: 5, url: '/api/blog/images/5/', content_type: 'image/png', size: 3 }, 201)
      );
    if (path.startsWith('/api/blog/images/'))
      return (
        overrides.image?.(method, url, body) ??
        new Response(new Uint8Array([137, 80, 78]), { headers: { 'content-type': 'image/png' } })
      );
    if (path === '/api/blog/posts/' && method === 'GET')
      return (
        overrides.list?.(method, url, body) ?? json(page([post('citrix-bleed'), post('kev-epss', { tags: ['KEV'] })]))
      );
    if (method !== 'GET')
      return overrides.write?.(method, url, body) ?? json(post('nouvel-article', { ...(body as object) }), 201);
    return overrides.one?.(method, url, body) ?? json(post(decodeURIComponent(path.split('/')[4] ?? '')));
  };
}

function Pages() {
  return (
    <Switch>
      <Route path="/blog" component={BlogListPage} />
      <Route path="/blog/new">
        <BlogEditorPage key="new" />
      </Route>
      <Route path="/blog/:slug/edit">
        <BlogEditorPage key="edit" />
      </Route>
      <Route path="/blog/:slug" component={BlogPostPage} />
    </Switch>
  );
}

async function render(url: string) {
  window.history.replaceState(null, '', url);
  act(() => screen.root.render(<Pages />));
  await settle();
}

const text = () => screen.container.textContent ?? '';
const cards = () => [...screen.container.querySelectorAll<HTMLElement>('article.blog-card')];
const button = (label: string) =>
  [...screen.container.querySelectorAll<HTMLButtonElement>('button')].find((b) => b.textContent?.startsWith(label));
const link = (label: string) =>
  [...screen.container.querySelectorAll<HTMLAnchorElement>('a')].find((a) => a.textContent === label);
const calls = (method: string, path: string) =>
  screen.calls.filter((c) => c.method === method && c.url.pathname === path);

function setValue(el: HTMLInputElement | HTMLTextAreaElement, value: string) {
  const proto = el instanceof HTMLTextAreaElement ? HTMLTextAreaElement.prototype : HTMLInputElement.prototype;
  act(() => {
    Object.getOwnPropertyDescriptor(proto, 'value')!.set!.call(el, value);
    el.dispatchEvent(new Event('input', { bubbles: true }));
  });
}

function field(label: string): HTMLInputElement {
  const l = [...screen.container.querySelectorAll('label')].find((x) => x.textContent?.startsWith(label))!;
  return document.getElementById(l.htmlFor) as HTMLInputElement;
}

beforeEach(() => {
  screen.handler = api();
  URL.createObjectURL = vi.fn(() => 'blob:http://localhost/img-1');
  (window as { hacked?: boolean }).hacked = false;
});

afterEach(() => {
  expect((window as { hacked?: boolean }).hacked).toBe(false);
});

describe('blog rules', () => {
  it('writers mirror the server: tenant admins and managers, staff, superusers', () => {
    const base = { id: 1, username: 'a', email: 'a@x.fr' };
    expect(mayWriteBlog({ ...base, role: 'admin' }, 't1')).toBe(true);
    expect(mayWriteBlog({ ...base, role: 'manager' }, 't1')).toBe(true);
    expect(mayWriteBlog({ ...base, role: 'user', is_staff: true }, 't1')).toBe(true);
    expect(mayWriteBlog({ ...base, is_superuser: true }, 't1')).toBe(true);
    expect(mayWriteBlog({ ...base, role: 'user' }, 't1')).toBe(false);
    expect(mayWriteBlog({ ...base, role: 'readonly' }, 't1')).toBe(false);
    // The membership's role in the current tenant wins over the profile's.
    expect(
      mayWriteBlog({ ...base, role: 'admin', tenant_memberships: [{ tenant_id: 't1', role: 'readonly' }] }, 't1'),
    ).toBe(false);
    expect(slugify('Citrix Bleed : fermer les sessions, vite !')).toBe('citrix-bleed-fermer-les-sessions-vite');
    expect(slugify('Prioriser les correctifs (KEV / EPSS) — été')).toBe('prioriser-les-correctifs-kev-epss-ete');
  });
});

describe('BlogListPage', () => {
  it('shows cards with title, excerpt, author, French date and tags', async () => {
    await render('/blog');
    expect(cards()).toHaveLength(2);
    const first = cards()[0]!;
    expect(first.querySelector('h2 a')!.getAttribute('href')).toBe('/blog/citrix-bleed');
    expect(first.textContent).toContain('Résumé citrix-bleed');
    expect(first.textContent).toContain('Par Claire Moreau');
    expect(first.querySelector('time')!.textContent).toBe('20 mai 2025');
    expect([...first.querySelectorAll('.blog-tags a')].map((a) => a.getAttribute('href'))).toEqual([
      '/blog?tag=CVE',
      '/blog?tag=Citrix',
    ]);
    expect(screen.container.querySelector('[role="note"]')).toBeNull();
    const [read] = calls('GET', '/api/blog/posts/');
    expect(read!.url.searchParams.get('page_size')).toBe('10');
  });

  it('the tag filter lives in the URL and goes to the server', async () => {
    await render('/blog?tag=CVE');
    expect(calls('GET', '/api/blog/posts/')[0]!.url.searchParams.get('tag')).toBe('CVE');
    expect(button('CVE')!.getAttribute('aria-pressed')).toBe('true');
    act(() => button('KEV')!.click());
    await settle();
    expect(new URL(location.href).searchParams.get('tag')).toBe('KEV');
    expect(calls('GET', '/api/blog/posts/').at(-1)!.url.searchParams.get('tag')).toBe('KEV');
    act(() => button('Toutes les étiquettes')!.click());
    await settle();
    expect(new URL(location.href).searchParams.has('tag')).toBe(false);
  });

  it('search and pages go to the URL too', async () => {
    screen.handler = api({ list: () => json(page([post('a')], 25)) });
    await render('/blog?q=citrix');
    expect(calls('GET', '/api/blog/posts/')[0]!.url.searchParams.get('q')).toBe('citrix');
    act(() => button('Suivante')!.click());
    await settle();
    expect(new URL(location.href).searchParams.get('page')).toBe('2');
    expect(calls('GET', '/api/blog/posts/').at(-1)!.url.searchParams.get('page')).toBe('2');
    expect(text()).toContain('Page 2 sur 3');
  });

  it('sample data from the service worker is marked, and filtered by tag here', async () => {
    screen.handler = api({ list: () => json(blogSample, 200, { 'x-vigie-source': 'sample' }) });
    await render('/blog?tag=Citrix');
    expect(screen.container.querySelector('[role="note"]')!.textContent).toBe('Données d’exemple');
    expect(cards().map((c) => c.dataset.slug)).toEqual(['citrix-bleed-fermer-les-sessions']);
  });

  it('no answer at all: the two built-in sample posts, marked', async () => {
    screen.handler = () => {
      throw new TypeError('Failed to fetch');
    };
    await render('/blog');
    expect(screen.container.querySelector('[role="note"]')!.textContent).toBe('Données d’exemple');
    expect(cards()).toHaveLength(2);
  });

  it.each([
    ['manager', true],
    ['admin', true],
    ['user', false],
    ['readonly', false],
  ])('« Nouvel article » and the status filter for a %s: %s', async (role, shown) => {
    signIn(role);
    await render('/blog');
    expect(!!link('Nouvel article')).toBe(shown);
    expect(!!screen.container.querySelector('select')).toBe(shown);
  });
});

describe('BlogPostPage', () => {
  it('renders the Markdown (heading, table) and strips the script and the handler', async () => {
    await render('/blog/citrix-bleed');
    expect(calls('GET', '/api/blog/posts/citrix-bleed/')).toHaveLength(1);
    expect(screen.container.querySelector('h1')!.textContent).toBe('Titre citrix-bleed');
    const content = screen.container.querySelector('.blog-content')!;
    expect(content.querySelector('h2')!.textContent).toBe('Section');
    expect(content.querySelector('table td')!.textContent).toBe('1');
    expect(content.querySelector('script')).toBeNull();
    expect(content.querySelector('img')!.hasAttribute('onerror')).toBe(false);
  });

  it('a featured image under /api/ is fetched with the token and shown from a blob: URL', async () => {
    screen.handler = api({ one: () => json(post('avec-image', { featured_image: '/api/blog/images/5/' })) });
    await render('/blog/avec-image');
    await settle();
    expect(calls('GET', '/api/blog/images/5/')).toHaveLength(1);
    expect(screen.container.querySelector<HTMLImageElement>('img.blog-featured')!.getAttribute('src')).toBe(
      'blob:http://localhost/img-1',
    );
  });

  it('readers get no edit link; writers do', async () => {
    signIn('readonly');
    await render('/blog/citrix-bleed');
    expect(link('Modifier')).toBeUndefined();
    act(() => signIn('manager'));
    await render('/blog/citrix-bleed');
    expect(link('Modifier')!.getAttribute('href')).toBe('/blog/citrix-bleed/edit');
  });

  it('an unknown post says so', async () => {
    screen.handler = api({ one: () => json({ detail: 'Ressource introuvable.' }, 404) });
    await render('/blog/inconnu');
    expect(text()).toContain('Article introuvable.');
  });

  it('a sample post (offline) is marked and cannot be edited', async () => {
    signIn('admin');
    const sample = blogSample.results[1]!;
    screen.handler = api({ one: () => json(sample, 200, { 'x-vigie-source': 'sample' }) });
    await render(`/blog/${sample.slug}`);
    expect(screen.container.querySelector('[role="note"]')!.textContent).toBe('Données d’exemple');
    expect(screen.container.querySelector('.blog-content table')).not.toBeNull();
    expect(link('Modifier')).toBeUndefined();
  });
});

describe('BlogEditorPage', () => {
  it('read-only users and members get the French refusal, no form', async () => {
    for (const role of ['readonly', 'user']) {
      act(() => signIn(role));
      await render('/blog/new');
      expect(text()).toContain("Vous n'avez pas les autorisations nécessaires pour accéder à cette ressource");
      expect(screen.container.querySelector('form')).toBeNull();
      expect(button('Publier')).toBeUndefined();
    }
  });

  it('a new draft: live preview, then « Enregistrer le brouillon » posts it and reopens at its address', async () => {
    signIn('manager');
    await render('/blog/new');
    setValue(field('Titre'), 'Nouvel article');
    setValue(field('Étiquettes'), 'CVE, KEV, cve');
    setValue(field('Contenu'), '# Grand titre\n\n- un\n- deux\n\n<iframe src="https://evil.example"></iframe>');
    await settle();
    const preview = screen.container.querySelector('.blog-editor-preview')!;
    expect(preview.querySelector('h1')!.textContent).toBe('Grand titre');
    expect(preview.querySelectorAll('li')).toHaveLength(2);
    expect(preview.querySelector('iframe')).toBeNull();
    expect(field('Lien').placeholder).toBe('nouvel-article');

    await act(async () => button('Enregistrer le brouillon')!.click());
    await settle();
    const [create] = calls('POST', '/api/blog/posts/');
    expect(create!.body).toEqual({
      title: 'Nouvel article',
      excerpt: '',
      content: '# Grand titre\n\n- un\n- deux\n\n<iframe src="https://evil.example"></iframe>',
      tags: ['CVE', 'KEV'],
      featured_image: null,
      status: 'draft',
    });
    expect(location.pathname).toBe('/blog/nouvel-article/edit');
  });

  it('« Publier » sends status published', async () => {
    signIn('admin');
    await render('/blog/new');
    setValue(field('Titre'), 'Publié tout de suite');
    await act(async () => button('Publier')!.click());
    await settle();
    expect((calls('POST', '/api/blog/posts/')[0]!.body as { status: string }).status).toBe('published');
  });

  it('a published post: « Enregistrer » sends no status change, and the buttons follow the server’s answer', async () => {
    signIn('manager');
    screen.handler = api({
      write: (_m, _u, body) => json(post('citrix-bleed', { ...(body as object), status: 'draft' })),
    });
    await render('/blog/citrix-bleed/edit');
    expect(field('Titre').value).toBe('Titre citrix-bleed');
    await act(async () => button('Enregistrer')!.click());
    await settle();
    const [save] = calls('PATCH', '/api/blog/posts/citrix-bleed/');
    expect(save!.body).not.toHaveProperty('status');
    expect(text()).toContain('Modifications enregistrées.');
    // The server answered a draft: the buttons follow.
    expect(button('Publier')).toBeDefined();
  });

  it('« Dépublier » on a published post', async () => {
    signIn('manager');
    screen.handler = api({ write: (_m, _u, body) => json(post('citrix-bleed', { ...(body as object) })) });
    await render('/blog/citrix-bleed/edit');
    await act(async () => button('Dépublier')!.click());
    await settle();
    expect((calls('PATCH', '/api/blog/posts/citrix-bleed/')[0]!.body as { status: string }).status).toBe('draft');
    expect(text()).toContain('Article dépublié : il redevient un brouillon.');
    expect(button('Publier')).toBeDefined();
  });

  it('delete asks for confirmation first, then goes back to the list', async () => {
    signIn('admin');
    screen.handler = api({ write: () => new Response(null, { status: 204 }) });
    await render('/blog/citrix-bleed/edit');
    act(() => button('Supprimer')!.click());
    expect(calls('DELETE', '/api/blog/posts/citrix-bleed/')).toHaveLength(0);
    expect(text()).toContain('Supprimer définitivement cet article ?');
    await act(async () => button('Oui, supprimer')!.click());
    await settle();
    expect(calls('DELETE', '/api/blog/posts/citrix-bleed/')).toHaveLength(1);
    expect(location.pathname).toBe('/blog');
    expect(text()).toContain('Article « Titre citrix-bleed » supprimé.');
  });

  it('server validation and a taken slug show next to their fields', async () => {
    signIn('manager');
    screen.handler = api({
      write: () => json({ detail: 'Ce lien (slug) est déjà utilisé.', code: 'conflict' }, 409),
    });
    await render('/blog/new');
    setValue(field('Titre'), 'Doublon');
    setValue(field('Lien'), 'citrix-bleed');
    await act(async () => button('Enregistrer le brouillon')!.click());
    await settle();
    const slug = field('Lien');
    expect(slug.getAttribute('aria-invalid')).toBe('true');
    expect(document.getElementById(slug.getAttribute('aria-describedby')!)!.textContent).toBe(
      'Ce lien (slug) est déjà utilisé.',
    );
  });

  it('checks title and slug before sending', async () => {
    signIn('manager');
    await render('/blog/new');
    setValue(field('Lien'), 'Pas Valide');
    await act(async () => button('Publier')!.click());
    expect(text()).toContain('Le titre est obligatoire (200 caractères au plus).');
    expect(text()).toContain('Lien invalide : lettres minuscules, chiffres et tirets.');
    expect(calls('POST', '/api/blog/posts/')).toHaveLength(0);
  });

  it('featured image: uploaded as multipart « file », refused formats never sent', async () => {
    signIn('manager');
    await render('/blog/new');
    const input = field('Image mise en avant');
    const svg = new File(['<svg/>'], 'x.svg', { type: 'image/svg+xml' });
    Object.defineProperty(input, 'files', { configurable: true, value: [svg] });
    await act(async () => input.dispatchEvent(new Event('change', { bubbles: true })));
    expect(text()).toContain("Format d'image non accepté : PNG, JPEG, GIF ou WebP.");
    expect(calls('POST', '/api/blog/images/')).toHaveLength(0);

    const png = new File([new Uint8Array([137, 80, 78, 71])], 'schema.png', { type: 'image/png' });
    Object.defineProperty(input, 'files', { configurable: true, value: [png] });
    await act(async () => input.dispatchEvent(new Event('change', { bubbles: true })));
    await settle();
    const [upload] = calls('POST', '/api/blog/images/');
    expect((upload!.body as FormData).get('file')).toBeTruthy();
    expect(text()).toContain('Image envoyée.');
    await settle();
    expect(screen.container.querySelector<HTMLImageElement>('.blog-editor-image img')!.getAttribute('src')).toBe(
      'blob:http://localhost/img-1',
    );
    setValue(field('Titre'), 'Avec image');
    await act(async () => button('Enregistrer le brouillon')!.click());
    await settle();
    expect((calls('POST', '/api/blog/posts/')[0]!.body as { featured_image: string }).featured_image).toBe(
      '/api/blog/images/5/',
    );
  });
});
