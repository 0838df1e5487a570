import { act } from 'react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { json, settle, setupScreen, signIn, typeInto, type ScreenHandler } from './screen-helpers.tsx';
import NotificationsPage from '../../src/features/notifications/notifications-page.tsx';
import { NotificationBell, NotificationToast } from '../../src/features/notifications/notification-bell.tsx';
import { clearLocalNotifications } from '../../src/features/notifications/notifications-api.ts';
import { startNotifications, unreadCount } from '../../src/features/notifications/notifications-state.ts';
import { session } from '../../src/lib/auth/session.ts';

const screen = setupScreen();

function note(id: number, extra: Record<string, unknown> = {}) {
  return {
    id,
    title: `Alerte ${id}`,
    created_at: new Date(Date.now() - 5 * 60_000).toISOString(),
    read: false,
    body: `Détail ${id}`,
    level: 'critical',
    link: `/projects/${id}?tab=tasks`,
    kind: 'task_assigned',
    tenant_id: 't1',
    tenant_name: 'Acme',
    ...extra,
  };
}

/** A text/event-stream answer the test writes into. */
function eventStream() {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  const body = new ReadableStream<Uint8Array>({
    start(c) {
      controller = c;
    },
  });
  const encoder = new TextEncoder();
  return {
    response: () => new Response(body, { headers: { 'content-type': 'text/event-stream' } }),
    send: (text: string) => controller.enqueue(encoder.encode(text)),
  };
}

const LIST = { results: [note(1), note(2, { read: true, level: 'info', link: null })], count: 2, unread: 1 };

/** The list, unread_count and every write answered; anything else 404 (the stream, unless a test gives one). */
function api(overrides: { list?: unknown; write?: ScreenHandler; stream?: () => Response } = {}): ScreenHandler {
  return (method, url, body) => {
    const path = url.pathname;
    if (path === '/api/notifications/stream/') return overrides.stream?.() ?? json({ detail: 'absent' }, 404);
    if (method === 'POST') return overrides.write?.(method, url, body) ?? json({ updated: 1 });
    if (path === '/api/notifications/notifications/unread_count/') return json({ count: 1 });
    if (path === '/api/notifications/notifications/') return json(overrides.list ?? LIST);
    if (path === '/api/admin/users/')
      return json({ results: [{ id: 42, username: 'marie', first_name: 'Marie', last_name: 'Dupont' }] });
    return json({ detail: 'absent' }, 404);
  };
}

let stop: (() => void) | undefined;

beforeEach(async () => {
  await clearLocalNotifications();
  unreadCount.value = 0;
  screen.handler = api();
  window.history.replaceState(null, '', '/notifications');
});

afterEach(() => {
  stop?.();
  stop = undefined;
});

async function render(withBell = false) {
  act(() =>
    screen.root.render(
      <>
        {withBell && <NotificationBell />}
        {withBell && <NotificationToast />}
        <NotificationsPage />
      </>,
    ),
  );
  await settle();
}

const text = () => screen.container.textContent ?? '';
const items = () => [...screen.container.querySelectorAll<HTMLLIElement>('li.nt-item')];
const button = (label: string, root: ParentNode = screen.container) =>
  [...root.querySelectorAll<HTMLButtonElement>('button')].find((b) => b.textContent === label);
const bell = () => screen.container.querySelector<HTMLAnchorElement>('a.nt-bell')!;

function field(label: string): HTMLInputElement {
  const l = [...screen.container.querySelectorAll('label')].find((x) => x.textContent?.startsWith(label))!;
  return screen.container.querySelector<HTMLInputElement>(`#${CSS.escape(l.htmlFor)}`)!;
}

