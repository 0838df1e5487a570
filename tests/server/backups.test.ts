import { createHash, randomUUID } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { extract as tarExtract, pack as tarPack } from 'tar-stream';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { openDatabase } from '../../server/src/db/client.ts';
import { checkRestorePermitted, RestoreNotPermittedError } from '../../server/src/services/backup-archive.ts';
import { ServerLogSink } from '../../server/src/services/server-logs.ts';
import { CREATE_BACKUP_TASK } from '../../server/src/tasks/backup-tasks.ts';
import { startFakeS3, type FakeS3 } from './fake-s3.ts';
import { createTestApp, onPostgres, type TestApp } from './helpers.ts';
import { apiFor, jsonWithFields, signedIn, type Method, type Session } from './support/api.ts';
import { useTestApp } from './support/app.ts';
import { FORBIDDEN, multipart, NOT_FOUND, type FormPart } from './support/http.ts';
import type { BackupOut } from '../../server/src/presenters/backup.ts';

const ENGINE = onPostgres ? 'postgres' : 'pglite';
const OTHER_ENGINE = onPostgres ? 'pglite' : 'postgres';
const FIELDS = [
  'completed_at',
  'created_at',
  'created_by',
  'engine',
  'error',
  'filename',
  'id',
  'note',
  'sha256',
  'size',
  'status',
];
/** Not in a backup (docs/api-admin.md "Backups"): its list, the logs, the task runs and the cluster's own tables. */
const EXCLUDED = [
  'backups',
  'server_logs',
  'task_runs',
  'server_processes',
  'signing_keys',
  'attempt_counters',
  'login_lockouts',
  'tenant_writes',
];
const FILENAME_RE = /^vigie-backup-\d{8}-\d{6}-[0-9a-f]{8}\.tar\.gz$/;
const PDF = Buffer.from('%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n', 'latin1');
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);
const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');

interface TarEntry {
  name: string;
  data: Buffer;
}

async function readTarGz(gz: Buffer): Promise<TarEntry[]> {
  const extract = tarExtract();
  const entries: TarEntry[] = [];
  const reading = (async () => {
    for await (const entry of extract) {
      const parts: Buffer[] = [];
      for await (const chunk of entry) parts.push(chunk as Buffer);
      entries.push({ name: entry.header.name, data: Buffer.concat(parts) });
    }
  })();
  extract.end(gunzipSync(gz));
  await reading;
  return entries;
}

async function writeTarGz(entries: TarEntry[]): Promise<Buffer> {
  const pack = tarPack();
  for (const e of entries) pack.entry({ name: e.name }, e.data);
  pack.finalize();
  const chunks: Buffer[] = [];
  for await (const chunk of pack) chunks.push(chunk as Buffer);
  return gzipSync(Buffer.concat(chunks));
}

/** The same archive with its manifest (and, optionally, an entry) changed. */
async function repack(
  gz: Buffer,
  change: { manifest?: (m: Record<string, unknown>) => void; entry?: (e: TarEntry) => void },
): Promise<Buffer> {
  const entries = await readTarGz(gz);
  for (const e of entries) {
    if (e.name === 'manifest.json' && change.manifest) {
      const manifest = JSON.parse(e.data.toString('utf8')) as Record<string, unknown>;
      change.manifest(manifest);
      e.data = Buffer.from(JSON.stringify(manifest));
    } else change.entry?.(e);
  }
  return writeTarGz(entries);
}

interface Snapshot {
  tables: Record<string, string[]>;
  documents: Record<string, string>;
}

const t = useTestApp();
const api = apiFor(t);
let acme: string;
let projectId: number;

beforeAll(async () => {
  await api.signInAll('admin', 'manager', 'analyste', 'lecteur');
  const [project] = (await t.database.executeSql('select id, tenant_id from projects order by id limit 1')).rows as {
    id: number;
    tenant_id: string;
  }[];
  projectId = Number(project!.id);
  acme = project!.tenant_id;
  // Documents on disk: a project document and a blog image.
  const doc = await upload('/api/projects/documents/', [
    { name: 'project', value: String(projectId) },
    { name: 'file', filename: 'rapport.pdf', content: PDF },
  ]);
  expect(doc.statusCode, doc.body).toBe(201);
  const image = await upload('/api/blog/images/', [{ name: 'file', filename: 'logo.png', content: PNG }]);
  expect(image.statusCode, image.body).toBe(201);
});

