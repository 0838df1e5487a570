import { act } from 'react';
import { beforeEach, describe, expect, it } from 'vitest';
import { json, settle, setupScreen, signIn } from './screen-helpers.tsx';
import AssetsPage from '../../src/features/assets/assets-page.tsx';
import { isIpAddress, parseTags, validateAsset, type AssetDraft } from '../../src/features/assets/asset-rules.ts';
import type { Asset } from '../../src/features/assets/assets-api.ts';

const screen = setupScreen();

function asset(id: number, extra: Partial<Asset> = {}): Asset {
  return {
    id,
    name: `srv-${id}`,
    asset_type: 'server',
    hostname: `srv-${id}.example.fr`,
    ip_address: '192.0.2.10',
    operating_system: 'Debian 12',
    criticality: 'high',
    owner: 'Équipe infra',
    description: '',
    tags: ['prod'],
    vulnerability_count: 7,
    open_vulnerability_count: 4,
    created_at: '2025-06-02T08:00:00Z',
    updated_at: '2025-06-02T08:00:00Z',
    ...extra,
  };
}

function type(input: HTMLInputElement | HTMLTextAreaElement, value: string) {
  const proto = input instanceof HTMLTextAreaElement ? HTMLTextAreaElement.prototype : HTMLInputElement.prototype;
  act(() => {
    Object.getOwnPropertyDescriptor(proto, 'value')!.set!.call(input, value);
    input.dispatchEvent(new Event('input', { bubbles: true }));
  });
}

function fieldByLabel(form: Element, label: string): HTMLInputElement {
  const l = [...form.querySelectorAll('label')].find((x) => x.textContent === label)!;
  return form.querySelector<HTMLInputElement>(`#${CSS.escape(l.htmlFor)}`)!;
}

beforeEach(() => {
  screen.handler = (method) =>
    method === 'GET'
      ? json({ count: 2, next: null, previous: null, results: [asset(1), asset(2, { vulnerability_count: 0 })] })
      : json(asset(3, { name: 'web-01' }), 201);
});

async function render() {
  window.history.replaceState(null, '', '/assets');
  act(() => screen.root.render(<AssetsPage />));
  await settle();
}

async function openForm() {
  await render();
  act(() => [...screen.container.querySelectorAll('button')].find((b) => b.textContent === 'Nouvel actif')!.click());
  return screen.container.querySelector('form.card')!;
}

function submit(form: Element) {
  act(() => {
    form.dispatchEvent(new Event('submit', { bubbles: true, cancelable: true }));
  });
}

describe('asset rules', () => {
  const draft: AssetDraft = {
    name: 'srv',
    asset_type: 'server',
    hostname: '',
    ip_address: '',
    operating_system: '',
    criticality: 'medium',
    internet_exposed: false,
    owner: '',
    description: '',
    tags: '',
  };

  it('requires a name and checks the IP address and the tags', () => {
    expect(validateAsset(draft)).toEqual({});
    expect(validateAsset({ ...draft, name: '  ' })).toEqual({ name: 'Le nom de l’actif est requis.' });
    expect(validateAsset({ ...draft, ip_address: '300.1.1.1' }).ip_address).toBe(
      'Adresse IP invalide (IPv4 ou IPv6 attendue).',
    );
    expect(validateAsset({ ...draft, tags: 'x'.repeat(101) }).tags).toBe(
      'Au plus 50 étiquettes de 100 caractères chacune.',
    );
    expect(validateAsset({ ...draft, name: 'x'.repeat(201) }).name).toBe('Le nom ne doit pas dépasser 200 caractères.');
  });

  it('accepts IPv4 and IPv6 addresses only', () => {
    for (const ok of ['192.0.2.10', '10.0.0.1', '::1', '2001:db8::8a2e:370:7334', '::ffff:192.0.2.1'])
      expect(isIpAddress(ok), ok).toBe(true);
    for (const bad of ['192.0.2', '192.0.2.256', '01.2.3.4x', 'abc', '2001:db8::g', ':::', '10.0.0.1/24'])
      expect(isIpAddress(bad), bad).toBe(false);
  });

  it('splits tags on commas', () => {
    expect(parseTags(' web, dmz ,,web,prod ')).toEqual(['web', 'dmz', 'prod']);
  });
});