describe('NotificationsPage: the list', () => {
  it('shows title, text, level, tenant, a French date and the link; unread ones stand out', async () => {
    await render();
    const [first, second] = items();
    expect(first!.className).toContain('unread');
    expect(second!.className).toContain('read');
    expect(first!.querySelector('strong')!.textContent).toBe('Alerte 1');
    expect(first!.textContent).toContain('Détail 1');
    expect(first!.querySelector('.vm-badge')!.textContent).toBe('Critique');
    expect(second!.querySelector('.vm-badge')!.textContent).toBe('Information');
    expect(first!.textContent).toContain('Acme');
    expect(first!.querySelector('time')!.textContent).toBe('il y a 5 minutes');
    expect(first!.querySelector('time')!.getAttribute('title')).toMatch(/\d{4}.* \d{2}:\d{2}$/);
    const link = first!.querySelector('a')!;
    expect(link.getAttribute('href')).toBe('/projects/1?tab=tasks');
    expect(link.getAttribute('aria-label')).toBe('Ouvrir « Alerte 1 »');
    expect(second!.querySelector('a')).toBeNull();
    expect(text()).toContain('2 notifications · 1 non lue');
    expect(screen.container.querySelector('[role="note"]')).toBeNull();
  });

  it('« Non lues » / « Toutes »: the filter lives in the URL and goes to the server', async () => {
    await render();
    act(() => button('Non lues')!.click());
    await settle();
    expect(new URL(location.href).searchParams.get('unread')).toBe('true');
    const reads = screen.calls.filter((c) => c.url.pathname === '/api/notifications/notifications/');
    expect(reads.at(-1)!.url.searchParams.get('unread')).toBe('true');
    expect(button('Non lues')!.getAttribute('aria-pressed')).toBe('true');
    act(() => button('Toutes')!.click());
    await settle();
    expect(new URL(location.href).searchParams.has('unread')).toBe(false);
  });

  it('sample data (nothing local, the service worker had nothing either) is marked and says it is empty', async () => {
    screen.handler = () => json({ results: [] }, 200, { 'x-vigie-source': 'sample' });
    await render();
    expect(screen.container.querySelector('[role="note"]')!.textContent).toBe('Données d’exemple');
    expect(text()).toContain('Aucune notification.');
  });

  it('« Marquer comme lue »: read at once, the bell follows, the request is sent', async () => {
    unreadCount.value = 1;
    await render(true);
    act(() => button('Marquer comme lue', items()[0])!.click());
    expect(items()[0]!.className).toContain(' read');
    expect(bell().getAttribute('aria-label')).toBe('Notifications : 0 non lue');
    await settle();
    expect(screen.calls.some((c) => c.method === 'POST' && c.url.pathname.endsWith('/1/mark_as_read/'))).toBe(true);
  });

  it('a mark that fails outright still shows read (spec §8), after a reload too', async () => {
    screen.handler = api({ write: () => json({ detail: 'boom' }, 503) });
    await render();
    act(() => button('Marquer comme lue', items()[0])!.click());
    await settle();
    expect(items()[0]!.className).toContain(' read');
    expect(text()).not.toContain('boom');
    // Reload: the server still says unread, the page still shows read.
    act(() => screen.root.render(<></>));
    await render();
    expect(items()[0]!.className).toContain(' read');
  });

  it('« Tout marquer comme lu »: every item read, the bell at 0, one request', async () => {
    unreadCount.value = 1;
    await render(true);
    act(() => button('Tout marquer comme lu')!.click());
    expect(items().every((li) => li.className.includes(' read'))).toBe(true);
    expect(bell().getAttribute('aria-label')).toBe('Notifications : 0 non lue');
    await settle();
    const marks = screen.calls.filter((c) => c.url.pathname === '/api/notifications/notifications/mark_all_as_read/');
    expect(marks).toHaveLength(1);
    expect(button('Tout marquer comme lu')!.disabled).toBe(true);
  });
});

describe('NotificationsPage: the send form', () => {
  it('members and read-only users see no send form', async () => {
    signIn('user');
    await render();
    expect(button('Envoyer une notification')).toBeUndefined();
    act(() => signIn('readonly'));
    await render();
    expect(button('Envoyer une notification')).toBeUndefined();
  });

  it.each(['manager', 'admin'])('a %s sends to every member', async (role) => {
    signIn(role);
    screen.handler = api({ write: () => json({ results: [note(7), note(8)], count: 2 }, 201) });
    await render();
    act(() => button('Envoyer une notification')!.click());
    typeInto(field('Titre'), 'Maintenance ce soir');
    typeInto(field('Texte'), 'Coupure de 22 h à 23 h.');
    typeInto(field('Niveau'), 'warning');
    typeInto(field('Lien'), '/tasks');
    await act(async () => button('Envoyer')!.click());
    await settle();
    const post = screen.calls.find(
      (c) => c.method === 'POST' && c.url.pathname === '/api/notifications/notifications/',
    );
    expect(post!.body).toEqual({
      title: 'Maintenance ce soir',
      body: 'Coupure de 22 h à 23 h.',
      level: 'warning',
      link: '/tasks',
    });
    expect(text()).toContain('Notification envoyée à 2 destinataires.');
  });

  it('staff with another role may send too (mirrors the server rule)', async () => {
    session.value = {
      ...session.value!,
      profile: { ...session.value!.profile, role: 'user', is_staff: true },
    };
    await render();
    expect(button('Envoyer une notification')).toBeDefined();
  });

  it('one recipient chosen by name among the tenant’s users (administrators)', async () => {
    signIn('admin');
    screen.handler = api({ write: () => json({ results: [note(9)], count: 1 }, 201) });
    await render();
    act(() => button('Envoyer une notification')!.click());
    typeInto(field('Titre'), 'Pour Marie');
    const one = [...screen.container.querySelectorAll<HTMLInputElement>('input[type="radio"]')][1]!;
    act(() => one.click());
    await settle();
    typeInto(field('Utilisateur'), 'Marie Dupont (marie)');
    await act(async () => button('Envoyer')!.click());
    await settle();
    const post = screen.calls.find(
      (c) => c.method === 'POST' && c.url.pathname === '/api/notifications/notifications/',
    );
    expect(post!.body).toEqual({ title: 'Pour Marie', level: 'info', user: 42 });
  });

  it('shows the server’s validation messages next to their fields', async () => {
    signIn('manager');
    screen.handler = api({
      write: () =>
        json(
          {
            detail: 'Données invalides.',
            code: 'invalid',
            fields: { user: ['Destinataire inconnu dans cette organisation.'], link: ['Lien invalide.'] },
          },
          400,
        ),
    });
    await render();
    act(() => button('Envoyer une notification')!.click());
    typeInto(field('Titre'), 'Test');
    const one = [...screen.container.querySelectorAll<HTMLInputElement>('input[type="radio"]')][1]!;
    act(() => one.click());
    await settle();
    typeInto(field('Utilisateur'), '77');
    await act(async () => button('Envoyer')!.click());
    await settle();
    const user = field('Utilisateur');
    expect(user.getAttribute('aria-invalid')).toBe('true');
    expect(document.getElementById(user.getAttribute('aria-describedby')!)!.textContent).toBe(
      'Destinataire inconnu dans cette organisation.',
    );
    expect(text()).toContain('Lien invalide.');
    expect(screen.container.querySelector('[role="alert"]')!.textContent).toBe('Données invalides.');
  });

  it('checks the title and the link before sending', async () => {
    signIn('manager');
    await render();
    act(() => button('Envoyer une notification')!.click());
    typeInto(field('Lien'), '//ailleurs.example');
    await act(async () => button('Envoyer')!.click());
    expect(text()).toContain('Le titre est obligatoire (200 caractères au plus).');
    expect(text()).toContain('Lien invalide : un chemin de l’application commençant par « / » est attendu.');
    expect(screen.calls.some((c) => c.method === 'POST')).toBe(false);
  });

  it('offline: the notification is queued and the form says so', async () => {
    signIn('manager');
    screen.handler = api({
      write: () => {
        throw new TypeError('Failed to fetch');
      },
    });
    await render();
    act(() => button('Envoyer une notification')!.click());
    typeInto(field('Titre'), 'Hors ligne');
    await act(async () => button('Envoyer')!.click());
    await settle();
    expect(text()).toContain('Notification mise en file d’attente : elle sera envoyée au retour du réseau.');
  });
});