const call = (who: string, method: Method, url: string, payload?: unknown) =>
  api.call(who, method, url, payload !== undefined ? { payload } : {});

const upload = (url: string, parts: FormPart[], who = 'admin', tenant: string | null = acme) =>
  api.call(who, 'POST', url, { ...multipart(parts), ...(tenant ? { tenant } : {}) });

const uploadArchive = (content: Buffer, filename = 'sauvegarde.tar.gz', who = 'admin') =>
  upload('/api/admin/backups/upload/', [{ name: 'file', filename, content }], who, null);

const sql = async <T = Record<string, unknown>>(text: string, values?: unknown[]) =>
  (await t.database.executeSql(text, values)).rows as T[];

const backupsDir = () => path.join(t.filesDir, 'backups');
const documentsDir = () => path.join(t.filesDir, 'documents');

/** Waits on the row itself (an HTTP poll could write something the snapshot would then lack). */
async function waitForBackup(id: string): Promise<BackupOut> {
  const deadline = Date.now() + 25_000;
  for (;;) {
    const [row] = await sql<{ status: string }>('select status from backups where id = $1', [id]);
    if (row && row.status !== 'RUNNING') break;
    if (!row) throw new Error(`backup ${id} vanished`);
    if (Date.now() > deadline) throw new Error(`backup ${id} still running`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const list = (await call('admin', 'GET', '/api/admin/backups/')).json<{ backups: BackupOut[] }>();
  return list.backups.find((b) => b.id === id)!;
}

async function createBackup(note?: string): Promise<BackupOut> {
  const res = await call('admin', 'POST', '/api/admin/backups/', note === undefined ? {} : { note });
  expect(res.statusCode, res.body).toBe(202);
  const done = await waitForBackup(res.json<BackupOut>().id);
  expect(done.status, done.error ?? '').toBe('COMPLETED');
  return done;
}

const restore = (id: string, body: unknown = { confirm: 'RESTAURER' }) =>
  call('admin', 'POST', `/api/admin/backups/${id}/restore/`, body);

/** Every backed-up table (each row as to_jsonb text, in primary-key order) and every document's bytes. */
async function snapshot(): Promise<Snapshot> {
  await ServerLogSink.of(t.database).flush();
  const tables = await sql<{ name: string; ord: string | null }>(
    `select c.relname as name,
       (select string_agg(format('x.%I', a.attname), ', ' order by array_position(i.indkey::int2[], a.attnum))
          from pg_index i join pg_attribute a on a.attrelid = i.indrelid and a.attnum = any(i.indkey)
          where i.indrelid = c.oid and i.indisprimary) as ord
     from pg_class c join pg_namespace n on n.oid = c.relnamespace
     where n.nspname = 'public' and c.relkind = 'r' order by 1`,
  );
  const out: Snapshot = { tables: {}, documents: {} };
  for (const { name, ord } of tables) {
    if (EXCLUDED.includes(name)) continue;
    const rows = await sql<{ line: string }>(
      `select to_jsonb(x)::text as line from public."${name}" x order by ${ord ?? 'x::text'}`,
    );
    out.tables[name] = rows.map((r) => r.line);
  }
  if (existsSync(documentsDir())) {
    for (const e of readdirSync(documentsDir(), { recursive: true, withFileTypes: true })) {
      if (!e.isFile()) continue;
      const file = path.join(e.parentPath, e.name);
      out.documents[path.relative(documentsDir(), file)] = readFileSync(file).toString('base64');
    }
  }
  return out;
}

const idOf = (line: string) => Number((JSON.parse(line) as { id: number }).id);

describe(`Backups: who may (${onPostgres ? 'PostgreSQL' : 'PGlite'})`, () => {
  it('refuses managers, users and viewers on every route, and records it', async () => {
    const id = randomUUID();
    for (const who of ['manager', 'analyste', 'lecteur']) {
      const answers = [
        await call(who, 'GET', '/api/admin/backups/'),
        await call(who, 'POST', '/api/admin/backups/', {}),
        await call(who, 'POST', `/api/admin/backups/${id}/restore/`, { confirm: 'RESTAURER' }),
        await call(who, 'DELETE', `/api/admin/backups/${id}/`),
        await call(who, 'GET', `/api/admin/backups/${id}/download/`),
        await uploadArchive(Buffer.from('x'), 'x.tar.gz', who),
      ];
      for (const res of answers) {
        expect(res.statusCode, `${who} ${res.body}`).toBe(403);
        expect(res.json()).toEqual(FORBIDDEN);
      }
    }
    const denied = await sql<{ n: number }>(
      `select count(*)::int as n from audit_events
        where event_type = 'permission_denied' and description = 'Accès refusé : sauvegardes'`,
    );
    expect(Number(denied[0]!.n)).toBe(18);
    expect((await call('admin', 'GET', '/api/admin/backups/')).statusCode).toBe(200);
  });

  it('answers 401 without a token', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/admin/backups/' });
    expect(res.statusCode).toBe(401);
  });

  it('runs the task for a superuser only (a staff launch from the task manager fails)', async () => {
    const [manager] = await sql<{ id: number }>(`select id from users where username = 'manager'`);
    const run = await t.jobs.launch(
      CREATE_BACKUP_TASK,
      { backup_id: randomUUID() },
      { tenantId: null, requestedBy: Number(manager!.id) },
    );
    const done = await t.jobs.waitFor(run.id);
    expect(done.status).toBe('FAILURE');
    expect(done.meta.error).toBe('Seul un superutilisateur peut lancer une sauvegarde.');
  });
});

describe(`Backups: create and list (${onPostgres ? 'PostgreSQL' : 'PGlite'})`, () => {
  it('answers 202 with the RUNNING record, then completes with the size and checksum of the file', async () => {
    const res = await call('admin', 'POST', '/api/admin/backups/', { note: '  avant migration  ' });
    const started = jsonWithFields<BackupOut>(res, 202, FIELDS);
    expect(started).toMatchObject({
      status: 'RUNNING',
      engine: ENGINE,
      note: 'avant migration',
      created_by: 'admin',
      size: null,
      sha256: null,
      error: null,
      completed_at: null,
    });
    expect(started.filename).toMatch(FILENAME_RE);
    expect(started.filename).toContain(started.id.slice(0, 8));

    const done = await waitForBackup(started.id);
    expect(done.status, done.error ?? '').toBe('COMPLETED');
    const file = path.join(backupsDir(), done.filename);
    const bytes = readFileSync(file);
    expect(done.size).toBe(bytes.length);
    expect(done.sha256).toBe(sha256(bytes));
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(done.completed_at).not.toBeNull();
    // No scratch file left beside it.
    expect(readdirSync(backupsDir()).filter((n) => n.startsWith('.'))).toEqual([]);

    const entries = await readTarGz(bytes);
    expect(entries.at(-1)!.name).toBe('manifest.json');
    const manifest = JSON.parse(entries.at(-1)!.data.toString('utf8')) as {
      format: string;
      format_version: number;
      engine: string;
      migration: string;
      tables: { name: string; rows: number; sha256: string }[];
      documents: { key: string; size: number; sha256: string }[];
      missing_documents: string[];
    };
    expect(manifest).toMatchObject({
      format: 'vigie-backup',
      format_version: 1,
      engine: ENGINE,
      missing_documents: [],
    });
    expect(manifest.migration).toMatch(/^\d{4}_/);
    const names = manifest.tables.map((x) => x.name);
    for (const excluded of EXCLUDED) expect(names).not.toContain(excluded);
    expect(names).toEqual(expect.arrayContaining(['users', 'audit_events', 'vulnerabilities', 'projects']));
    const projects = manifest.tables.find((x) => x.name === 'projects')!;
    const projectsFile = entries.find((e) => e.name === 'db/projects.jsonl')!.data;
    expect(sha256(projectsFile)).toBe(projects.sha256);
    expect(projectsFile.toString('utf8').trim().split('\n')).toHaveLength(projects.rows);
    expect(manifest.documents).toHaveLength(2);
    for (const d of manifest.documents) {
      const data = entries.find((e) => e.name === `documents/${d.key}`)!.data;
      expect(sha256(data)).toBe(d.sha256);
      expect(data.length).toBe(d.size);
    }

    const list = (await call('admin', 'GET', '/api/admin/backups/')).json<{ backups: BackupOut[] }>();
    expect(list.backups[0]!.id).toBe(started.id);
    const [event] = await sql<{ details: Record<string, unknown>; tenant_id: string | null }>(
      `select details, tenant_id from audit_events where event_type = 'configuration_change'
        and details->>'action' = 'backup_started' and details->>'backup_id' = $1`,
      [started.id],
    );
    expect(event).toMatchObject({ tenant_id: null, details: { filename: started.filename } });
  });

  it('lists newest first', async () => {
    const first = await createBackup();
    const second = await createBackup();
    const list = (await call('admin', 'GET', '/api/admin/backups/')).json<{ backups: BackupOut[] }>();
    const ids = list.backups.map((b) => b.id);
    expect(ids.indexOf(second.id)).toBeLessThan(ids.indexOf(first.id));
  });

  it('checks the note', async () => {
    const long = await call('admin', 'POST', '/api/admin/backups/', { note: 'x'.repeat(501) });
    expect(long.statusCode).toBe(400);
    expect(long.json()).toMatchObject({ detail: 'La note ne doit pas dépasser 500 caractères.' });
    const unknown = await call('admin', 'POST', '/api/admin/backups/', { nom: 'x' });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json()).toMatchObject({ detail: 'Champ inconnu : « nom ».' });
  });
});