describe('AssetsPage', () => {
  it('lists assets with their vulnerability counts linking to the filtered findings', async () => {
    await render();
    const row = screen.container.querySelector('tr[data-asset-id="1"]')!;
    expect(row.textContent).toContain('Serveur');
    expect(row.textContent).toContain('Élevée');
    // The name opens the asset's page; the counts open its findings.
    expect(row.querySelector('th a')!.getAttribute('href')).toBe('/assets/1');
    const link = row.querySelector('td a')!;
    expect(link.getAttribute('href')).toBe('/vulnerabilities/list?asset=1');
    expect(link.textContent).toBe('4 ouvertes / 7');
    expect(screen.container.querySelector('tr[data-asset-id="2"]')!.textContent).toContain('Aucune');
    expect(screen.calls[0]!.url.searchParams.get('page_size')).toBe('25');
  });

  it('sends the filters', async () => {
    await render();
    const [type, criticality] = [...screen.container.querySelectorAll<HTMLSelectElement>('.vm-toolbar select')];
    act(() => {
      type!.value = 'database';
      type!.dispatchEvent(new Event('change', { bubbles: true }));
    });
    act(() => {
      criticality!.value = 'critical';
      criticality!.dispatchEvent(new Event('change', { bubbles: true }));
    });
    await settle();
    const q = screen.calls.at(-1)!.url.searchParams;
    expect(q.get('asset_type')).toBe('database');
    expect(q.get('criticality')).toBe('critical');
  });

  it('refuses an empty name and a malformed IP address without calling the server', async () => {
    const form = await openForm();
    submit(form);
    expect(form.textContent).toContain('Le nom de l’actif est requis.');
    type(fieldByLabel(form, 'Nom *'), 'web-01');
    type(fieldByLabel(form, 'Adresse IP'), '10.0.0.999');
    submit(form);
    expect(form.textContent).not.toContain('Le nom de l’actif est requis.');
    expect(form.textContent).toContain('Adresse IP invalide (IPv4 ou IPv6 attendue).');
    expect(fieldByLabel(form, 'Adresse IP').getAttribute('aria-invalid')).toBe('true');
    expect(screen.calls.filter((c) => c.method === 'POST')).toHaveLength(0);
  });

  it('creates a valid asset with its tags', async () => {
    const form = await openForm();
    type(fieldByLabel(form, 'Nom *'), 'web-01');
    type(fieldByLabel(form, 'Adresse IP'), '192.0.2.44');
    type(fieldByLabel(form, 'Étiquettes (séparées par des virgules)'), 'prod, dmz');
    submit(form);
    await settle();
    const post = screen.calls.find((c) => c.method === 'POST')!;
    expect(post.url.pathname).toBe('/api/assets/');
    expect(post.body).toEqual({
      name: 'web-01',
      asset_type: 'server',
      hostname: null,
      ip_address: '192.0.2.44',
      operating_system: null,
      criticality: 'medium',
      internet_exposed: false,
      owner: null,
      description: '',
      tags: ['prod', 'dmz'],
    });
    expect(screen.container.textContent).toContain('Actif « web-01 » créé.');
  });

  it('marks an asset exposed to the Internet, in the form and in the list', async () => {
    screen.handler = (method) =>
      method === 'GET'
        ? json({ count: 1, next: null, previous: null, results: [asset(1, { internet_exposed: true })] })
        : json(asset(3, { name: 'web-01', internet_exposed: true }), 201);
    const form = await openForm();
    expect(
      screen.container.querySelector('tr[data-asset-id="1"]')!.querySelector('.vm-badge.exposed')!.textContent,
    ).toBe('Exposé');
    type(fieldByLabel(form, 'Nom *'), 'web-01');
    const box = [...form.querySelectorAll<HTMLInputElement>('input[type="checkbox"]')].find(
      (i) => i.closest('label')!.textContent.trim() === 'Exposé à Internet',
    )!;
    act(() => box.click());
    submit(form);
    await settle();
    expect(screen.calls.find((c) => c.method === 'POST')!.body).toMatchObject({ internet_exposed: true });
  });

  it('shows the server’s 409 on the name field', async () => {
    screen.handler = (method) =>
      method === 'GET'
        ? json({ count: 0, next: null, previous: null, results: [] })
        : json({ detail: 'Un actif porte déjà ce nom.', code: 'conflict' }, 409);
    const form = await openForm();
    type(fieldByLabel(form, 'Nom *'), 'srv-1');
    submit(form);
    await settle();
    expect(form.querySelector('.vm-field-error')!.textContent).toBe('Un actif porte déjà ce nom.');
  });

  it('edits with PUT and deletes after confirmation', async () => {
    await render();
    act(() => screen.container.querySelector<HTMLButtonElement>('tr[data-asset-id="1"] [data-action="edit"]')!.click());
    const form = screen.container.querySelector('form.card')!;
    expect(fieldByLabel(form, 'Nom *').value).toBe('srv-1');
    submit(form);
    await settle();
    expect(screen.calls.find((c) => c.method === 'PUT')!.url.pathname).toBe('/api/assets/1/');

    screen.handler = (method) =>
      method === 'DELETE'
        ? new Response(null, { status: 204 })
        : json({ count: 1, next: null, previous: null, results: [asset(1)] });
    await settle();
    const row = screen.container.querySelector('tr[data-asset-id="1"]')!;
    act(() => row.querySelector<HTMLButtonElement>('[data-action="delete"]')!.click());
    expect(screen.calls.some((c) => c.method === 'DELETE')).toBe(false);
    act(() => [...row.querySelectorAll('button')].find((b) => b.textContent === 'Oui, supprimer')!.click());
    await settle();
    expect(screen.calls.find((c) => c.method === 'DELETE')!.url.pathname).toBe('/api/assets/1/');
  });

  it('shows read-only members no write action', async () => {
    signIn('readonly');
    await render();
    expect(screen.container.querySelectorAll('button[data-action]')).toHaveLength(0);
    expect(screen.container.textContent).not.toContain('Nouvel actif');
  });
});
