import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { desc, eq } from 'drizzle-orm';
import { auditEvents } from '../../server/src/db/schema.ts';
import { AdminConfigStore } from '../../server/src/services/admin-config.ts';
import { createTestApp, onPostgres } from './helpers.ts';
import { apiFor, signedIn } from './support/api.ts';
import { backend, useTestApp } from './support/app.ts';
import { auditEventsOf } from './support/world.ts';

const SECRETS = {
  DATABASE_URL: 'postgres://vigie:pg-secret-55@db.internal.example:5432/vigie',
  VIGIE_SMTP_URL: 'smtps://mailer:smtp-secret-99@mail.internal.example:465',
  VIGIE_S3_BUCKET: 'vigie-documents',
  VIGIE_S3_REGION: 'eu-west-3',
  VIGIE_S3_ENDPOINT: 'https://s3-key-in-url@objects.internal.example',
  AWS_ACCESS_KEY_ID: 'AKIAEXAMPLEKEYID0000',
  AWS_SECRET_ACCESS_KEY: 'aws-secret-77-wJalrXUtnFEMI',
  VIGIE_JWT_SECRET: 'jwt-secret-value-that-is-long-enough-0123456789',
  VIGIE_ENCRYPTION_KEY: 'encryption-key-value-0123456789',
  VIGIE_CVE_SOURCES: 'https://feeds:cve-pass-31@feeds.example/nvd.json?apikey=cve-key-1&year=2024',
  VIGIE_NOTIFY_EMAIL: 'critical',
  VIGIE_MAIL_FROM: 'Vigie <alertes@vigie.example>',
};
const LEAKS = [
  'pg-secret-55',
  'db.internal.example',
  'smtp-secret-99',
  'mail.internal.example',
  's3-key-in-url',
  'AKIAEXAMPLEKEYID0000',
  'aws-secret-77',
  'jwt-secret-value',
  'encryption-key-value',
  'cve-pass-31',
  'cve-key-1',
];

const t = useTestApp(async () => {
  // Read when the app starts, like the document store and the mailer do.
  for (const [k, v] of Object.entries(SECRETS)) vi.stubEnv(k, v);
  // Keeps the test output quiet: the S3 client warns about Node 20 once per process.
  vi.stubEnv('AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED', 'true');
  return createTestApp({ runJobs: false });
});
const api = apiFor(t);
let scratch: string;

beforeAll(async () => {
  await api.signInAll('admin', 'manager', 'analyste', 'lecteur');
  scratch = mkdtempSync(path.join(tmpdir(), 'vigie-config-'));
});
afterAll(() => {
  vi.unstubAllEnvs();
  rmSync(scratch, { recursive: true, force: true });
});

const call = (who: string, method: 'GET' | 'PATCH', payload?: unknown) =>
  api.call(who, method, '/api/admin/config/', payload !== undefined ? { payload } : {});

const configChanges = () =>
  t.database.db
    .select({ description: auditEvents.description, details: auditEvents.details, tenantId: auditEvents.tenantId })
    .from(auditEvents)
    .where(eq(auditEvents.eventType, 'configuration_change'))
    .orderBy(desc(auditEvents.id));

describe(`GET /api/admin/config/ (${backend})`, () => {
  it('shows the effective runtime configuration and the editable keys', async () => {
    const res = await call('admin', 'GET');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      version: expect.any(String),
      database: { kind: onPostgres ? 'postgres' : 'pglite' },
      data_dir: t.filesDir,
      document_storage: { kind: 's3', bucket: 'vigie-documents', region: 'eu-west-3' },
      mail: { smtp_configured: true, from: 'Vigie <alertes@vigie.example>', public_url: null },
      notify_email: 'critical',
      job_workers: false,
      cve_sources: ['https://feeds:[REDACTED]@feeds.example/nvd.json?apikey=[REDACTED]&year=2024'],
      stdout_log_level: expect.any(String),
      trust_proxy: false,
      secrets: { jwt_secret: 'environment', encryption_key: 'environment' },
      backups_dir: path.join(t.filesDir, 'backups'),
      editable: { backup_location: null, backup_retention_count: 10 },
      updated_at: null,
      updated_by: null,
    });
  });

  it('never shows a secret, a connection string or a mail server, even when they are configured', async () => {
    const body = (await call('admin', 'GET')).body;
    for (const leak of LEAKS) expect(body, leak).not.toContain(leak);
    if (t.database.url) {
      const url = new URL(t.database.url);
      expect(body).not.toContain(url.host);
      expect(body).not.toContain(url.pathname.slice(1));
    }
  });

  it('shows the disk store when no bucket is configured', async () => {
    vi.stubEnv('VIGIE_S3_BUCKET', '');
    const other = await createTestApp({ runJobs: false });
    try {
      const res = await (await signedIn(other.app, 'admin')).get('/api/admin/config/');
      expect(res.json()).toMatchObject({
        document_storage: { kind: 'disk', path: path.join(other.filesDir, 'documents') },
      });
    } finally {
      vi.stubEnv('VIGIE_S3_BUCKET', SECRETS.VIGIE_S3_BUCKET);
      await other.close();
    }
  });
});