describe(`Backups: round trip (${onPostgres ? 'PostgreSQL' : 'PGlite'})`, () => {
  it('restores every table and every document byte for byte', async () => {
    const backup = await createBackup('aller-retour');
    const before = await snapshot();
    expect(Object.keys(before.documents)).toHaveLength(2);
    const [{ max: lastEvent }] = (await sql<{ max: number }>('select max(id) as max from audit_events')) as [
      { max: number },
    ];

    // Destroy: settings and policies (cached in this process), findings, a project, a blog post, a document file,
    // a new document, an account and more audit events.
    expect((await call('admin', 'PATCH', '/api/system/settings/', { app_name: 'Vigie détruite' })).statusCode).toBe(
      200,
    );
    expect((await call('admin', 'PATCH', '/api/security/policies', { password_min_length: 20 })).statusCode).toBe(200);
    expect((await call('admin', 'GET', '/api/system/settings/')).json()).toMatchObject({ app_name: 'Vigie détruite' });
    await sql('delete from vulnerabilities where id in (select id from vulnerabilities order by id limit 10)');
    await sql(`update projects set name = 'Projet détruit' where id = $1`, [projectId]);
    await sql('delete from blog_posts where id = (select min(id) from blog_posts)');
    const [doomed] = Object.keys(before.documents);
    rmSync(path.join(documentsDir(), doomed!));
    const extra = await upload('/api/projects/documents/', [
      { name: 'project', value: String(projectId) },
      { name: 'file', filename: 'intrus.pdf', content: PDF },
    ]);
    expect(extra.statusCode).toBe(201);
    await sql(`insert into users (username, email, password_hash) values ('intrus', 'intrus@example.fr', 'x')`);
    expect((await call('lecteur', 'GET', '/api/admin/backups/')).statusCode).toBe(403);
    expect(await snapshot()).not.toEqual(before);

    const res = await restore(backup.id);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({
      detail: 'Sauvegarde restaurée.',
      backup: { id: backup.id, status: 'COMPLETED' },
      tables: Object.keys(before.tables).length,
      rows: Object.values(before.tables).reduce((n, rows) => n + rows.length, 0),
      documents: 2,
      missing_documents: [],
    });

    const after = await snapshot();
    expect(after.documents).toEqual(before.documents);
    expect(Object.keys(after.tables)).toEqual(Object.keys(before.tables));
    for (const name of Object.keys(before.tables)) {
      if (name === 'audit_events') continue;
      expect(after.tables[name], name).toEqual(before.tables[name]);
    }
    // The trail as it was, then the restore's own event.
    const events = after.tables.audit_events!;
    expect(events.filter((l) => idOf(l) <= lastEvent)).toEqual(before.tables.audit_events);
    const added = events.filter((l) => idOf(l) > lastEvent).map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(added).toHaveLength(1);
    expect(added[0]).toMatchObject({
      event_type: 'configuration_change',
      severity: 'WARNING',
      tenant_id: null,
      username: 'admin',
      details: { action: 'backup_restored', backup_id: backup.id },
    });
    // No document left aside.
    expect(readdirSync(t.filesDir).filter((n) => n.startsWith('documents.'))).toEqual([]);

    // Caches: the restored values at once.
    expect((await call('admin', 'GET', '/api/system/settings/')).json()).toMatchObject({ app_name: 'Vigie' });
    expect((await call('admin', 'GET', '/api/security/policies')).json()).toMatchObject({ password_min_length: 8 });
    // The backup list survived.
    const list = (await call('admin', 'GET', '/api/admin/backups/')).json<{ backups: BackupOut[] }>();
    expect(list.backups.map((b) => b.id)).toContain(backup.id);
  });

  it('leaves the counters consistent, and triggers and sequences working again', async () => {
    // By SSVC decision too (migration 0029; 0: none, a resolved finding).
    const totals = `select tenant_id, severity, is_resolved, kev, ssvc_decision::int as ssvc, n::int as n
                      from vulnerability_totals where n <> 0 order by 1, 2, 3, 4, 5`;
    const recount = `select tenant_id, severity, is_resolved, kev, coalesce(ssvc_decision, 0)::int as ssvc,
                            count(*)::int as n from vulnerabilities group by 1, 2, 3, 4, 5 order by 1, 2, 3, 4, 5`;
    expect(await sql(totals)).toEqual(await sql(recount));
    // The counters' trigger fires again (session_replication_role was local to the restore).
    await sql('delete from vulnerabilities where id = (select min(id) from vulnerabilities)');
    expect(await sql(totals)).toEqual(await sql(recount));
    // The audit trail is append-only again.
    await expect(sql('delete from audit_events where id = (select min(id) from audit_events)')).rejects.toThrow(
      /ajout seul/,
    );
    // Identity sequences continue after the restored rows.
    const [created] = await sql<{ id: number }>(
      `insert into users (username, email, password_hash) values ('apres', 'apres@example.fr', 'x') returning id`,
    );
    const [{ max }] = (await sql<{ max: number }>(`select max(id) as max from users where username <> 'apres'`)) as [
      { max: number },
    ];
    expect(Number(created!.id)).toBe(Number(max) + 1);
  });
});

