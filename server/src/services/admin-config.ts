import { mkdtemp, realpath, rmdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { eq, sql } from 'drizzle-orm';
import type { Database, Db } from '../db/client.ts';
import { adminConfig, users } from '../db/schema.ts';
import { configuredSources } from '../importers/index.ts';
import { FieldErrors } from '../domain/errors.ts';
import { RUNTIME_CONFIG_KEYS } from '../../../contract/config.ts';
import { charCount } from '../../../contract/text.ts';
import { VERSION } from '../version.ts';
import { notifyEmailMode } from './notifier.ts';
import { redactUrl } from './server-logs.ts';

// ---------------------------------------------------------------------------------------------------------------
// Editable operational keys (admin_config). Only keys something reads: the backups use both.

export interface AdminConfig {
  /** Where backups are written; null: `{data dir}/backups`. */
  backup_location: string | null;
  /** How many completed backups are kept; older ones are deleted after a new one succeeds. */
  backup_retention_count: number;
}

export const CONFIG_DEFAULTS: AdminConfig = { backup_location: null, backup_retention_count: 10 };
const CONFIG_KEYS = Object.keys(CONFIG_DEFAULTS) as (keyof AdminConfig)[];
export const RETENTION_MIN = 1;
export const RETENTION_MAX = 365;
const MAX_PATH = 1024;

/** Runtime keys: shown by GET, set only by environment variables at start. */
const RUNTIME_KEYS = new Set<string>(RUNTIME_CONFIG_KEYS);

const isRetention = (v: unknown): v is number =>
  typeof v === 'number' && Number.isInteger(v) && v >= RETENTION_MIN && v <= RETENTION_MAX;

/** Stored values on top of the defaults; a stored value of the wrong shape is ignored. */
function merge(stored: Record<string, unknown>): AdminConfig {
  const out = { ...CONFIG_DEFAULTS };
  const location = stored.backup_location;
  if (typeof location === 'string' && path.isAbsolute(location)) out.backup_location = location;
  if (isRetention(stored.backup_retention_count)) out.backup_retention_count = stored.backup_retention_count;
  return out;
}

/** The directory backups go to: the configured location, else `{data dir}/backups`. */
export function backupDirOf(config: AdminConfig, dataDir: string): string {
  return config.backup_location ?? path.join(dataDir, 'backups');
}

const isInside = (child: string, parent: string) => {
  const rel = path.relative(parent, child);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
};

/** An absolute, existing, writable directory, outside the embedded database's own files. */
async function checkBackupLocation(raw: string, dataDir: string): Promise<{ value?: string; error?: string }> {
  const key = '« backup_location »';
  if (charCount(raw) > MAX_PATH || raw.includes('\0')) return { error: `${key} : chemin trop long ou invalide.` };
  if (!path.isAbsolute(raw)) return { error: `${key} doit être un chemin absolu (par exemple /var/backups/vigie).` };
  const dir = path.resolve(raw);
  let real: string;
  try {
    if (!(await stat(dir)).isDirectory()) return { error: `${key} : « ${dir} » n’est pas un dossier.` };
    real = await realpath(dir);
  } catch {
    return { error: `${key} : le dossier « ${dir} » n’existe pas.` };
  }
  const pglite = await realpath(path.join(dataDir, 'pglite')).catch(() => path.join(dataDir, 'pglite'));
  if (isInside(real, pglite)) {
    return { error: `${key} : les sauvegardes ne peuvent pas être écrites dans les fichiers de la base de données.` };
  }
  try {
    // Proof by doing: permission bits say nothing about read-only mounts or ACLs.
    await rmdir(await mkdtemp(path.join(dir, '.vigie-write-test-')));
  } catch {
    return { error: `${key} : le serveur ne peut pas écrire dans « ${dir} ».` };
  }
  return { value: dir };
}

/** Checks a PATCH body: editable keys only, each value by its rule. Throws a 400 with every field's message. */
export async function validateConfigPatch(body: unknown, dataDir: string): Promise<Partial<AdminConfig>> {
  const errors = new FieldErrors();
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    errors.add('non_field_errors', 'Un objet JSON de paramètres est attendu.');
    errors.throwIfAny();
  }
  const patch: Partial<AdminConfig> = {};
  for (const [key, raw] of Object.entries(body as Record<string, unknown>)) {
    if (key === 'backup_location') {
      if (raw === null || (typeof raw === 'string' && raw.trim() === '')) {
        patch.backup_location = null;
      } else if (typeof raw !== 'string') {
        errors.add(key, '« backup_location » doit être un chemin absolu, ou null pour l’emplacement par défaut.');
      } else {
        const { value, error } = await checkBackupLocation(raw.trim(), dataDir);
        if (error) errors.add(key, error);
        else patch.backup_location = value!;
      }
    } else if (key === 'backup_retention_count') {
      if (isRetention(raw)) patch.backup_retention_count = raw;
      else
        errors.add(key, `« backup_retention_count » doit être un entier entre ${RETENTION_MIN} et ${RETENTION_MAX}.`);
    } else if (RUNTIME_KEYS.has(key)) {
      errors.add(key, `« ${key} » se règle par variable d’environnement au démarrage du serveur, pas ici.`);
    } else {
      errors.add(key, `Paramètre inconnu : « ${key} ».`);
    }
  }
  errors.throwIfAny();
  return patch;
}

