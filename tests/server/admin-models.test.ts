import { beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { and, eq, getTableColumns, ne } from 'drizzle-orm';
import {
  assets,
  blogPosts,
  cwes,
  mailOutbox,
  memberships,
  passwordResetTokens,
  threats,
  users,
} from '../../server/src/db/schema.ts';
import { ADMIN_MODELS, FIELD_TYPES, FORBIDDEN_FIELD_RE } from '../../server/src/services/admin-models.ts';
import { apiFor } from './support/api.ts';
import { backend, useTestApp } from './support/app.ts';
import { ASSET_ATTRIBUTES } from './support/contract.ts';
import { FORBIDDEN, NOT_FOUND } from './support/http.ts';
import { addUser, auditEventsOf, seededTenants, userIdOf } from './support/world.ts';

const MODEL_NAMES = [
  'users',
  'memberships',
  'tenants',
  'assets',
  'threats',
  'scans',
  'vulnerabilities',
  'cves',
  'cwes',
  'projects',
  'risks',
  'blog_posts',
  'notifications',
  'task_runs',
  'mail_outbox',
];
// Markers planted in secret columns and tables: none may ever come out.
const TOTP_MARKER = 'totp-ciphertext-marker-5f1c';
const RESET_MARKER = 'reset-link-marker-9a2e';
const TOKEN_HASH_MARKER = 'token-hash-marker-77b0';

interface FieldOut {
  name: string;
  type: string;
  required: boolean;
  read_only: boolean;
  choices?: string[];
  max_length?: number;
}
interface ModelOut {
  name: string;
  label: string;
  tenant_scoped: boolean;
  read_only: boolean;
  operations: string[];
  primary_key: string[];
  fields: FieldOut[];
}
interface Page {
  results: Record<string, unknown>[];
  count: number;
  page: number;
  page_size: number;
  pages: number;
}

describe(`model administration (${backend})`, () => {
  const t = useTestApp({ runJobs: false });
  const { call, token } = apiFor(t);
  let acme: string;
  let horizon: string;
  let adminId: number;
  let analysteId: number;
  let horizonAsset: number;
  let horizonThreat: number;
  let acmeAsset: number;

  beforeAll(async () => {
    const db = t.database.db;
    ({ acme, horizon } = await seededTenants(db));
    // A tenant admin who is nothing else: admin of Acme only, no platform flag.
    await addUser(db, 'chef', [acme, 'admin']);
    adminId = await userIdOf(db, 'admin');
    analysteId = await userIdOf(db, 'analyste');
    // Secrets where they live: a TOTP seed, a reset link in a mail body, a reset token hash.
    await db.update(users).set({ totpSecret: TOTP_MARKER }).where(eq(users.id, analysteId));
    await db
      .insert(mailOutbox)
      .values({ recipient: 'marc.lefevre@acme-securite.fr', subject: 'Réinitialisation', body: RESET_MARKER });
    await db.insert(passwordResetTokens).values({
      tokenHash: TOKEN_HASH_MARKER,
      userId: analysteId,
      expiresAt: new Date(Date.now() + 3_600_000),
    });
    if ((await db.select().from(cwes).limit(1)).length === 0) {
      await db.insert(cwes).values([
        { id: 'CWE-79', name: 'Cross-site Scripting' },
        { id: 'CWE-89', name: 'SQL Injection' },
      ]);
    }
    const [ha] = await db.select({ id: assets.id }).from(assets).where(eq(assets.tenantId, horizon)).limit(1);
    const [aa] = await db.select({ id: assets.id }).from(assets).where(eq(assets.tenantId, acme)).limit(1);
    const [ht] = await db.select({ id: threats.id }).from(threats).where(eq(threats.tenantId, horizon)).limit(1);
    horizonAsset = ha!.id;
    acmeAsset = aa!.id;
    horizonThreat = ht!.id;
  });

  const lastAudit = async (eventType: string) => {
    const [row] = await auditEventsOf(t.database.db, { eventType }, { newestFirst: true, limit: 1 });
    return row!;
  };
  const models = async (who: string) => (await call(who, 'GET', '/api/admin/models/')).json<{ models: ModelOut[] }>();

  it('lists the administrable models and their fields to a superuser', async () => {
    const res = await call('admin', 'GET', '/api/admin/models/');
    expect(res.statusCode).toBe(200);
    const body = res.json<{ models: ModelOut[] }>();
    expect(body.models.map((m) => m.name)).toEqual(MODEL_NAMES);
    for (const model of body.models) {
      expect(Object.keys(model).sort()).toEqual(
        ['fields', 'label', 'name', 'operations', 'primary_key', 'read_only', 'tenant_scoped'].sort(),
      );
      expect(model.label).toMatch(/\S/);
      for (const field of model.fields) {
        expect(FIELD_TYPES).toContain(field.type);
        expect(typeof field.required).toBe('boolean');
        expect(typeof field.read_only).toBe('boolean');
      }
    }
    const byName = new Map(body.models.map((m) => [m.name, m]));
    const assetsModel = byName.get('assets')!;
    expect(assetsModel).toMatchObject({
      label: 'Actifs',
      tenant_scoped: true,
      read_only: false,
      operations: ['create', 'update', 'delete'],
      primary_key: ['id'],
    });
    const field = (m: ModelOut, name: string) => m.fields.find((f) => f.name === name);
    expect(field(assetsModel, 'name')).toEqual({
      name: 'name',
      label: 'Nom',
      type: 'string',
      required: true,
      read_only: false,
      max_length: 200,
    });
    expect(field(assetsModel, 'asset_type')).toMatchObject({ type: 'enum', required: false, read_only: false });
    expect(field(assetsModel, 'asset_type')!.choices).toContain('server');
    expect(field(assetsModel, 'tenant_id')).toMatchObject({ type: 'uuid', read_only: true, required: false });
    expect(field(assetsModel, 'id')).toMatchObject({ type: 'integer', read_only: true });
    expect(field(assetsModel, 'tags')).toMatchObject({ type: 'array', read_only: false });
    expect(field(assetsModel, 'description')).toMatchObject({ type: 'text', max_length: 100_000 });
    expect(field(assetsModel, 'created_at')).toMatchObject({ type: 'datetime', read_only: true });
    expect(field(byName.get('projects')!, 'deadline')).toMatchObject({ type: 'date', read_only: false });
    expect(field(byName.get('cves')!, 'references')).toMatchObject({ type: 'json', read_only: true });
    expect(field(byName.get('vulnerabilities')!, 'cvss_score')).toMatchObject({ type: 'number', read_only: true });
    expect(field(byName.get('users')!, 'is_active')).toMatchObject({ type: 'boolean', read_only: false });
    for (const name of ['tenants', 'scans', 'vulnerabilities', 'cves', 'cwes', 'notifications', 'task_runs']) {
      expect(byName.get(name)).toMatchObject({ read_only: true, operations: [] });
      expect(byName.get(name)!.fields.every((f) => f.read_only && !f.required)).toBe(true);
    }
    expect(byName.get('cves')!.tenant_scoped).toBe(false);
    expect(byName.get('users')!.tenant_scoped).toBe(true);
    expect(byName.get('memberships')!.primary_key).toEqual(['tenant_id', 'user_id']);
    // An explicit list: the account fields, never the hash, the TOTP seed or the default tenant.
    expect(byName.get('users')!.fields.map((f) => f.name)).toEqual([
      'id',
      'username',
      'email',
      'first_name',
      'last_name',
      'is_active',
      'is_staff',
      'is_superuser',
      'totp_enabled',
      'date_joined',
      'last_login',
    ]);
    expect(field(byName.get('users')!, 'totp_enabled')!.read_only).toBe(true);
    expect(byName.get('mail_outbox')!.fields.map((f) => f.name)).not.toContain('body');
  });

  it('names every field of every model in French', async () => {
    const { models: all } = (await call('admin', 'GET', '/api/admin/models/')).json<{
      models: { fields: { name: string; label: string }[] }[];
    }>();
    expect(all.length).toBeGreaterThan(10);
    const unnamed = all.flatMap((m) => m.fields.filter((f) => !f.label || f.label === f.name).map((f) => f.name));
    expect(unnamed).toEqual([]);
    expect(all.flatMap((m) => m.fields).find((f) => f.name === 'first_name')?.label).toBe('Prénom');
  });

  it('never exposes a column because it exists: the allow-list is explicit and refuses secret names', () => {
    const exposed = new Set(ADMIN_MODELS.find((m) => m.name === 'users')!.fields.map((f) => f.name));
    const columns = Object.values(getTableColumns(users)).map((c) => c.name);
    expect(columns).toEqual(expect.arrayContaining(['password_hash', 'totp_secret', 'default_tenant_id']));
    for (const hidden of ['password_hash', 'totp_secret', 'default_tenant_id']) expect(exposed.has(hidden)).toBe(false);
    for (const model of ADMIN_MODELS) {
      expect(['refresh_tokens', 'password_reset_tokens', 'idempotency_keys']).not.toContain(model.name);
      for (const f of model.fields) expect(FORBIDDEN_FIELD_RE.test(f.name)).toBe(false);
    }
  });

  it('shows a tenant admin the models of their tenant and the reference data, writable where allowed', async () => {
    const { models: list } = await models('chef');
    expect(list.map((m) => m.name)).toEqual(MODEL_NAMES.filter((n) => n !== 'mail_outbox'));
    const byName = new Map(list.map((m) => [m.name, m]));
    // Accounts and memberships are governed by superusers here (tenant admins use /api/admin/users/).
    expect(byName.get('users')).toMatchObject({ read_only: true, operations: [] });
    expect(byName.get('memberships')).toMatchObject({ read_only: true, operations: [] });
    expect(byName.get('assets')).toMatchObject({ read_only: false, operations: ['create', 'update', 'delete'] });
    expect(byName.get('risks')).toMatchObject({ read_only: false, operations: ['update', 'delete'] });
    expect(byName.get('cves')).toMatchObject({ read_only: true });
  });

  it('pages by 10 by default, up to 100, with search and ordering', async () => {
    const res = await call('admin', 'GET', '/api/admin/models/assets/');
    expect(res.statusCode).toBe(200);
    const body = res.json<Page>();
    const total = await t.database.db.$count(assets);
    expect(body).toMatchObject({ count: total, page: 1, page_size: 10, pages: Math.max(1, Math.ceil(total / 10)) });
    expect(body.results.length).toBe(Math.min(10, total));
    expect(Object.keys(body).sort()).toEqual(['count', 'page', 'page_size', 'pages', 'results']);
    const names = body.results.map((r) => r.name as string);
    expect([...names].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))).toEqual(names);

    const big = (await call('admin', 'GET', '/api/admin/models/assets/?page_size=100')).json<Page>();
    expect(big.results.length).toBe(Math.min(100, total));
    const second = (await call('admin', 'GET', '/api/admin/models/assets/?page=2&page_size=3')).json<Page>();
    expect(second.results.map((r) => r.id)).toEqual(big.results.slice(3, 6).map((r) => r.id));
    const beyond = (await call('admin', 'GET', '/api/admin/models/assets/?page=999')).json<Page>();
    expect(beyond).toMatchObject({ results: [], page: 999, count: total });

    const byIdDesc = (await call('admin', 'GET', '/api/admin/models/assets/?ordering=-id&page_size=5')).json<Page>();
    const ids = byIdDesc.results.map((r) => r.id as number);
    expect(ids).toEqual([...ids].sort((a, b) => b - a));

    const first = big.results[0]!;
    const found = (
      await call('admin', 'GET', `/api/admin/models/assets/?q=${encodeURIComponent(first.name as string)}`)
    ).json<Page>();
    expect(found.results.map((r) => r.id)).toContain(first.id);
    const none = (await call('admin', 'GET', '/api/admin/models/assets/?q=%25%25zz_no_such')).json<Page>();
    expect(none).toMatchObject({ count: 0, results: [], pages: 1 });

    for (const [query, field, message] of [
      ['page_size=101', 'page_size', 'Taille de page invalide : un entier entre 1 et 100 est attendu.'],
      ['page_size=0', 'page_size', 'Taille de page invalide : un entier entre 1 et 100 est attendu.'],
      ['page=0', 'page', 'Numéro de page invalide : un entier supérieur ou égal à 1 est attendu.'],
      ['page=abc', 'page', 'Numéro de page invalide : un entier supérieur ou égal à 1 est attendu.'],
      ['ordering=tags', 'ordering', undefined],
      ['ordering=password_hash', 'ordering', undefined],
      ['tenant=nope', 'tenant', 'Organisation invalide : un identifiant UUID est attendu.'],
    ] as const) {
      const bad = await call('admin', 'GET', `/api/admin/models/assets/?${query}`);
      expect(bad.statusCode, query).toBe(400);
      const json = bad.json<{ code: string; fields: Record<string, string[]> }>();
      expect(json.code).toBe('invalid');
      if (message) expect(json.fields[field]).toEqual([message]);
      else expect(json.fields[field]![0]).toMatch(/^Tri invalide\. Valeurs possibles : id, tenant_id, name/);
    }
    const unknown = await call('admin', 'GET', '/api/admin/models/refresh_tokens/');
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toEqual({ detail: 'Modèle inconnu : « refresh_tokens ».', code: 'unknown_model' });
  });

  it('creates, reads, changes and deletes an asset of the tenant, with French messages, and audits it', async () => {
    const created = await call('chef', 'POST', '/api/admin/models/assets/', {
      payload: { name: '  srv-admin-01 ', asset_type: 'server', tags: ['prod', ' prod ', ''], ip_address: '10.0.0.7' },
    });
    expect(created.statusCode).toBe(201);
    const asset = created.json<Record<string, unknown>>();
    expect(asset).toMatchObject({
      name: 'srv-admin-01',
      tenant_id: acme,
      asset_type: 'server',
      criticality: 'medium',
      tags: ['prod'],
      ip_address: '10.0.0.7',
      hostname: null,
      description: '',
    });
    expect(Object.keys(asset)).toEqual(['id', 'tenant_id', ...ASSET_ATTRIBUTES, 'created_at', 'updated_at']);
    const id = asset.id as number;
    let audit = await lastAudit('data_change');
    expect(audit).toMatchObject({ tenantId: acme, username: 'chef', severity: 'INFO' });
    expect(audit.details).toMatchObject({
      action: 'model_created',
      model: 'assets',
      object_id: String(id),
      changed: ['name', 'asset_type', 'tags', 'ip_address'],
    });

    const read = await call('chef', 'GET', `/api/admin/models/assets/${id}/`);
    expect(read.statusCode).toBe(200);
    expect(read.json()).toEqual(asset);

    const patched = await call('chef', 'PATCH', `/api/admin/models/assets/${id}/`, {
      payload: { criticality: 'high', hostname: 'srv.acme.local', name: 'srv-admin-01', owner: '' },
    });
    expect(patched.statusCode).toBe(200);
    expect(patched.json()).toMatchObject({ criticality: 'high', hostname: 'srv.acme.local', owner: null });
    expect(new Date(patched.json<{ updated_at: string }>().updated_at).getTime()).toBeGreaterThanOrEqual(
      new Date(asset.updated_at as string).getTime(),
    );
    audit = await lastAudit('data_change');
    // Only what really changed, by name.
    expect(audit.details).toMatchObject({
      action: 'model_updated',
      object_id: String(id),
      changed: ['criticality', 'hostname'],
    });
    expect(JSON.stringify(audit.details)).not.toContain('srv.acme.local');

    // A PATCH that changes nothing records nothing.
    const before = audit.id;
    expect(
      (await call('chef', 'PATCH', `/api/admin/models/assets/${id}/`, { payload: { criticality: 'high' } })).statusCode,
    ).toBe(200);
    expect((await lastAudit('data_change')).id).toBe(before);

    const duplicate = await call('chef', 'POST', '/api/admin/models/assets/', { payload: { name: 'srv-admin-01' } });
    expect(duplicate.statusCode).toBe(409);
    expect(duplicate.json()).toEqual({
      detail: 'Un élément avec cette valeur existe déjà.',
      code: 'duplicate',
      fields: { name: ['Cette valeur est déjà utilisée.'] },
    });

    const removed = await call('chef', 'DELETE', `/api/admin/models/assets/${id}/`);
    expect(removed.statusCode).toBe(204);
    audit = await lastAudit('data_change');
    expect(audit).toMatchObject({ tenantId: acme, severity: 'WARNING' });
    expect(audit.details).toMatchObject({
      action: 'model_deleted',
      model: 'assets',
      object_id: String(id),
      changed: [],
    });
    expect((await call('chef', 'GET', `/api/admin/models/assets/${id}/`)).json()).toEqual(NOT_FOUND);
    expect((await call('chef', 'DELETE', `/api/admin/models/assets/${id}/`)).statusCode).toBe(404);
    for (const bad of ['abc', '0', '-1', '1.5', '99999999999999999999']) {
      expect((await call('chef', 'GET', `/api/admin/models/assets/${bad}/`)).statusCode, bad).toBe(404);
    }
  });

  it('checks every field by type with French messages, and refuses unknown and read-only fields', async () => {
    const post = (payload: unknown, model = 'assets') =>
      call('chef', 'POST', `/api/admin/models/${model}/`, { payload });
    const fieldsOf = async (res: Awaited<ReturnType<typeof post>>) => {
      expect(res.statusCode).toBe(400);
      const json = res.json<{ detail: string; code: string; fields: Record<string, string[]> }>();
      expect(json.code).toBe('invalid');
      expect(json.detail).toBe(Object.values(json.fields)[0]![0]);
      return json.fields;
    };

    expect(await fieldsOf(await post({}))).toEqual({ name: ['Ce champ est obligatoire.'] });
    expect(await fieldsOf(await post({ name: '   ' }))).toEqual({ name: ['Ce champ est obligatoire.'] });
    expect(
      await fieldsOf(
        await post({
          name: 12,
          asset_type: 'toaster',
          criticality: null,
          tags: 'prod',
          ip_address: '999.1.1.1',
          hostname: 'h'.repeat(256),
          password_hash: 'x',
          id: 5,
          tenant_id: horizon,
          created_at: '2026-01-01T00:00:00Z',
        }),
      ),
    ).toEqual({
      name: ['« name » doit être un texte.'],
      asset_type: [
        '« asset_type » doit valoir server, workstation, network, application, database, cloud, container, iot, other.',
      ],
      criticality: ['« criticality » ne peut pas être nul.'],
      tags: ['« tags » doit être une liste d’au plus 50 textes de 100 caractères au plus.'],
      ip_address: ['Adresse IP invalide.'],
      hostname: ['« hostname » ne doit pas dépasser 255 caractères.'],
      password_hash: ['Champ inconnu : « password_hash ».'],
      id: ['Champ en lecture seule : « id ».'],
      tenant_id: ['Champ en lecture seule : « tenant_id ».'],
      created_at: ['Champ en lecture seule : « created_at ».'],
    });
    for (const body of [[], 'texte', 42, null]) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/admin/models/assets/',
        headers: { authorization: `Bearer ${await token('chef')}`, 'content-type': 'application/json' },
        payload: JSON.stringify(body),
      });
      expect(await fieldsOf(res)).toEqual({
        non_field_errors: ['Un objet JSON décrivant l’élément est attendu.'],
      });
    }

    // Dates, booleans and cross-field rules (projects); integers and references (threats).
    expect(
      await fieldsOf(
        await post({ name: 'P', start_date: '2026-02-30', is_active: 'yes', priority: 'low' }, 'projects'),
      ),
    ).toEqual({
      start_date: ['« start_date » doit être une date (AAAA-MM-JJ).'],
      is_active: ['« is_active » doit être vrai ou faux.'],
      priority: ['« priority » doit valoir LOW, MEDIUM, HIGH, CRITICAL.'],
    });
    expect(
      await fieldsOf(await post({ name: 'P', start_date: '2026-06-01', deadline: '2026-05-01' }, 'projects')),
    ).toEqual({ deadline: ['L’échéance ne peut pas précéder la date de début.'] });
    expect(
      await fieldsOf(await post({ title: 'T', asset_id: 1.5, cve_id: 'cve-12', status: 'CLOSED' }, 'threats')),
    ).toEqual({
      asset_id: ['« asset_id » doit être un entier.'],
      cve_id: ['Identifiant CVE invalide (format attendu : CVE-AAAA-NNNN).'],
      status: ['Champ en lecture seule : « status ».'],
    });
    expect(await fieldsOf(await post({ title: 'T', asset_id: 0 }, 'threats'))).toEqual({
      asset_id: ['« asset_id » doit être un entier supérieur ou égal à 1.'],
    });
    // Another tenant's asset cannot be linked, though a plain foreign key would accept it.
    expect(await fieldsOf(await post({ title: 'T', asset_id: horizonAsset }, 'threats'))).toEqual({
      asset_id: [`« asset_id » : aucun élément n° ${horizonAsset} parmi « Actifs » dans cette organisation.`],
    });

    const threat = await post({ title: ' Rançongiciel ', cve_id: 'cve-2024-3094', asset_id: acmeAsset }, 'threats');
    expect(threat.statusCode).toBe(201);
    expect(threat.json()).toMatchObject({
      title: 'Rançongiciel',
      cve_id: 'CVE-2024-3094',
      asset_id: acmeAsset,
      tenant_id: acme,
      status: 'ACTIVE',
      severity: 'medium',
    });
    const threatId = threat.json<{ id: number }>().id;
    const patch = await call('chef', 'PATCH', `/api/admin/models/threats/${threatId}/`, {
      payload: { severity: 'critical', asset_id: null, is_mitigated: true },
    });
    expect(await fieldsOf(patch)).toEqual({ is_mitigated: ['Champ en lecture seule : « is_mitigated ».'] });
    const ok = await call('chef', 'PATCH', `/api/admin/models/threats/${threatId}/`, {
      payload: { severity: 'critical', asset_id: null },
    });
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toMatchObject({ severity: 'critical', asset_id: null });

    const project = await post({ name: 'Audit annuel', start_date: '2026-06-01', priority: 'HIGH' }, 'projects');
    expect(project.statusCode).toBe(201);
    const projectId = project.json<{ id: number }>().id;
    // The rule holds on the stored result: a deadline alone is compared with the stored start date.
    const early = await call('chef', 'PATCH', `/api/admin/models/projects/${projectId}/`, {
      payload: { deadline: '2026-01-01' },
    });
    expect(await fieldsOf(early)).toEqual({ deadline: ['L’échéance ne peut pas précéder la date de début.'] });
    expect((await call('chef', 'DELETE', `/api/admin/models/projects/${projectId}/`)).statusCode).toBe(204);

    // Blog posts: a taken slug is a 409 on the slug; a malformed one a 400.
    const [post1, post2] = await t.database.db
      .select({ id: blogPosts.id, slug: blogPosts.slug })
      .from(blogPosts)
      .where(eq(blogPosts.tenantId, acme))
      .limit(2);
    expect(post2).toBeDefined();
    const taken = await call('chef', 'PATCH', `/api/admin/models/blog_posts/${post1!.id}/`, {
      payload: { slug: post2!.slug },
    });
    expect(taken.statusCode).toBe(409);
    expect(taken.json()).toMatchObject({ code: 'duplicate', fields: { slug: ['Cette valeur est déjà utilisée.'] } });
    const malformed = await call('chef', 'PATCH', `/api/admin/models/blog_posts/${post1!.id}/`, {
      payload: { slug: 'Pas Un Slug' },
    });
    expect(await fieldsOf(malformed)).toEqual({ slug: ['Lien invalide : lettres minuscules, chiffres et tirets.'] });
  });

  it('refuses writes to read-only models and operations with 405, and superuser-only models with 403', async () => {
    for (const [method, url] of [
      ['POST', '/api/admin/models/cves/'],
      ['PATCH', '/api/admin/models/cwes/CWE-79/'],
      ['DELETE', `/api/admin/models/tenants/${acme}/`],
      ['PATCH', `/api/admin/models/tenants/${acme}/`],
      ['DELETE', '/api/admin/models/scans/1/'],
      ['PATCH', '/api/admin/models/vulnerabilities/1/'],
      ['POST', '/api/admin/models/notifications/'],
      ['DELETE', '/api/admin/models/mail_outbox/1/'],
      ['POST', '/api/admin/models/users/'],
      ['DELETE', `/api/admin/models/users/${analysteId}/`],
      ['POST', '/api/admin/models/risks/'],
      ['POST', '/api/admin/models/blog_posts/'],
    ] as const) {
      const res = await call('admin', method, url, { payload: { name: 'x' } });
      expect(res.statusCode, `${method} ${url}`).toBe(405);
      expect(res.json<{ code: string; detail: string }>().code).toBe('read_only');
      expect(res.headers.allow).toMatch(/^GET/);
    }
    const cves = await call('admin', 'POST', '/api/admin/models/cves/', { payload: {} });
    expect(cves.json<{ detail: string }>().detail).toBe(
      'Création impossible : le modèle « cves » est en lecture seule ici (les CVE viennent des imports (tâche de mise à jour)).',
    );
    expect(cves.headers.allow).toBe('GET');
    const users405 = await call('admin', 'POST', '/api/admin/models/users/', { payload: {} });
    expect(users405.headers.allow).toBe('GET');
    expect((await call('admin', 'DELETE', `/api/admin/models/users/${analysteId}/`)).headers.allow).toBe('GET, PATCH');

    // A tenant admin reads accounts and memberships but does not change them here.
    for (const [method, url, payload] of [
      ['PATCH', `/api/admin/models/users/${analysteId}/`, { first_name: 'X' }],
      ['POST', '/api/admin/models/memberships/', { user_id: analysteId }],
      ['DELETE', `/api/admin/models/memberships/${acme}:${analysteId}/`, undefined],
    ] as const) {
      const res = await call('chef', method, url, payload ? { payload } : {});
      expect(res.statusCode, `${method} ${url}`).toBe(403);
      expect(res.json()).toEqual(FORBIDDEN);
      expect(await lastAudit('permission_denied')).toMatchObject({ username: 'chef', tenantId: acme });
    }
    const [member] = await t.database.db
      .select()
      .from(memberships)
      .where(and(eq(memberships.tenantId, acme), eq(memberships.userId, analysteId)));
    expect(member).toBeDefined();
    // The mail outbox is the platform's: not a tenant admin's.
    expect((await call('chef', 'GET', '/api/admin/models/mail_outbox/')).statusCode).toBe(403);
  });

  it('never shows a password hash, a TOTP seed, a token hash or a storage key, in any answer of any model', async () => {
    const hashes = (await t.database.db.select({ h: users.passwordHash }).from(users)).map((r) => r.h);
    const secrets = [TOTP_MARKER, RESET_MARKER, TOKEN_HASH_MARKER, ...hashes];
    const names = /password|totp_secret|token_hash|storage_key/i;
    const keysOf = (value: unknown, out: string[] = []): string[] => {
      if (Array.isArray(value)) for (const v of value) keysOf(v, out);
      else if (value && typeof value === 'object') {
        for (const [k, v] of Object.entries(value)) {
          out.push(k);
          keysOf(v, out);
        }
      }
      return out;
    };
    const inspect = (label: string, body: string) => {
      for (const secret of secrets) expect(body.includes(secret), `${label} holds a secret`).toBe(false);
      for (const needle of ['password_hash', 'totp_secret', 'token_hash', 'storage_key']) {
        expect(body.includes(needle), `${label} names ${needle}`).toBe(false);
      }
      const parsed: unknown = JSON.parse(body);
      for (const key of keysOf(parsed)) expect(names.test(key), `${label} has the field ${key}`).toBe(false);
    };
    let answers = 0;
    for (const who of ['admin', 'chef']) {
      const list = await call(who, 'GET', '/api/admin/models/');
      inspect(`${who} models`, list.body);
      answers++;
      for (const model of list.json<{ models: ModelOut[] }>().models) {
        const page = await call(who, 'GET', `/api/admin/models/${model.name}/?page_size=100`);
        expect(page.statusCode, `${who} ${model.name}`).toBe(200);
        inspect(`${who} ${model.name}`, page.body);
        answers++;
        for (const row of page.json<Page>().results.slice(0, 3)) {
          const id = model.primary_key.map((k) => String(row[k])).join(':');
          const one = await call(who, 'GET', `/api/admin/models/${model.name}/${encodeURIComponent(id)}/`);
          expect(one.statusCode, `${who} ${model.name} ${id}`).toBe(200);
          inspect(`${who} ${model.name} ${id}`, one.body);
          answers++;
        }
      }
    }
    expect(answers).toBeGreaterThan(40);
    // The outbox shows the mail but never its body.
    const outbox = (await call('admin', 'GET', '/api/admin/models/mail_outbox/')).json<Page>();
    expect(outbox.results.some((r) => r.subject === 'Réinitialisation')).toBe(true);
    // Secret fields cannot be written either.
    for (const payload of [{ password_hash: 'x' }, { totp_secret: 'x' }, { totp_enabled: false }]) {
      const res = await call('admin', 'PATCH', `/api/admin/models/users/${analysteId}/`, { payload });
      expect(res.statusCode).toBe(400);
      expect(res.body).not.toMatch(/\$|marker/);
    }
    for (const name of [
      'refresh_tokens',
      'password_reset_tokens',
      'idempotency_keys',
      'project_documents',
      'blog_images',
    ]) {
      expect((await call('admin', 'GET', `/api/admin/models/${name}/`)).statusCode, name).toBe(404);
    }
  });

  it('confines a tenant admin to their own tenant', async () => {
    const list = (await call('chef', 'GET', '/api/admin/models/assets/?page_size=100')).json<Page>();
    expect(list.count).toBeGreaterThan(0);
    expect(list.results.every((r) => r.tenant_id === acme)).toBe(true);
    expect(list.count).toBe(await t.database.db.$count(assets, eq(assets.tenantId, acme)));

    // Another tenant's row is simply not found, whatever the operation; nothing changes.
    const [before] = await t.database.db.select().from(assets).where(eq(assets.id, horizonAsset));
    expect((await call('chef', 'GET', `/api/admin/models/assets/${horizonAsset}/`)).json()).toEqual(NOT_FOUND);
    expect(
      (await call('chef', 'PATCH', `/api/admin/models/assets/${horizonAsset}/`, { payload: { name: 'pris' } }))
        .statusCode,
    ).toBe(404);
    expect((await call('chef', 'DELETE', `/api/admin/models/assets/${horizonAsset}/`)).statusCode).toBe(404);
    expect((await call('chef', 'DELETE', `/api/admin/models/threats/${horizonThreat}/`)).statusCode).toBe(404);
    const [after] = await t.database.db.select().from(assets).where(eq(assets.id, horizonAsset));
    expect(after).toEqual(before);

    // Naming another tenant is refused and recorded; naming their own is harmless.
    const other = await call('chef', 'GET', `/api/admin/models/assets/?tenant=${horizon}`);
    expect(other.statusCode).toBe(403);
    expect(await lastAudit('permission_denied')).toMatchObject({ username: 'chef' });
    expect((await call('chef', 'GET', `/api/admin/models/assets/?tenant=${acme}`)).statusCode).toBe(200);
    // Switching to a tenant they do not belong to is refused by the identity layer.
    expect((await call('chef', 'GET', '/api/admin/models/assets/', { tenant: horizon })).statusCode).toBe(403);

    const people = (await call('chef', 'GET', '/api/admin/models/users/?page_size=100')).json<Page>();
    const usernames = people.results.map((r) => r.username);
    expect(usernames).toContain('analyste');
    expect(usernames).toContain('chef');
    expect(usernames).not.toContain('lecteur');
    const theirTenants = (await call('chef', 'GET', '/api/admin/models/tenants/')).json<Page>();
    expect(theirTenants.results.map((r) => r.id)).toEqual([acme]);
    expect((await call('chef', 'GET', `/api/admin/models/tenants/${horizon}/`)).statusCode).toBe(404);
    const seats = (await call('chef', 'GET', '/api/admin/models/memberships/?page_size=100')).json<Page>();
    expect(seats.results.every((r) => r.tenant_id === acme)).toBe(true);
    expect((await call('chef', 'GET', `/api/admin/models/memberships/${horizon}:${analysteId}/`)).statusCode).toBe(404);
    for (const model of ['threats', 'scans', 'vulnerabilities', 'projects', 'risks', 'blog_posts', 'notifications']) {
      const rows = (await call('chef', 'GET', `/api/admin/models/${model}/?page_size=100`)).json<Page>();
      expect(
        rows.results.every((r) => r.tenant_id === acme),
        model,
      ).toBe(true);
    }
    // Reference data is shared.
    const cwe = (await call('chef', 'GET', '/api/admin/models/cwes/')).json<Page>();
    expect(cwe.count).toBeGreaterThan(0);
  });

  it('lets a superuser read and change every tenant’s rows, and name a tenant', async () => {
    const all = (await call('admin', 'GET', '/api/admin/models/assets/?page_size=100')).json<Page>();
    expect(new Set(all.results.map((r) => r.tenant_id))).toEqual(new Set([acme, horizon]));
    const onlyHorizon = (
      await call('admin', 'GET', `/api/admin/models/assets/?tenant=${horizon}&page_size=100`)
    ).json<Page>();
    expect(onlyHorizon.count).toBe(await t.database.db.$count(assets, eq(assets.tenantId, horizon)));
    expect(onlyHorizon.results.every((r) => r.tenant_id === horizon)).toBe(true);
    const users = (await call('admin', 'GET', `/api/admin/models/users/?tenant=${horizon}`)).json<Page>();
    expect(users.results.map((r) => r.username).sort()).toEqual(['admin', 'lecteur', 'manager']);

    const patched = await call('admin', 'PATCH', `/api/admin/models/assets/${horizonAsset}/`, {
      payload: { description: 'Vu par l’administration' },
    });
    expect(patched.statusCode).toBe(200);
    expect(patched.json()).toMatchObject({ tenant_id: horizon, description: 'Vu par l’administration' });
    // The change goes to the row's own tenant trail.
    expect(await lastAudit('data_change')).toMatchObject({ tenantId: horizon, username: 'admin' });

    const created = await call('admin', 'POST', `/api/admin/models/assets/?tenant=${horizon}`, {
      payload: { name: 'créé-par-admin' },
    });
    expect(created.statusCode).toBe(201);
    expect(created.json()).toMatchObject({ tenant_id: horizon });
    const missing = await call(
      'admin',
      'POST',
      '/api/admin/models/assets/?tenant=00000000-0000-4000-8000-000000000000',
      {
        payload: { name: 'x' },
      },
    );
    expect(missing.statusCode).toBe(400);
    expect(missing.json()).toMatchObject({ fields: { tenant: ['Organisation introuvable.'] } });
    // A row looked for under the wrong tenant is not found.
    expect((await call('admin', 'GET', `/api/admin/models/assets/${horizonAsset}/?tenant=${acme}`)).statusCode).toBe(
      404,
    );

    // Memberships: add, change and remove a seat in another tenant; composite ids.
    const seat = await call('admin', 'POST', `/api/admin/models/memberships/?tenant=${horizon}`, {
      payload: { user_id: analysteId, role: 'readonly' },
    });
    expect(seat.statusCode).toBe(201);
    expect(seat.json()).toMatchObject({ tenant_id: horizon, user_id: analysteId, role: 'readonly' });
    const again = await call('admin', 'POST', `/api/admin/models/memberships/?tenant=${horizon}`, {
      payload: { user_id: analysteId },
    });
    expect(again.statusCode).toBe(409);
    const ghost = await call('admin', 'POST', `/api/admin/models/memberships/?tenant=${horizon}`, {
      payload: { user_id: 999_999 },
    });
    expect(ghost.statusCode).toBe(400);
    expect(ghost.json()).toMatchObject({
      code: 'invalid_reference',
      fields: { user_id: ['Référence invalide : l’élément lié n’existe pas.'] },
    });
    const seatId = `${horizon}:${analysteId}`;
    const role = await call('admin', 'PATCH', `/api/admin/models/memberships/${seatId}/`, {
      payload: { role: 'manager' },
    });
    expect(role.statusCode).toBe(200);
    expect(role.json()).toMatchObject({ role: 'manager' });
    expect((await lastAudit('data_change')).details).toMatchObject({ model: 'memberships', object_id: seatId });
    const move = await call('admin', 'PATCH', `/api/admin/models/memberships/${seatId}/`, { payload: { user_id: 1 } });
    expect(move.json()).toMatchObject({ fields: { user_id: ['Champ en lecture seule : « user_id ».'] } });
    expect((await call('admin', 'DELETE', `/api/admin/models/memberships/${seatId}/`)).statusCode).toBe(204);
    expect((await call('admin', 'GET', `/api/admin/models/memberships/${seatId}/`)).statusCode).toBe(404);
    expect((await call('admin', 'GET', `/api/admin/models/memberships/${horizon}/`)).statusCode).toBe(404);
  });

  it('lets a superuser edit accounts, never their own flags, and audits names not values', async () => {
    const res = await call('admin', 'PATCH', `/api/admin/models/users/${analysteId}/`, {
      payload: { email: 'Marc.Lefevre@ACME-securite.fr', last_name: 'Lefèvre-Martin' },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ email: 'Marc.Lefevre@acme-securite.fr', last_name: 'Lefèvre-Martin' });
    const audit = await lastAudit('data_change');
    expect(audit).toMatchObject({ tenantId: null });
    expect(audit.details).toMatchObject({ model: 'users', changed: ['email', 'last_name'] });
    expect(JSON.stringify(audit.details)).not.toContain('Marc.Lefevre');

    const taken = await call('admin', 'PATCH', `/api/admin/models/users/${analysteId}/`, {
      payload: { email: 'admin@vigie.local' },
    });
    expect(taken.statusCode).toBe(409);
    expect(taken.json()).toMatchObject({ code: 'duplicate', fields: { email: ['Cette valeur est déjà utilisée.'] } });
    const bad = await call('admin', 'PATCH', `/api/admin/models/users/${analysteId}/`, {
      payload: { email: 'pas-un-mail' },
    });
    expect(bad.json()).toMatchObject({ fields: { email: ['Adresse email invalide.'] } });

    for (const payload of [{ is_superuser: false }, { is_active: false }, { is_staff: false }]) {
      const self = await call('admin', 'PATCH', `/api/admin/models/users/${adminId}/`, { payload });
      expect(self.statusCode).toBe(400);
      expect(self.json()).toMatchObject({ code: 'self_change' });
    }
    // Their own name is fine.
    expect(
      (await call('admin', 'PATCH', `/api/admin/models/users/${adminId}/`, { payload: { first_name: 'Camille' } }))
        .statusCode,
    ).toBe(200);
    const [still] = await t.database.db.select().from(users).where(eq(users.id, adminId));
    expect(still).toMatchObject({ isSuperuser: true, isActive: true, isStaff: true });
    const others = await t.database.db.$count(users, ne(users.id, adminId));
    expect(others).toBeGreaterThan(0);
  });

  it('never answers 5xx to random bodies, ids and queries, and always says why in French', async () => {
    const writable = ADMIN_MODELS.filter((m) => m.operations.length > 0);
    const names = [...new Set(ADMIN_MODELS.flatMap((m) => m.fields.map((f) => f.name))), 'password_hash', '__proto__'];
    const jsonValue = fc.letrec((tie) => ({
      value: fc.oneof(
        { depthSize: 'small' },
        fc.string(),
        fc.string({ unit: 'grapheme', maxLength: 40 }),
        fc.constantFrom('\u0000', '2026-02-30', '2026-05-04T09:00:00Z', 'CVE-2024-1', acme, '10.0.0.1', 'high'),
        fc.integer(),
        fc.constantFrom(0, -1, 2 ** 31, 2 ** 53, 1e300),
        fc.double(),
        fc.boolean(),
        fc.constant(null),
        fc.array(tie('value'), { maxLength: 3 }),
        fc.dictionary(fc.string({ maxLength: 8 }), tie('value'), { maxKeys: 3 }),
      ),
    })).value;
    const body = fc.oneof(fc.dictionary(fc.constantFrom(...names), jsonValue, { maxKeys: 5 }), jsonValue);
    const id = fc.oneof(
      fc.constant(String(acmeAsset)),
      fc.integer({ min: -5, max: 100_000 }).map(String),
      fc.string({ maxLength: 12 }),
      fc.constantFrom(`${acme}:${analysteId}`, 'CWE-79', '1e3', '\u0000'),
    );
    const query = fc.record({
      page: fc.oneof(fc.constant(undefined), fc.string({ maxLength: 6 }), fc.integer().map(String)),
      page_size: fc.oneof(fc.constant(undefined), fc.string({ maxLength: 6 }), fc.integer().map(String)),
      q: fc.oneof(fc.constant(undefined), fc.string({ maxLength: 10 }), fc.constant('%_\\\u0000')),
      ordering: fc.oneof(
        fc.constant(undefined),
        fc.constantFrom(...names.map((n) => `-${n}`)),
        fc.string({ maxLength: 6 }),
      ),
      tenant: fc.oneof(fc.constant(undefined), fc.constantFrom(acme, horizon, 'x')),
    });
    const toQuery = (q: Record<string, string | undefined>) => {
      const params = new URLSearchParams();
      for (const [k, v] of Object.entries(q)) if (v !== undefined) params.set(k, v);
      return params.toString();
    };
    for (const who of ['admin', 'chef']) await token(who);
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('admin', 'chef'),
        fc.constantFrom('GET', 'GET_ONE', 'POST', 'PATCH', 'DELETE'),
        fc.constantFrom(...MODEL_NAMES, 'nope'),
        body,
        id,
        query,
        async (who, op, model, payload, rowId, q) => {
          // Deleting seeded rows at random would starve the other cases: only made-up ids are deleted.
          if (op === 'DELETE' && writable.some((m) => m.name === model) && /^\d+$/.test(rowId)) return;
          const base = `/api/admin/models/${model}/`;
          const url =
            op === 'GET'
              ? `${base}?${toQuery(q)}`
              : op === 'POST'
                ? `${base}?${toQuery({ tenant: q.tenant })}`
                : `${base}${encodeURIComponent(rowId)}/?${toQuery({ tenant: q.tenant })}`;
          const method = op === 'GET_ONE' ? 'GET' : op;
          const res = await t.app.inject({
            method,
            url,
            headers: { authorization: `Bearer ${await token(who)}`, 'content-type': 'application/json' },
            ...(method === 'POST' || method === 'PATCH' ? { payload: JSON.stringify(payload) } : {}),
          });
          expect(res.statusCode, `${who} ${method} ${url} ${JSON.stringify(payload)} → ${res.body}`).toBeLessThan(500);
          if (res.statusCode >= 400) expect(typeof res.json<{ detail: unknown }>().detail).toBe('string');
        },
      ),
      { numRuns: 400, seed: 20260504 },
    );
  });

  it('refuses managers, users and viewers everywhere, and records it', async () => {
    for (const who of ['manager', 'analyste', 'lecteur']) {
      const attempts = [
        await call(who, 'GET', '/api/admin/models/'),
        await call(who, 'GET', '/api/admin/models/assets/'),
        await call(who, 'GET', `/api/admin/models/assets/${acmeAsset}/`),
        await call(who, 'POST', '/api/admin/models/assets/', { payload: { name: 'x' } }),
        await call(who, 'PATCH', `/api/admin/models/assets/${acmeAsset}/`, { payload: { name: 'x' } }),
        await call(who, 'DELETE', `/api/admin/models/assets/${acmeAsset}/`),
        await call(who, 'GET', '/api/admin/models/no_such_model/'),
      ];
      for (const res of attempts) {
        expect(res.statusCode, who).toBe(403);
        expect(res.json()).toEqual(FORBIDDEN);
      }
      const audit = await lastAudit('permission_denied');
      expect(audit).toMatchObject({ username: who, severity: 'WARNING' });
      expect(audit.details).toMatchObject({ success: false });
    }
    expect((await t.app.inject({ method: 'GET', url: '/api/admin/models/' })).statusCode).toBe(401);
  });
});