describe(`Backups: refused files change nothing (${onPostgres ? 'PostgreSQL' : 'PGlite'})`, () => {
  let backup: BackupOut;
  let original: Buffer;
  const file = () => path.join(backupsDir(), backup.filename);

  beforeAll(async () => {
    backup = await createBackup('refus');
    original = readFileSync(file());
  });

  const refusedWithoutChange = async (attempt: () => Promise<{ statusCode: number; body: string }>, detail: RegExp) => {
    const before = await snapshot();
    const rowsBefore = await sql('select id, status, sha256 from backups order by id');
    const filesBefore = readdirSync(backupsDir()).sort();
    const res = await attempt();
    expect(res.statusCode, res.body).toBe(400);
    const body = JSON.parse(res.body) as { detail: string; code: string };
    expect(body.code).toBe('invalid_backup');
    expect(body.detail).toMatch(/^Fichier refusé : /);
    expect(body.detail).toMatch(detail);
    expect(await snapshot()).toEqual(before);
    expect(await sql('select id, status, sha256 from backups order by id')).toEqual(rowsBefore);
    expect(readdirSync(backupsDir()).sort()).toEqual(filesBefore);
    expect(readdirSync(t.filesDir).filter((n) => n.startsWith('documents.'))).toEqual([]);
  };

  it('refuses a stored archive with one byte flipped', async () => {
    const flipped = Buffer.from(original);
    flipped[Math.floor(flipped.length / 2)]! ^= 0xff;
    writeFileSync(file(), flipped);
    try {
      await refusedWithoutChange(() => restore(backup.id), /corrompue|lisible/);
    } finally {
      writeFileSync(file(), original);
    }
  });

  it('refuses a stored archive replaced by one of the other engine, even with a matching checksum', async () => {
    const foreign = await repack(original, { manifest: (m) => (m.engine = OTHER_ENGINE) });
    writeFileSync(file(), foreign);
    await sql('update backups set sha256 = $1 where id = $2', [sha256(foreign), backup.id]);
    try {
      await refusedWithoutChange(() => restore(backup.id), /même moteur/);
    } finally {
      writeFileSync(file(), original);
      await sql('update backups set sha256 = $1 where id = $2', [sha256(original), backup.id]);
    }
  });

  it('refuses uploads that are not archives, foreign or corrupted', async () => {
    await refusedWithoutChange(
      () => uploadArchive(Buffer.from('pas une archive')),
      /pas une archive \.tar\.gz lisible/,
    );
    const truncated = original.subarray(0, Math.floor(original.length / 2));
    await refusedWithoutChange(() => uploadArchive(truncated), /pas une archive \.tar\.gz lisible/);
    const random = await writeTarGz([{ name: 'bonjour.txt', data: Buffer.from('bonjour') }]);
    await refusedWithoutChange(() => uploadArchive(random), /manifest\.json absent/);
    const otherFormat = await repack(original, { manifest: (m) => (m.format = 'autre-chose') });
    await refusedWithoutChange(() => uploadArchive(otherFormat), /pas une sauvegarde Vigie/);
    const otherEngine = await repack(original, { manifest: (m) => (m.engine = OTHER_ENGINE) });
    await refusedWithoutChange(() => uploadArchive(otherEngine), /même moteur/);
    const otherSchema = await repack(original, { manifest: (m) => (m.migration = '0099_schema_futur') });
    await refusedWithoutChange(() => uploadArchive(otherSchema), /0099_schema_futur/);
    const tampered = await repack(original, {
      entry: (e) => {
        if (e.name === 'db/projects.jsonl') e.data = Buffer.from(e.data.toString('utf8').replace('"', '"x'), 'utf8');
      },
    });
    await refusedWithoutChange(
      () => uploadArchive(tampered),
      /corrompue \(contenu de « db\/projects\.jsonl » modifié\)/,
    );
    const unexpected = await repack(original, {});
    const withExtra = await writeTarGz([
      ...(await readTarGz(unexpected)),
      { name: '../../etc/passwd', data: Buffer.from('x') },
    ]);
    await refusedWithoutChange(() => uploadArchive(withExtra), /entrée inattendue/);
  });
});

