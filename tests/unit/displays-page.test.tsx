import { act } from 'react';
import { describe, expect, it, vi } from 'vitest';
import { json, settle, setupScreen, signIn, typeInto, withProfile } from './screen-helpers.tsx';
import { renderLayout } from './support/layout.tsx';
import { tableRows, text } from './vulnerabilities-helpers.tsx';
import { App } from '../../src/app/app.tsx';
import AdminLayout, { AdminHome } from '../../src/features/admin/admin-shell.tsx';
import DisplaysPage from '../../src/features/displays/displays-page.tsx';
import type { Display } from '../../src/features/displays/displays-api.ts';

// The layout's update prompt needs the PWA plugin's virtual module, absent here.
vi.mock('../../src/app/update-prompt.ts', () => import('./support/update-prompt-stub.ts'));

const screen = setupScreen();

const ACME = { id: 't1', name: 'Acme' };
const GLOBEX = { id: 't2', name: 'Globex' };
const INITECH = { id: 't3', name: 'Initech' };

/** Signed in with `role` in Acme (the current tenant), admin of Globex, a plain user of Initech. */
function signInAs(role: string) {
  signIn('user');
  withProfile({
    current_tenant: ACME,
    tenants: [ACME, GLOBEX, INITECH],
    tenant_memberships: [
      { tenant_id: 't1', tenant_name: 'Acme', role },
      { tenant_id: 't2', tenant_name: 'Globex', role: 'admin' },
      { tenant_id: 't3', tenant_name: 'Initech', role: 'user' },
    ],
  });
}

const minutesAgo = (n: number) => new Date(Date.now() - n * 60_000).toISOString();

function display(changes: Partial<Display> = {}): Display {
  return {
    id: 'd1',
    name: 'Hall SOC',
    tenants: [ACME],
    panels: ['act', 'kev'],
    rotation_s: 30,
    theme: 'dark',
    text_size: 'large',
    created_at: '2026-11-20T09:00:00Z',
    created_by: 'ana',
    last_seen_at: minutesAgo(3),
    last_ip: '10.0.0.12',
    version: '0.1.0',
    revoked_at: null,
    ...changes,
  };
}

const CACHED = { 'X-Vigie-Source': 'cache', 'X-Vigie-Stored-At': String(Date.UTC(2026, 10, 24, 13, 5)) };

/** Answers the displays API like docs/displays.md; `answers` replaces the answer of one "METHOD path". */
function serve(
  list: Display[],
  answers: Record<string, () => Response> = {},
  listHeaders: Record<string, string> = {},
) {
  screen.handler = (method, url, body) => {
    const key = `${method} ${url.pathname}`;
    const custom = answers[key];
    if (custom) return custom();
    if (key === 'GET /api/displays/') return json(list, 200, listHeaders);
    if (key === 'POST /api/displays/') {
      const b = body as Record<string, unknown>;
      const tenants = [ACME, GLOBEX, INITECH].filter((t) => (b.tenants as string[]).includes(t.id));
      return json(
        display({ ...(b as Partial<Display>), id: 'd9', tenants, last_seen_at: null, last_ip: null, version: null }),
        201,
      );
    }
    const patch = /^\/api\/displays\/([^/]+)\/$/.exec(url.pathname);
    if (method === 'PATCH' && patch) {
      const b = body as Partial<Display> & { tenants?: string[] };
      const current = list.find((d) => d.id === patch[1])!;
      const tenants = b.tenants ? [ACME, GLOBEX, INITECH].filter((t) => b.tenants!.includes(t.id)) : current.tenants;
      return json({ ...current, ...b, tenants });
    }
    if (method === 'DELETE' && patch) {
      const current = list.find((d) => d.id === patch[1]);
      if (!current) return json({ detail: 'Ressource introuvable.' }, 404);
      if (!current.revoked_at)
        return json(
          { detail: 'Écran encore actif : révoquez-le avant de le retirer de la liste.', code: 'display_active' },
          409,
        );
      return new Response(null, { status: 204 });
    }
    const revoke = /^\/api\/displays\/([^/]+)\/revoke\/$/.exec(url.pathname);
    if (method === 'POST' && revoke)
      return json({ ...list.find((d) => d.id === revoke[1])!, revoked_at: new Date().toISOString() });
    return json({ detail: 'Ressource introuvable.' }, 404);
  };
}