describe('PATCH /api/admin/config/', () => {
  const refused = async (payload: unknown, field: string, message: RegExp) => {
    const res = await call('admin', 'PATCH', payload);
    expect(res.statusCode, JSON.stringify(payload)).toBe(400);
    const body = res.json<{ code: string; fields: Record<string, string[]> }>();
    expect(body.code).toBe('invalid');
    expect(body.fields[field]?.[0], JSON.stringify(payload)).toMatch(message);
  };

  it('checks every value, in French, and stores nothing when one is wrong', async () => {
    const file = path.join(scratch, 'a-file');
    writeFileSync(file, 'x');
    const insideDb = path.join(t.filesDir, 'pglite', 'backups');
    mkdirSync(insideDb, { recursive: true });
    await refused({ backup_location: 'relative/dir' }, 'backup_location', /doit être un chemin absolu/);
    await refused({ backup_location: path.join(scratch, 'missing') }, 'backup_location', /n’existe pas/);
    await refused({ backup_location: file }, 'backup_location', /n’est pas un dossier/);
    await refused({ backup_location: insideDb }, 'backup_location', /fichiers de la base de données/);
    await refused({ backup_location: 42 }, 'backup_location', /chemin absolu, ou null/);
    await refused({ backup_retention_count: 0 }, 'backup_retention_count', /entier entre 1 et 365/);
    await refused({ backup_retention_count: 366 }, 'backup_retention_count', /entier entre 1 et 365/);
    await refused({ backup_retention_count: '10' }, 'backup_retention_count', /entier entre 1 et 365/);
    await refused({ data_dir: '/tmp' }, 'data_dir', /variable d’environnement/);
    await refused({ cors_allowed_origins: ['*'] }, 'cors_allowed_origins', /^Paramètre inconnu/);
    await refused([1, 2], 'non_field_errors', /objet JSON/);
    await refused({ backup_location: scratch, backup_retention_count: 0 }, 'backup_retention_count', /entre 1/);
    expect(await AdminConfigStore.of(t.database.db).get()).toEqual({
      backup_location: null,
      backup_retention_count: 10,
    });
    expect(await configChanges()).toEqual([]);
  });

  it('stores valid values, answers the new configuration and records the change with old and new values', async () => {
    const res = await call('admin', 'PATCH', { backup_location: `${scratch}/`, backup_retention_count: 30 });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({
      backups_dir: scratch,
      editable: { backup_location: scratch, backup_retention_count: 30 },
      updated_by: 'admin',
      updated_at: expect.stringMatching(/^\d{4}-/),
    });
    // What the backups read.
    expect(await AdminConfigStore.of(t.database.db).get()).toEqual({
      backup_location: scratch,
      backup_retention_count: 30,
    });
    const [change] = await configChanges();
    expect(change).toMatchObject({
      description: 'Configuration modifiée : backup_location, backup_retention_count',
      tenantId: null,
      details: {
        changes: {
          backup_location: { from: null, to: scratch },
          backup_retention_count: { from: 10, to: 30 },
        },
      },
    });

    // The same values again change nothing and record nothing.
    expect((await call('admin', 'PATCH', { backup_retention_count: 30 })).statusCode).toBe(200);
    expect(await configChanges()).toHaveLength(1);

    // null (or an empty text) goes back to the default location.
    const reset = await call('admin', 'PATCH', { backup_location: null });
    expect(reset.json()).toMatchObject({
      backups_dir: path.join(t.filesDir, 'backups'),
      editable: { backup_location: null, backup_retention_count: 30 },
    });
    const [second] = await configChanges();
    expect(second!.details).toMatchObject({ changes: { backup_location: { from: scratch, to: null } } });
  });

  it('is for superusers only: managers (staff), users and viewers get 403, strangers 401', async () => {
    for (const who of ['manager', 'analyste', 'lecteur']) {
      expect((await call(who, 'GET')).statusCode, who).toBe(403);
      const res = await call(who, 'PATCH', { backup_retention_count: 5 });
      expect(res.statusCode, who).toBe(403);
      expect(res.json()).toMatchObject({ code: 'permission_denied' });
    }
    expect((await t.app.inject({ method: 'GET', url: '/api/admin/config/' })).statusCode).toBe(401);
    expect((await AdminConfigStore.of(t.database.db).get()).backup_retention_count).toBe(30);
    const denied = await auditEventsOf(t.database.db, {
      eventType: 'permission_denied',
      description: 'Accès refusé : configuration du système',
    });
    expect(denied).toHaveLength(6);
  });
});