describe(`Backups: confirmation, upload, download, retention, delete (${onPostgres ? 'PostgreSQL' : 'PGlite'})`, () => {
  it('restores only with the typed confirmation', async () => {
    const backup = await createBackup();
    const before = await snapshot();
    for (const body of [{}, { confirm: '' }, { confirm: 'oui' }, { confirm: 'RESTAURE' }, { confirm: 42 }]) {
      const res = await restore(backup.id, body);
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({
        code: 'confirmation_required',
        detail:
          'Confirmation requise : saisissez « RESTAURER » dans « confirm » pour remplacer toutes les données par celles de la sauvegarde.',
      });
    }
    expect(await snapshot()).toEqual(before);
    expect((await restore(randomUUID())).json()).toEqual(NOT_FOUND);
    expect((await restore('pas-un-id')).json()).toEqual(NOT_FOUND);
  });

  it('downloads an archive, imports it back after full validation, and restores it', async () => {
    const backup = await createBackup('à exporter');
    const res = await call('admin', 'GET', `/api/admin/backups/${backup.id}/download/`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/gzip');
    expect(res.headers['content-disposition']).toContain(`filename="${backup.filename}"`);
    const bytes = res.rawPayload;
    expect(sha256(bytes)).toBe(backup.sha256);
    expect((await call('admin', 'DELETE', `/api/admin/backups/${backup.id}/`)).statusCode).toBe(204);

    const imported = await uploadArchive(bytes, 'export.tar.gz');
    expect(imported.statusCode, imported.body).toBe(201);
    const row = imported.json<BackupOut>();
    expect(row).toMatchObject({
      status: 'COMPLETED',
      engine: ENGINE,
      size: bytes.length,
      sha256: backup.sha256,
      created_by: 'admin',
      note: 'Importée depuis « export.tar.gz »',
    });
    expect(row.id).not.toBe(backup.id);
    expect(row.filename).toMatch(FILENAME_RE);
    expect(readFileSync(path.join(backupsDir(), row.filename)).equals(bytes)).toBe(true);

    const before = await snapshot();
    const restored = await restore(row.id);
    expect(restored.statusCode, restored.body).toBe(200);
    const after = await snapshot();
    for (const name of Object.keys(before.tables)) {
      if (name !== 'audit_events') expect(after.tables[name], name).toEqual(before.tables[name]);
    }
    expect(after.documents).toEqual(before.documents);
  });

  it('keeps backup_retention_count completed backups, deleting the older files and rows', async () => {
    expect((await call('admin', 'PATCH', '/api/admin/config/', { backup_retention_count: 2 })).statusCode).toBe(200);
    try {
      const made = [await createBackup('r1'), await createBackup('r2'), await createBackup('r3')];
      const list = (await call('admin', 'GET', '/api/admin/backups/')).json<{ backups: BackupOut[] }>();
      const completed = list.backups.filter((b) => b.status === 'COMPLETED');
      expect(completed.map((b) => b.id)).toEqual([made[2]!.id, made[1]!.id]);
      const files = readdirSync(backupsDir()).filter((n) => FILENAME_RE.test(n));
      expect(files.sort()).toEqual(completed.map((b) => b.filename).sort());
      const [event] = await sql<{ details: { backups: { id: string }[] } }>(
        `select details from audit_events where details->>'action' = 'backups_pruned' order by id desc limit 1`,
      );
      expect(event!.details.backups.map((b) => b.id)).toContain(made[0]!.id);
    } finally {
      await call('admin', 'PATCH', '/api/admin/config/', { backup_retention_count: 10 });
    }
  });

  it('deletes the file and the row', async () => {
    const backup = await createBackup();
    const file = path.join(backupsDir(), backup.filename);
    expect(existsSync(file)).toBe(true);
    const res = await call('admin', 'DELETE', `/api/admin/backups/${backup.id}/`);
    expect(res.statusCode).toBe(204);
    expect(existsSync(file)).toBe(false);
    const list = (await call('admin', 'GET', '/api/admin/backups/')).json<{ backups: BackupOut[] }>();
    expect(list.backups.map((b) => b.id)).not.toContain(backup.id);
    expect((await call('admin', 'DELETE', `/api/admin/backups/${backup.id}/`)).json()).toEqual(NOT_FOUND);
    expect((await call('admin', 'GET', `/api/admin/backups/${backup.id}/download/`)).statusCode).toBe(404);
    const [event] = await sql<{ severity: string }>(
      `select severity from audit_events where details->>'action' = 'backup_deleted' and details->>'backup_id' = $1`,
      [backup.id],
    );
    expect(event).toEqual({ severity: 'WARNING' });
  });

  it('says so when the file of a backup is gone', async () => {
    const backup = await createBackup();
    rmSync(path.join(backupsDir(), backup.filename));
    const res = await restore(backup.id);
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({ code: 'backup_file_missing' });
  });
});

describe(`Backups: refusals before anything is read (${onPostgres ? 'PostgreSQL' : 'PGlite'})`, () => {
  it('refuses a restore while a backup is running', async () => {
    const backup = await createBackup();
    const id = randomUUID();
    await sql(
      `insert into backups (id, filename, engine, status) values ($1, 'vigie-backup-20240101-000000-00000000.tar.gz', $2, 'RUNNING')`,
      [id, ENGINE],
    );
    try {
      const res = await restore(backup.id);
      expect(res.statusCode).toBe(409);
      expect(res.json()).toMatchObject({
        code: 'conflict',
        detail: expect.stringContaining('Une sauvegarde est en cours'),
      });
    } finally {
      await sql('delete from backups where id = $1', [id]);
    }
  });

  it.skipIf(!onPostgres)('says clearly when the database role may not switch off triggers', async () => {
    const role = `vigie_t_role_${Math.random().toString(36).slice(2, 10)}`;
    const admin = new pg.Client({ connectionString: t.database.url });
    await admin.connect();
    await admin.query(`create role ${role} login password 'x' nosuperuser`);
    const url = new URL(t.database.url!);
    url.username = role;
    url.password = 'x';
    const limited = await openDatabase({ databaseUrl: url.toString() });
    try {
      await expect(checkRestorePermitted(limited.db)).rejects.toBeInstanceOf(RestoreNotPermittedError);
      await expect(checkRestorePermitted(limited.db)).rejects.toThrow(/session_replication_role/);
      await expect(checkRestorePermitted(t.database.db)).resolves.toBeUndefined();
    } finally {
      await limited.close();
      await admin.query(`drop role ${role}`);
      await admin.end();
    }
  });
});

describe(`Backups: documents in an S3 bucket (${onPostgres ? 'PostgreSQL' : 'PGlite'})`, () => {
  const objects = new Map<string, Buffer>();
  let fake: FakeS3;
  let s3: TestApp;
  let admin: Session;
  let tenant: string;
  let project: number;

  beforeAll(async () => {
    fake = await startFakeS3(objects);
    vi.stubEnv('VIGIE_S3_BUCKET', 'vigie-docs');
    vi.stubEnv('VIGIE_S3_ENDPOINT', fake.endpoint);
    vi.stubEnv('VIGIE_S3_REGION', 'eu-west-3');
    vi.stubEnv('AWS_ACCESS_KEY_ID', 'AKIAFAKE');
    vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'fake-secret');
    vi.stubEnv('AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED', 'true');
    s3 = await createTestApp();
    admin = await signedIn(s3.app, 'admin');
    const [row] = (await s3.database.executeSql('select id, tenant_id from projects order by id limit 1')).rows as {
      id: number;
      tenant_id: string;
    }[];
    project = Number(row!.id);
    tenant = row!.tenant_id;
  });

  afterAll(async () => {
    await s3?.close();
    vi.unstubAllEnvs();
    await fake.close();
  });

  const inject = (method: Method, url: string, payload?: unknown) =>
    admin.request(method, url, { tenant, ...(payload !== undefined ? { payload } : {}) });
  const addDocument = async (name: string) => {
    const res = await admin.request('POST', '/api/projects/documents/', {
      tenant,
      ...multipart([
        { name: 'project', value: String(project) },
        { name: 'file', filename: name, content: PDF },
      ]),
    });
    expect(res.statusCode, res.body).toBe(201);
  };

  it('backs the bucket objects up and puts them back, removing the ones added since', async () => {
    await addDocument('a.pdf');
    await addDocument('b.pdf');
    const kept = new Map(objects);
    expect(kept.size).toBe(2);
    const started = await inject('POST', '/api/admin/backups/', {});
    expect(started.statusCode).toBe(202);
    const id = started.json<BackupOut>().id;
    for (let i = 0; i < 500; i++) {
      const [row] = (await s3.database.executeSql('select status, error from backups where id = $1', [id])).rows as {
        status: string;
        error: string | null;
      }[];
      if (row!.status !== 'RUNNING') {
        expect(row, row!.error ?? '').toMatchObject({ status: 'COMPLETED' });
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const [first] = [...kept.keys()];
    objects.delete(first!);
    await addDocument('c.pdf');
    expect(objects.size).toBe(2);

    const res = await inject('POST', `/api/admin/backups/${id}/restore/`, { confirm: 'RESTAURER' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ documents: 2 });
    expect(new Map(objects)).toEqual(kept);
  });
});