const $ = <T extends Element = HTMLElement>(selector: string) => screen.container.querySelector<T>(selector);
const pageText = () => text(screen.container);
const writes = () => screen.calls.filter((c) => c.method !== 'GET');
const listReads = () => screen.calls.filter((c) => c.method === 'GET' && c.url.pathname === '/api/displays/');

function button(name: string, within: Element = screen.container): HTMLButtonElement {
  const found = [...within.querySelectorAll<HTMLButtonElement>('button')].find(
    (b) => (b.getAttribute('aria-label') ?? text(b)) === name,
  );
  if (!found) throw new Error(`no button « ${name} »`);
  return found;
}

/** The form named by its heading. */
function form(heading: string): HTMLFormElement {
  const found = [...screen.container.querySelectorAll('form')].find((f) => text(f.querySelector('h2, h3')) === heading);
  if (!found) throw new Error(`no form « ${heading} »`);
  return found;
}

/** The control labelled `label` inside `within`. */
function field<T extends HTMLElement = HTMLInputElement>(within: Element, label: string): T {
  const tag = [...within.querySelectorAll('label')].find((l) => text(l) === label);
  const id = tag?.getAttribute('for');
  const control = id ? within.querySelector<T>(`#${CSS.escape(id)}`) : tag?.querySelector<T>('input, select');
  if (!control) throw new Error(`no field « ${label} »`);
  return control;
}

function submit(f: HTMLFormElement) {
  act(() => void f.dispatchEvent(new Event('submit', { bubbles: true, cancelable: true })));
}

/** The panels' list of a form: each item's label and whether it is ticked, in order. */
function panelItems(f: HTMLFormElement): string[] {
  return [...f.querySelectorAll('ol.display-panels li')].map(
    (li) => `${li.querySelector<HTMLInputElement>('input')!.checked ? '☑' : '☐'} ${text(li.querySelector('label'))}`,
  );
}

async function open(url = '/displays') {
  await screen.render(<DisplaysPage />, url);
  await settle();
}

