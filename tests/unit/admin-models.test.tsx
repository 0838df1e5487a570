import { act } from 'react';
import { beforeEach, describe, expect, it } from 'vitest';
import { json, screenQueries, settle, setupScreen, setValue, signIn } from './screen-helpers.tsx';
import ModelsPage from '../../src/features/admin/models-page.tsx';
import type { AdminModel } from '../../src/features/admin/models-api.ts';
import { modelBody, parseValue } from '../../src/features/admin/model-rules.ts';

const screen = setupScreen();

const ASSETS: AdminModel = {
  name: 'assets',
  label: 'Actifs',
  tenant_scoped: true,
  read_only: false,
  operations: ['create', 'update', 'delete'],
  primary_key: ['id'],
  fields: [
    { name: 'id', label: 'Identifiant', type: 'integer', required: false, read_only: true },
    { name: 'name', label: 'Nom', type: 'string', required: true, read_only: false, max_length: 200 },
    { name: 'asset_type', type: 'enum', required: false, read_only: false, choices: ['server', 'workstation'] },
    { name: 'tags', type: 'array', required: false, read_only: false, max_length: 100, max_items: 50 },
    { name: 'criticality', type: 'integer', required: false, read_only: false, min: 1, max: 5 },
    { name: 'created_at', type: 'datetime', required: false, read_only: true },
  ],
};

const MEMBERSHIPS: AdminModel = {
  name: 'memberships',
  label: 'Appartenances',
  tenant_scoped: true,
  read_only: true,
  operations: [],
  primary_key: ['tenant_id', 'user_id'],
  fields: [
    { name: 'tenant_id', type: 'uuid', required: false, read_only: true },
    { name: 'user_id', type: 'integer', required: false, read_only: true },
    { name: 'role', type: 'enum', required: false, read_only: true, choices: ['admin', 'user'] },
  ],
};

const ROW = { id: 12, name: 'srv-web-01', asset_type: 'server', tags: ['dmz'], criticality: 3, created_at: null };

const { text, $, button, writes } = screenQueries(screen);

const render = (url = '/admin/models') => screen.render(<ModelsPage />, url);

beforeEach(() => {
  signIn('admin');
  screen.handler = (method, url, body) => {
    if (url.pathname === '/api/admin/models/') return json({ models: [ASSETS, MEMBERSHIPS] });
    if (url.pathname === '/api/admin/models/assets/' && method === 'GET')
      return json({ results: [ROW], count: 11, page: 1, page_size: 10, pages: 2 });
    if (url.pathname === '/api/admin/models/memberships/')
      return json({
        results: [{ tenant_id: 't-1', user_id: 4, role: 'admin' }],
        count: 1,
        page: 1,
        page_size: 10,
        pages: 1,
      });
    if (method === 'DELETE') return new Response(null, { status: 204 });
    return json({ ...ROW, ...(body as object) }, method === 'POST' ? 201 : 200);
  };
});