/** The stored configuration with who changed it last. */
export interface StoredAdminConfig {
  values: AdminConfig;
  updatedAt: Date | null;
  updatedBy: string | null;
}

/** Reads and writes admin_config (a singleton row; owner connection). */
export class AdminConfigStore {
  private static readonly shared = new WeakMap<Db, AdminConfigStore>();

  static of(db: Db): AdminConfigStore {
    let store = AdminConfigStore.shared.get(db);
    if (!store) AdminConfigStore.shared.set(db, (store = new AdminConfigStore(db)));
    return store;
  }

  private constructor(private readonly db: Db) {}

  async get(): Promise<AdminConfig> {
    return (await this.read()).values;
  }

  async read(): Promise<StoredAdminConfig> {
    const [row] = await this.db
      .select({ values: adminConfig.values, updatedAt: adminConfig.updatedAt, updatedBy: users.username })
      .from(adminConfig)
      .leftJoin(users, eq(users.id, adminConfig.updatedBy))
      .where(eq(adminConfig.id, 1));
    return { values: merge(row?.values ?? {}), updatedAt: row?.updatedAt ?? null, updatedBy: row?.updatedBy ?? null };
  }

  /** Applies a validated patch; returns the configuration before and after. */
  async update(patch: Partial<AdminConfig>, userId: number): Promise<{ before: AdminConfig; after: AdminConfig }> {
    const before = await this.get();
    const json = JSON.stringify(patch);
    await this.db
      .insert(adminConfig)
      .values({ id: 1, values: patch, updatedBy: userId })
      .onConflictDoUpdate({
        target: adminConfig.id,
        set: { values: sql`${adminConfig.values} || ${json}::jsonb`, updatedAt: sql`now()`, updatedBy: userId },
      });
    return { before, after: await this.get() };
  }
}

/** The keys that changed, with their old and new values (for the audit trail). */
export function configChanges(before: AdminConfig, after: AdminConfig) {
  return Object.fromEntries(
    CONFIG_KEYS.filter((k) => before[k] !== after[k]).map((k) => [k, { from: before[k], to: after[k] }]),
  );
}

// ---------------------------------------------------------------------------------------------------------------
// The effective runtime configuration, without a secret: never a connection string, password, key or token.

export interface RuntimeInput {
  database: Pick<Database, 'kind'>;
  dataDir: string;
  runJobs: boolean;
  env?: NodeJS.ProcessEnv;
}

export type RuntimeConfig = ReturnType<typeof describeRuntime>;

/** Read once when the app starts, like the document store and the mailer read the same variables. */
export function describeRuntime({ database, dataDir, runJobs, env = process.env }: RuntimeInput) {
  const bucket = env.VIGIE_S3_BUCKET?.trim();
  const region = env.VIGIE_S3_REGION?.trim() || env.AWS_REGION?.trim() || null;
  return {
    version: VERSION,
    database: { kind: database.kind },
    data_dir: dataDir,
    document_storage: bucket
      ? { kind: 's3' as const, bucket, region }
      : { kind: 'disk' as const, path: path.join(dataDir, 'documents') },
    mail: {
      smtp_configured: !!env.VIGIE_SMTP_URL?.trim(),
      from: env.VIGIE_MAIL_FROM?.trim() || null,
      public_url: env.VIGIE_PUBLIC_URL?.trim() ? redactUrl(env.VIGIE_PUBLIC_URL.trim()) : null,
    },
    notify_email: notifyEmailMode(env),
    job_workers: runJobs,
    // A source URL may carry a key in its query or credentials before its host: masked like a logged URL.
    cve_sources: configuredSources(env).map((s) => redactUrl(s)),
    stdout_log_level: env.LOG_LEVEL?.trim() || 'info',
    trust_proxy: env.VIGIE_TRUST_PROXY === '1' || env.VIGIE_TRUST_PROXY === 'true',
    secrets: {
      jwt_secret: env.VIGIE_JWT_SECRET?.trim() ? ('environment' as const) : ('database' as const),
      encryption_key: env.VIGIE_ENCRYPTION_KEY?.trim() ? ('environment' as const) : ('database' as const),
    },
  };
}