describe('approving a screen', () => {
  it('takes the code from the QR code’s URL and sends the chosen settings', async () => {
    signInAs('manager');
    serve([display()]);
    await open('/displays?code=k7qh-4mzp');
    const f = form('Appairer un écran');
    expect(field(f, 'Code affiché par l’écran').value).toBe('K7QH-4MZP');

    typeInto(field(f, 'Nom de l’écran'), 'Mur du SOC');
    // Only the tenants this user administers or manages are offered; the current one is ticked.
    const tenantBoxes = [...f.querySelectorAll<HTMLInputElement>('fieldset.display-tenants input[type="checkbox"]')];
    expect(tenantBoxes.map((b) => text(b.closest('label')))).toEqual(['Acme', 'Globex']);
    expect(tenantBoxes.map((b) => b.checked)).toEqual([true, false]);
    act(() => tenantBoxes[1]!.click());

    expect(panelItems(f)).toEqual([
      '☑ Vulnérabilités',
      '☑ À traiter maintenant',
      '☑ Exploitées (KEV)',
      '☑ Menaces',
      '☑ Tâches de fond',
      '☑ Actions en retard',
      '☑ Carte des risques',
      '☑ Dernières alertes',
      '☑ Vue d’ensemble',
    ]);
    act(() => button('Monter : Exploitées (KEV)', f).click());
    act(() => button('Descendre : Menaces', f).click());
    act(() => button('Descendre : Menaces', f).click());
    for (const name of ['Vulnérabilités', 'Tâches de fond', 'Carte des risques', 'Dernières alertes', 'Vue d’ensemble'])
      act(() => field(f, name).click());
    expect(panelItems(f)).toEqual([
      '☐ Vulnérabilités',
      '☑ Exploitées (KEV)',
      '☑ À traiter maintenant',
      '☐ Tâches de fond',
      '☑ Actions en retard',
      '☑ Menaces',
      '☐ Carte des risques',
      '☐ Dernières alertes',
      '☐ Vue d’ensemble',
    ]);
    expect(button('Monter : Vulnérabilités', f).disabled).toBe(true);
    expect(button('Descendre : Vue d’ensemble', f).disabled).toBe(true);

    typeInto(field(f, 'Rotation (secondes)'), '45');
    typeInto(field<HTMLSelectElement>(f, 'Thème'), 'light');
    typeInto(field<HTMLSelectElement>(f, 'Taille du texte'), 'xlarge');
    submit(f);
    await settle();

    expect(writes().map((c) => [c.method, c.url.pathname, c.body])).toEqual([
      [
        'POST',
        '/api/displays/',
        {
          code: 'K7QH-4MZP',
          name: 'Mur du SOC',
          tenants: ['t1', 't2'],
          panels: ['kev', 'act', 'overdue', 'threats'],
          rotation_s: 45,
          theme: 'light',
          text_size: 'xlarge',
        },
      ],
    ]);
    expect(pageText()).toContain('Écran « Mur du SOC » appairé');
    expect(tableRows($('table')).some((r) => r.startsWith('Mur du SOC | Acme, Globex'))).toBe(true);
    // Ready for the next screen: the code is cleared, from the field and from the address.
    expect(field(form('Appairer un écran'), 'Code affiché par l’écran').value).toBe('');
    expect(window.location.search).toBe('');
  });

  it('accepts the code in any case, with spaces and without its dash', async () => {
    signInAs('admin');
    serve([]);
    await open();
    const f = form('Appairer un écran');
    typeInto(field(f, 'Code affiché par l’écran'), ' k7qh 4mzp ');
    typeInto(field(f, 'Nom de l’écran'), 'Accueil');
    submit(f);
    await settle();
    expect(writes()).toHaveLength(1);
    expect(writes()[0]!.body).toEqual({
      code: 'K7QH-4MZP',
      name: 'Accueil',
      tenants: ['t1'],
      panels: ['vulnerabilities', 'act', 'kev', 'threats', 'tasks', 'overdue', 'risks', 'events', 'overview'],
      rotation_s: 30,
      theme: 'dark',
      text_size: 'normal',
    });
  });

  it('offers a staff member every tenant they belong to, as the server allows', async () => {
    signInAs('user');
    withProfile({ is_staff: true });
    serve([]);
    await open();
    const boxes = [...form('Appairer un écran').querySelectorAll('fieldset.display-tenants label')].map((l) => text(l));
    expect(boxes).toEqual(['Acme', 'Globex', 'Initech']);
  });

  it('says what is wrong in French and sends nothing', async () => {
    signInAs('manager');
    serve([]);
    await open();
    const f = form('Appairer un écran');
    typeInto(field(f, 'Rotation (secondes)'), '2');
    act(() => field(f, 'Acme').click());
    for (const name of ['Vulnérabilités', 'À traiter maintenant', 'Exploitées (KEV)', 'Menaces'])
      act(() => field(f, name).click());
    for (const name of [
      'Tâches de fond',
      'Actions en retard',
      'Carte des risques',
      'Dernières alertes',
      'Vue d’ensemble',
    ])
      act(() => field(f, name).click());
    submit(f);
    await settle();
    const said = text(f);
    expect(said).toContain('Saisissez le code affiché par l’écran.');
    expect(said).toContain('Donnez un nom à l’écran.');
    expect(said).toContain('Choisissez au moins une organisation.');
    expect(said).toContain('Choisissez au moins un panneau.');
    expect(said).toContain('Indiquez un nombre entier de secondes entre 5 et 3600.');
    expect(field(f, 'Code affiché par l’écran').getAttribute('aria-invalid')).toBe('true');

    typeInto(field(f, 'Code affiché par l’écran'), 'K7QH');
    typeInto(field(f, 'Rotation (secondes)'), '3601');
    submit(f);
    await settle();
    expect(text(f)).toContain('Le code compte 8 lettres ou chiffres, comme K7QH-4MZP (le tiret est facultatif).');
    expect(text(f)).toContain('Indiquez un nombre entier de secondes entre 5 et 3600.');
    expect(writes()).toEqual([]);
  });

  it('shows the server’s refusal and keeps what was typed', async () => {
    signInAs('manager');
    serve([], {
      'POST /api/displays/': () =>
        json({ detail: 'Code d’appairage inconnu ou expiré.', code: 'invalid_pairing_code' }, 400),
    });
    await open('/displays?code=K7QH4MZP');
    const f = form('Appairer un écran');
    typeInto(field(f, 'Nom de l’écran'), 'Hall');
    submit(f);
    await settle();
    expect(writes()).toHaveLength(1);
    expect(text(f.querySelector('[role="alert"]'))).toBe('Code d’appairage inconnu ou expiré.');
    expect(field(f, 'Code affiché par l’écran').value).toBe('K7QH-4MZP');
    expect(field(f, 'Nom de l’écran').value).toBe('Hall');
  });

  it('puts a field message from the server beside its field', async () => {
    signInAs('manager');
    serve([], {
      'POST /api/displays/': () =>
        json(
          {
            detail: 'Données invalides.',
            code: 'validation_error',
            fields: { rotation_s: ['La rotation doit être comprise entre 5 et 3600 secondes.'] },
          },
          400,
        ),
    });
    await open('/displays?code=K7QH4MZP');
    const f = form('Appairer un écran');
    typeInto(field(f, 'Nom de l’écran'), 'Hall');
    submit(f);
    await settle();
    const rotation = field(f, 'Rotation (secondes)');
    expect(rotation.getAttribute('aria-invalid')).toBe('true');
    expect(text(f.querySelector(`#${CSS.escape(rotation.getAttribute('aria-describedby')!)}`))).toBe(
      'La rotation doit être comprise entre 5 et 3600 secondes.',
    );
  });
});