describe('ModelsPage', () => {
  it('lists the models and the first one’s rows, paged by 10', async () => {
    await render();
    const rowsRead = screen.calls.find((c) => c.url.pathname === '/api/admin/models/assets/')!;
    expect(Object.fromEntries(rowsRead.url.searchParams)).toEqual({ page: '1', page_size: '10' });
    expect([...$<HTMLSelectElement>('select').options].map((o) => o.textContent)).toEqual(['Actifs', 'Appartenances']);
    // Each field's French name as the server sends it; a field without one (an older server) shows its name.
    expect([...screen.container.querySelectorAll('thead th')].map((t) => t.textContent)).toEqual([
      'Identifiant',
      'Nom',
      'asset_type',
      'tags',
      'criticality',
      'created_at',
      'Actions',
    ]);
    expect(text()).toContain('11 éléments');
    expect(text()).toContain('Page 1 sur 2');
  });

  it('creates a row with typed values, after its own checks', async () => {
    await render();
    act(() => button('Nouvel élément').click());
    const form = $<HTMLFormElement>('form.admin-form');
    act(() => setValue(form.querySelector<HTMLInputElement>('[name="criticality"]')!, '9'));
    act(() => void form.dispatchEvent(new Event('submit', { bubbles: true, cancelable: true })));
    await settle();
    expect(text()).toContain('Ce champ est obligatoire.');
    expect(text()).toContain('Au plus 5.');
    expect(writes()).toHaveLength(0);

    act(() => setValue(form.querySelector<HTMLInputElement>('[name="name"]')!, ' srv-db '));
    act(() => setValue(form.querySelector<HTMLInputElement>('[name="criticality"]')!, '4'));
    act(() => setValue(form.querySelector<HTMLTextAreaElement>('[name="tags"]')!, 'prod\n\n dmz '));
    act(() => setValue(form.querySelector<HTMLSelectElement>('[name="asset_type"]')!, 'server'));
    act(() => void form.dispatchEvent(new Event('submit', { bubbles: true, cancelable: true })));
    await settle();
    expect(writes()[0]!.method).toBe('POST');
    expect(writes()[0]!.url.pathname).toBe('/api/admin/models/assets/');
    expect(writes()[0]!.body).toEqual({ name: 'srv-db', asset_type: 'server', tags: ['prod', 'dmz'], criticality: 4 });
    expect(text()).toContain('Élément n° 12 créé.');
  });

  it('edits only what changed, and shows the server’s field errors', async () => {
    await render();
    act(() => $<HTMLButtonElement>('button[data-action="edit"]').click());
    screen.handler = () =>
      json(
        { detail: 'Un élément avec cette valeur existe déjà.', fields: { name: ['Cette valeur est déjà utilisée.'] } },
        409,
      );
    const form = $<HTMLFormElement>('form.admin-form');
    act(() => setValue(form.querySelector<HTMLInputElement>('[name="name"]')!, 'srv-web-02'));
    act(() => void form.dispatchEvent(new Event('submit', { bubbles: true, cancelable: true })));
    await settle();
    expect(writes()[0]!.method).toBe('PATCH');
    expect(writes()[0]!.url.pathname).toBe('/api/admin/models/assets/12/');
    expect(writes()[0]!.body).toEqual({ name: 'srv-web-02' });
    expect(form.querySelector('[name="name"]')!.getAttribute('aria-invalid')).toBe('true');
    expect(text()).toContain('Cette valeur est déjà utilisée.');
    expect(text()).toContain('Un élément avec cette valeur existe déjà.');
  });

  it('deletes after confirmation', async () => {
    await render();
    act(() => $<HTMLButtonElement>('button[data-action="delete"]').click());
    act(() => button('Oui, supprimer').click());
    await settle();
    expect(writes()[0]!.method).toBe('DELETE');
    expect(writes()[0]!.url.pathname).toBe('/api/admin/models/assets/12/');
    expect(text()).toContain('Élément n° 12 supprimé.');
  });

  it('a read-only model: from the URL, composite keys, view only', async () => {
    await render('/admin/models?model=memberships');
    expect($<HTMLSelectElement>('select').value).toBe('memberships');
    expect(button('Nouvel élément')).toBeUndefined();
    expect(screen.container.querySelector('button[data-action="delete"]')).toBeNull();
    expect($('tbody tr').getAttribute('data-row-id')).toBe('t-1:4');
    act(() => $<HTMLButtonElement>('button[data-action="view"]').click());
    expect(text()).toContain('Appartenances n° t-1:4');
    expect(button('Fermer')).toBeDefined();
  });
});

describe('model field values', () => {
  it('checks each type the server’s way', () => {
    const f = (type: AdminModel['fields'][number]['type']) => ({ name: 'x', type, required: false, read_only: false });
    expect(parseValue(f('datetime'), '2026-05-04T09:12:00Z', false)).toEqual({
      ok: true,
      value: '2026-05-04T09:12:00Z',
    });
    expect(parseValue(f('datetime'), '2026-05-04 09:12', false).ok).toBe(false);
    expect(parseValue(f('json'), '{"a":1}', false)).toEqual({ ok: true, value: { a: 1 } });
    expect(parseValue(f('json'), '{a', false)).toEqual({ ok: false, error: 'JSON invalide.' });
    expect(parseValue(f('uuid'), 'nope', false).ok).toBe(false);
    expect(parseValue(f('number'), '3,5', false)).toEqual({ ok: true, value: 3.5 });
    expect(parseValue(f('string'), '   ', false)).toEqual({ ok: true, value: null });
  });

  it('an edit that clears a field sends null', () => {
    expect(modelBody(ASSETS, { name: 'srv-web-01', asset_type: '', tags: 'dmz', criticality: '3' }, ROW).body).toEqual({
      asset_type: null,
    });
  });
});