describe('the stream', () => {
  it('a notification event joins the list and the bell without a reload, with a discreet toast', async () => {
    const stream = eventStream();
    screen.handler = api({ stream: stream.response });
    stop = startNotifications();
    await render(true);
    expect(bell().getAttribute('aria-label')).toBe('Notifications : 1 non lue');
    const opened = screen.calls.filter((c) => c.url.pathname === '/api/notifications/stream/');
    expect(opened).toHaveLength(1);

    stream.send(`event: notification\ndata: ${JSON.stringify(note(3, { title: 'Nouvelle faille KEV' }))}\n\n`);
    stream.send(': heartbeat\n\nevent: unread\ndata: {"count":2}\n\n');
    await settle();

    expect(items()[0]!.querySelector('strong')!.textContent).toBe('Nouvelle faille KEV');
    expect(items()).toHaveLength(3);
    expect(text()).toContain('3 notifications · 2 non lues');
    expect(bell().getAttribute('aria-label')).toBe('Notifications : 2 non lues');
    expect(bell().querySelector('.nt-bell-badge')!.textContent).toBe('2');
    expect(screen.container.querySelector('.nt-toast')!.textContent).toContain(
      'Nouvelle notification : Nouvelle faille KEV',
    );
    // The list was read once: the event did not cause a reload.
    expect(screen.calls.filter((c) => c.url.pathname === '/api/notifications/notifications/')).toHaveLength(1);
  });

  it('a list served from a copy older than an arrival still shows it (the toast’s « Voir » finds it)', async () => {
    const stream = eventStream();
    const stale = { results: [note(1)], count: 1, unread: 1 };
    const base = api({ stream: stream.response });
    screen.handler = (method, url, body) =>
      url.pathname === '/api/notifications/notifications/'
        ? json(stale, 200, { 'x-vigie-source': 'cache', 'x-vigie-stored-at': String(Date.now() - 30_000) })
        : base(method, url, body);
    stop = startNotifications();
    await settle();
    stream.send(`event: notification\ndata: ${JSON.stringify(note(3, { title: 'Arrivée récente' }))}\n\n`);
    await settle();
    await render();
    expect(items().map((li) => li.querySelector('strong')!.textContent)).toEqual(['Arrivée récente', 'Alerte 1']);
    expect(screen.container.querySelector('[role="note"]')!.textContent).toMatch(/^Données en cache du /);
  });

  it('the stream is read with fetch and the Bearer token, asking for text/event-stream', async () => {
    const stream = eventStream();
    const headers: Headers[] = [];
    const { setClientEnvironment } = await import('../../src/lib/api-client.ts');
    const handler = api({ stream: stream.response });
    setClientEnvironment({
      fetch: async (input: RequestInfo | URL, init?: RequestInit) => {
        const url = new URL(String(input instanceof Request ? input.url : input), 'http://localhost');
        if (url.pathname === '/api/notifications/stream/') headers.push(new Headers(init?.headers));
        return handler((init?.method ?? 'GET').toUpperCase(), url, undefined);
      },
    });
    stop = startNotifications();
    await settle();
    expect(headers).toHaveLength(1);
    expect(headers[0]!.get('authorization')).toBe('Bearer tok');
    expect(headers[0]!.get('accept')).toBe('text/event-stream');
  });
});