describe('the list of screens', () => {
  it('shows each screen’s tenants, panels, last contact, address, version and state', async () => {
    signInAs('manager');
    serve([
      display(),
      display({
        id: 'd2',
        name: 'Salle de crise',
        tenants: [ACME, GLOBEX],
        panels: ['overview'],
        last_seen_at: '2026-11-20T09:30:00Z',
        last_ip: '2001:db8::7',
        version: '0.2.0',
      }),
      display({ id: 'd3', name: 'Neuf', last_seen_at: null, last_ip: null, version: null }),
      display({ id: 'd4', name: 'Ancien', revoked_at: '2026-11-21T08:00:00Z' }),
    ]);
    await open();
    const table = $('table')!;
    expect(text(table.querySelector('caption'))).toBe('Écrans appairés à Acme');
    expect(tableRows(table)).toEqual([
      'Nom | Organisations | Panneaux | Dernier contact | Adresse IP | Version | État | Actions',
      `Hall SOC | Acme | À traiter maintenant, Exploitées (KEV) | il y a 3 min | 10.0.0.12 | 0.1.0 | Actif | ModifierRévoquer`,
      `Salle de crise | Acme, Globex | Vue d’ensemble | 20 nov. 2026 à ${new Intl.DateTimeFormat('fr-FR', { hour: '2-digit', minute: '2-digit' }).format(new Date('2026-11-20T09:30:00Z'))} | 2001:db8::7 | 0.2.0 | Actif | ModifierRévoquer`,
      'Neuf | Acme | À traiter maintenant, Exploitées (KEV) | Jamais | — | — | Actif | ModifierRévoquer',
      expect.stringMatching(/^Ancien \| Acme \| .* \| Révoqué le 21 nov\. 2026 \| Retirer$/),
    ]);
    expect(listReads()).toHaveLength(1);
  });

  it('says when no screen is paired yet', async () => {
    signInAs('admin');
    serve([]);
    await open();
    expect(pageText()).toContain('Aucun écran appairé pour le moment.');
  });

  it('edits a screen’s settings (not its code) with a PATCH of what changed', async () => {
    signInAs('manager');
    serve([display()]);
    await open();
    act(() => button('Modifier : Hall SOC').click());
    const f = form('Modifier l’écran « Hall SOC »');
    expect([...f.querySelectorAll('label')].map((l) => text(l))).not.toContain('Code affiché par l’écran');
    expect(field(f, 'Nom de l’écran').value).toBe('Hall SOC');
    expect(field(f, 'Rotation (secondes)').value).toBe('30');
    expect(field<HTMLSelectElement>(f, 'Taille du texte').value).toBe('large');
    // Its own panels first, in its order, then the others unticked.
    expect(panelItems(f).slice(0, 3)).toEqual(['☑ À traiter maintenant', '☑ Exploitées (KEV)', '☐ Vulnérabilités']);

    typeInto(field(f, 'Nom de l’écran'), 'Hall principal');
    typeInto(field(f, 'Rotation (secondes)'), '60');
    act(() => button('Descendre : À traiter maintenant', f).click());
    act(() => field(f, 'Globex').click());
    typeInto(field<HTMLSelectElement>(f, 'Thème'), 'light');
    submit(f);
    await settle();
    expect(writes().map((c) => [c.method, c.url.pathname, c.body])).toEqual([
      [
        'PATCH',
        '/api/displays/d1/',
        {
          name: 'Hall principal',
          tenants: ['t1', 't2'],
          panels: ['kev', 'act'],
          rotation_s: 60,
          theme: 'light',
        },
      ],
    ]);
    expect(pageText()).toContain('Écran « Hall principal » enregistré');
    expect(tableRows($('table'))[1]).toMatch(
      /^Hall principal \| Acme, Globex \| Exploitées \(KEV\), À traiter maintenant \|/,
    );
    expect(screen.container.querySelectorAll('form')).toHaveLength(1);
  });

  it('revokes a screen after a confirmation, and the row says so', async () => {
    signInAs('manager');
    serve([display()]);
    await open();
    act(() => button('Révoquer : Hall SOC').click());
    const dialog = $('[role="alertdialog"]')!;
    expect(text(dialog)).toContain('Révoquer l’écran « Hall SOC » ?');
    expect(writes()).toEqual([]);
    act(() => button('Annuler', dialog).click());
    expect($('[role="alertdialog"]')).toBeNull();
    expect(writes()).toEqual([]);

    act(() => button('Révoquer : Hall SOC').click());
    act(() => button('Révoquer l’écran', $('[role="alertdialog"]')!).click());
    await settle();
    expect(writes().map((c) => [c.method, c.url.pathname])).toEqual([['POST', '/api/displays/d1/revoke/']]);
    expect($('[role="alertdialog"]')).toBeNull();
    expect(tableRows($('table'))[1]).toMatch(/\| Révoqué le .* \| Retirer$/);
    expect(screen.container.querySelector('button[aria-label="Révoquer : Hall SOC"]')).toBeNull();
    expect(pageText()).toContain('Écran « Hall SOC » révoqué');
  });
});

