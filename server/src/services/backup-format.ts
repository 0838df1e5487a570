import type { Database } from '../db/client.ts';
import type { StoredFile } from '../lib/document-store.ts';

// The archive format (docs/api-admin.md "Backups"): one .tar.gz holding db/<table>.jsonl (one to_jsonb(row) per
// line, in primary-key order), documents/<key> (the document store's files) and manifest.json, written last once
// every size and checksum is known.

export const BACKUP_FORMAT = 'vigie-backup';
export const BACKUP_FORMAT_VERSION = 1;

/**
 * Tables of schema public left out: the list of backups (it must survive a restore), the server's operational log
 * (written continuously) and the job queue's run history (it mirrors pg-boss, which is not backed up either: a
 * restored run row would contradict the queue and abort the runs in progress), and the cluster's own state (processes,
 * keys, attempt counters, the write log of the dashboards' data versions) that belongs to the running deployment: a restore must not resurrect dead processes, and
 * keys are secrets.
 */
export const EXCLUDED_TABLES: readonly string[] = [
  'backups',
  'server_logs',
  'task_runs',
  'server_processes',
  'signing_keys',
  'attempt_counters',
  'login_lockouts',
  'tenant_writes',
];

export type Engine = Database['kind'];

export interface ManifestTable {
  name: string;
  rows: number;
  size: number;
  sha256: string;
}

export interface ManifestDocument {
  key: string;
  size: number;
  sha256: string;
}

export interface BackupManifest {
  format: typeof BACKUP_FORMAT;
  format_version: typeof BACKUP_FORMAT_VERSION;
  app_version: string;
  engine: Engine;
  /** Tag of the last migration applied to the database (server/migrations/meta/_journal.json). */
  migration: string;
  created_at: string;
  tables: ManifestTable[];
  documents: ManifestDocument[];
  /** Keys a row referenced whose file could not be read when the backup was taken. */
  missing_documents: string[];
}

/** A file that is not a restorable backup of this server: answered 400, nothing changed. */
export class BackupRefusedError extends Error {}

export const refused = (why: string) => new BackupRefusedError(`Fichier refusé : ${why}`);

export const TABLE_NAME_RE = /^[a-z_][a-z0-9_]{0,62}$/;
const SHA256_RE = /^[0-9a-f]{64}$/;

/** An archive read through and checked whole (see inspectArchive), with its file's size and checksum. */
export interface InspectedArchive extends StoredFile {
  manifest: BackupManifest;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isCount = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;

/** The manifest's shape, checked field by field (a hand-edited or foreign file never reaches the database). */
export function parseManifest(raw: Buffer): BackupManifest {
  let value: unknown;
  try {
    value = JSON.parse(raw.toString('utf8'));
  } catch {
    throw refused('manifest.json illisible (JSON invalide).');
  }
  if (!isRecord(value) || value.format !== BACKUP_FORMAT) {
    throw refused('ce n’est pas une sauvegarde Vigie (format de manifest.json inconnu).');
  }
  if (value.format_version !== BACKUP_FORMAT_VERSION) {
    throw refused(`version de format de sauvegarde non prise en charge (${JSON.stringify(value.format_version)}).`);
  }
  const incomplete = refused('manifest.json incomplet ou invalide.');
  const { engine, migration, tables, documents } = value;
  const missing = value.missing_documents ?? [];
  if (engine !== 'pglite' && engine !== 'postgres') throw incomplete;
  if (typeof migration !== 'string' || typeof value.created_at !== 'string') throw incomplete;
  if (!Array.isArray(tables) || !Array.isArray(documents) || !Array.isArray(missing)) throw incomplete;
  for (const t of tables) {
    if (!isRecord(t) || typeof t.name !== 'string' || !TABLE_NAME_RE.test(t.name)) throw incomplete;
    if (!isCount(t.rows) || !isCount(t.size) || typeof t.sha256 !== 'string' || !SHA256_RE.test(t.sha256)) {
      throw incomplete;
    }
  }
  for (const d of documents) {
    if (!isRecord(d) || typeof d.key !== 'string' || !isCount(d.size)) throw incomplete;
    if (typeof d.sha256 !== 'string' || !SHA256_RE.test(d.sha256)) throw incomplete;
  }
  if (!missing.every((k) => typeof k === 'string')) throw incomplete;
  return {
    format: BACKUP_FORMAT,
    format_version: BACKUP_FORMAT_VERSION,
    app_version: typeof value.app_version === 'string' ? value.app_version : '',
    engine,
    migration,
    created_at: value.created_at,
    tables: (tables as ManifestTable[]).map((t) => ({ name: t.name, rows: t.rows, size: t.size, sha256: t.sha256 })),
    documents: (documents as ManifestDocument[]).map((d) => ({ key: d.key, size: d.size, sha256: d.sha256 })),
    missing_documents: missing,
  };
}