describe('taking a revoked screen off the list', () => {
  it('offers « Retirer » on revoked rows only, and the row goes once the server agreed', async () => {
    signInAs('manager');
    serve([
      display(),
      display({
        id: 'd2',
        name: 'Ancien mur',
        revoked_at: minutesAgo(60 * 24 * 3),
        last_seen_at: minutesAgo(60 * 24 * 4),
      }),
    ]);
    await open();
    expect(screen.container.querySelector('button[aria-label="Retirer : Hall SOC"]')).toBeNull();
    act(() => button('Retirer : Ancien mur').click());
    await settle();
    expect(writes().map((c) => [c.method, c.url.pathname])).toEqual([['DELETE', '/api/displays/d2/']]);
    expect(tableRows($('table')).some((r) => r.startsWith('Ancien mur'))).toBe(false);
    expect(tableRows($('table')).some((r) => r.startsWith('Hall SOC'))).toBe(true);
    expect(pageText()).toContain('Écran « Ancien mur » retiré de la liste.');
  });

  it('keeps the row and says why when the server refuses', async () => {
    signInAs('manager');
    serve([display({ id: 'd2', name: 'Ancien mur', revoked_at: minutesAgo(10) })], {
      'DELETE /api/displays/d2/': () => json({ detail: 'Ressource introuvable.' }, 404),
    });
    await open();
    act(() => button('Retirer : Ancien mur').click());
    await settle();
    expect(tableRows($('table')).some((r) => r.startsWith('Ancien mur'))).toBe(true);
    expect(text($('.displays-list [role="alert"]'))).toBe('Ressource introuvable.');
  });
});

describe('who sees the screens', () => {
  it.each(['user', 'readonly'])('a %s has no « Mode affichage » entry, and the page refuses them', async (role) => {
    signInAs(role);
    serve([display()]);
    await renderLayout(screen);
    const nav = [...screen.container.querySelectorAll('nav.topnav a')].map((a) => text(a));
    expect(nav).not.toContain('Mode affichage');

    await open('/displays?code=K7QH-4MZP');
    expect(pageText()).toContain('Cette page est réservée aux administrateurs et aux responsables de l’organisation.');
    expect(screen.container.querySelector('form')).toBeNull();
    expect(screen.container.querySelector('table')).toBeNull();
    expect(listReads()).toEqual([]);
  });

  it.each([
    ['admin', {}],
    ['manager', {}],
    ['user', { is_staff: true }],
  ])('a tenant %s %j finds « Mode affichage » in the navigation', async (role, flags) => {
    signInAs(role);
    withProfile(flags);
    await renderLayout(screen);
    const entry = [...screen.container.querySelectorAll('nav.topnav a')].find((a) => text(a) === 'Mode affichage');
    expect(entry?.getAttribute('href')).toBe('/displays');
  });

  it('a tenant admin also finds « Écrans » in the administration console', async () => {
    signInAs('admin');
    await screen.render(
      <AdminLayout>
        <AdminHome />
      </AdminLayout>,
      '/admin',
    );
    const card = [...screen.container.querySelectorAll('.admin-cards h2 a')].find((a) => text(a) === 'Écrans');
    expect(card?.getAttribute('href')).toBe('/displays');
  });

  it('the page sits under « Administration », and opens the wall on this device', async () => {
    signInAs('manager');
    serve([]);
    await open();
    expect(text($('nav[aria-label="Fil d’Ariane"]'))).toBe('Administration › Écrans');
    expect(text($('h1'))).toBe('Écrans');
    const wall = [...screen.container.querySelectorAll('a')].find((a) => text(a) === 'Ouvrir le mur sur cet appareil');
    expect(wall?.getAttribute('href')).toBe('/kiosk');
  });

  it('is a route of the app, loaded on demand, marked current in the navigation', async () => {
    signInAs('admin');
    serve([display()]);
    window.history.replaceState(null, '', '/displays?code=K7QH-4MZP');
    act(() => screen.root.render(<App />));
    for (let i = 0; i < 50 && !screen.container.querySelector('table'); i++) await settle();
    expect(text($('h1'))).toBe('Écrans');
    expect(text($('nav.topnav a[aria-current="page"]'))).toBe('Mode affichage');
    expect(field(form('Appairer un écran'), 'Code affiché par l’écran').value).toBe('K7QH-4MZP');
  });
});

describe('a kept copy of the list (offline, or the server unreachable)', () => {
  it('says where the list comes from and keeps every write off', async () => {
    signInAs('manager');
    serve([display()], {}, CACHED);
    await open('/displays?code=K7QH-4MZP');
    expect(text($('.data-origin'))).toMatch(/^(Données en cache|Hors ligne — données) du 24\/11 à \d\d:05$/);
    const f = form('Appairer un écran');
    expect(text(f.querySelector('[role="note"]'))).toBe(
      'Hors ligne ou serveur injoignable : ces données sont une copie conservée, modification impossible pour le moment.',
    );
    expect(
      [...f.querySelectorAll<HTMLInputElement | HTMLSelectElement>('input, select')].every((c) => c.disabled),
    ).toBe(true);
    expect(f.querySelector<HTMLButtonElement>('button[type="submit"]')!.disabled).toBe(true);
    expect(button('Modifier : Hall SOC').disabled).toBe(true);
    expect(button('Révoquer : Hall SOC').disabled).toBe(true);
    typeInto(field(f, 'Nom de l’écran'), 'Hall');
    submit(f);
    await settle();
    expect(writes()).toEqual([]);
  });
});
