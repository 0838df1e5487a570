import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, mkdtemp, readdir, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Database } from '../db/client.ts';
import { auditEvents } from '../db/schema.ts';
import { publicReason } from '../domain/storage-errors.ts';
import { createDocumentStore, DiskDocumentStore, type DocumentStore } from '../lib/document-store.ts';
import { backupRepo, type BackupRow } from '../repositories/backups.ts';
import { AdminConfigStore, backupDirOf } from './admin-config.ts';
import {
  analyzeRestored,
  BackupRefusedError,
  checkRestorePermitted,
  inspectArchive,
  isDataError,
  isLockTimeout,
  loadArchive,
  referencedDocumentKeys,
  runningShape,
  writeArchive,
  type LoadSummary,
  type ManifestDocument,
  type WrittenArchive,
} from './backup-archive.ts';
import { DEFAULT_STALE_SECONDS, processRegistryOf } from './process-registry.ts';
import { SecurityPolicyStore } from './security-policies.ts';
import { SystemSettingsStore } from './system-settings.ts';

// Backups (docs/api-admin.md "Backups"): the archive format lives in backup-archive.ts; this file keeps the rows,
// the files in the backup directory, the documents' swap and the caches in step.

export { BackupRefusedError } from './backup-archive.ts';

/** The background task that writes a backup (registered in tasks/backup-tasks.ts). */
export const CREATE_BACKUP_TASK = 'system.tasks.create_backup';

/** What every backup operation works on. */
export interface BackupContext {
  database: Database;
  /** The data dir (documents/ and, unless configured elsewhere, backups/). */
  filesDir: string;
}

/** A state that forbids the operation now (a backup running, a restore under way): 409. */
export class BackupConflictError extends Error {}

/** The row exists but its file is not in the backup directory: 404. */
export class BackupFileMissingError extends Error {}

const FILENAME_RE = /^vigie-backup-\d{8}-\d{6}-[0-9a-f]{8}\.tar\.gz$/;

/** `vigie-backup-YYYYMMDD-HHMMSS-<id8>.tar.gz` (UTC). */
export function backupFilename(at: Date, id: string): string {
  const iso = at.toISOString();
  return `vigie-backup-${iso.slice(0, 10).replaceAll('-', '')}-${iso.slice(11, 19).replaceAll(':', '')}-${id.slice(0, 8)}.tar.gz`;
}

/** The configured backup directory (`{data dir}/backups` by default, created on first use). */
export async function backupDirectory(ctx: BackupContext): Promise<string> {
  const dir = backupDirOf(await AdminConfigStore.of(ctx.database.db).get(), ctx.filesDir);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  return dir;
}

/** The archive of a row, which must exist. */
export async function backupFile(ctx: BackupContext, row: BackupRow): Promise<{ file: string; size: number }> {
  const dir = await backupDirectory(ctx);
  const file = path.join(dir, row.filename);
  const found = FILENAME_RE.test(row.filename) ? await stat(file).catch(() => undefined) : undefined;
  if (!found?.isFile()) {
    throw new BackupFileMissingError(
      `Le fichier de cette sauvegarde (« ${row.filename} ») est introuvable dans « ${dir} ». ` +
        'Si l’emplacement des sauvegardes a changé, déplacez-y le fichier.',
    );
  }
  return { file, size: found.size };
}

const errorMessage = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** The reason of a backup whose process died while writing it. */
export const INTERRUPTED_BACKUP_MESSAGE = 'Sauvegarde interrompue : le serveur s’est arrêté pendant sa création.';

/** The scratch folder of a backup being written, named after it so that a recovery finds it. */
export function backupWorkDir(dir: string, backupId: string): string {
  return path.join(dir, `.vigie-backup-work-${backupId}`);
}

/**
 * Fails the RUNNING backups that no live run will finish (docs/api-admin.md "Backups"): their run ended, its
 * process is dead, or no run was ever created for them. Liveness is the process registry's.
 */
async function settleAbandoned(ctx: BackupContext): Promise<void> {
  await backupRepo.settleAbandoned(ctx.database.db, {
    staleSeconds: processRegistryOf(ctx.database)?.staleSeconds ?? DEFAULT_STALE_SECONDS,
    interrupted: INTERRUPTED_BACKUP_MESSAGE,
  });
}

/** Newest first; a RUNNING backup that no live run will finish is shown FAILED. */
export async function listBackups(ctx: BackupContext): Promise<BackupRow[]> {
  await settleAbandoned(ctx);
  return backupRepo.list(ctx.database.db);
}

/**
 * The backup a dead process was writing (tasks/backup-tasks.ts recover hook): FAILED when its run will not be
 * retried, and what it left in the backup directory removed (the `.part` archive, the scratch folder).
 */
export async function recoverInterruptedBackup(
  ctx: BackupContext,
  backupId: string,
  opts: { fail: boolean },
): Promise<{ removed: string[] }> {
  if (opts.fail) await backupRepo.fail(ctx.database.db, backupId, INTERRUPTED_BACKUP_MESSAGE);
  const dir = await backupDirectory(ctx);
  // By name, whatever became of the row (a RUNNING backup may be deleted): its file names end with its id's start.
  const id8 = /^[0-9a-f]{8}/i.exec(backupId)?.[0];
  const partial = id8 ? new RegExp(`^\\.vigie-backup-\\d{8}-\\d{6}-${id8}\\.tar\\.gz\\.part$`) : undefined;
  const work = path.basename(backupWorkDir(dir, backupId));
  const removed: string[] = [];
  for (const name of await readdir(dir)) {
    if (name !== work && !partial?.test(name)) continue;
    await rm(path.join(dir, name), { recursive: true, force: true });
    removed.push(name);
  }
  return { removed };
}

/** The RUNNING row, then its task (launched by the caller: the route owns app.jobs). */
export async function startBackup(
  ctx: BackupContext,
  input: { note: string; userId: number },
  launch: (backupId: string) => Promise<unknown>,
): Promise<BackupRow> {
  const db = ctx.database.db;
  const id = randomUUID();
  const at = new Date();
  await backupRepo.insert(db, {
    id,
    filename: backupFilename(at, id),
    engine: ctx.database.kind,
    status: 'RUNNING',
    note: input.note,
    createdBy: input.userId,
    createdAt: at,
  });
  try {
    await launch(id);
  } catch (err) {
    await backupRepo.fail(db, id, `La tâche de sauvegarde n’a pas pu être lancée : ${publicReason(err)}`);
    throw err;
  }
  return (await backupRepo.byId(db, id))!;
}

export interface BackupRunResult extends WrittenArchive {
  row: BackupRow;
  pruned: string[];
}

/** The task's work: writes the archive of a RUNNING row, completes it, then applies the retention. */
export async function runBackup(
  ctx: BackupContext,
  backupId: string,
  opts: { signal?: AbortSignal; progress?: (percent: number) => Promise<void> } = {},
): Promise<BackupRunResult> {
  const db = ctx.database.db;
  const row = await backupRepo.byId(db, backupId);
  if (!row) throw new Error('Sauvegarde introuvable (supprimée avant de commencer ?).');
  if (row.status !== 'RUNNING') throw new Error('Cette sauvegarde n’est plus en cours.');
  let store: DocumentStore | undefined;
  let workDir: string | undefined;
  try {
    const dir = await backupDirectory(ctx);
    workDir = backupWorkDir(dir, backupId);
    // A folder left by an attempt that died is this backup's: start afresh.
    await rm(workDir, { recursive: true, force: true });
    await mkdir(workDir, { mode: 0o700 });
    store = createDocumentStore(ctx.filesDir);
    const target = path.join(dir, row.filename);
    const written = await writeArchive({
      database: ctx.database,
      store,
      target,
      workDir,
      createdAt: row.createdAt,
      ...(opts.signal ? { signal: opts.signal } : {}),
      ...(opts.progress ? { progress: opts.progress } : {}),
    });
    // The scratch folder goes before the row says COMPLETED: whoever sees it complete finds nothing half-done.
    await rm(workDir, { recursive: true, force: true });
    workDir = undefined;
    if (!(await backupRepo.complete(db, backupId, written))) {
      // Deleted while it was being written: the file goes too.
      await rm(target, { force: true });
      throw new Error('Sauvegarde supprimée pendant sa création.');
    }
    const pruned = await pruneBackups(ctx);
    return { ...written, row: (await backupRepo.byId(db, backupId))!, pruned };
  } catch (err) {
    // A short French reason: the error itself (SQL, paths) goes to the server's log with the task's failure.
    const message = opts.signal?.aborted ? 'Sauvegarde interrompue.' : publicReason(err);
    await backupRepo.fail(db, backupId, message).catch(() => {});
    throw err;
  } finally {
    if (workDir) await rm(workDir, { recursive: true, force: true });
    await store?.close();
  }
}

/**
 * Keeps the newest `backup_retention_count` completed backups and deletes the older ones (file and row); each
 * deletion is written to the platform audit trail. Returns the deleted files' names.
 */
export async function pruneBackups(ctx: BackupContext): Promise<string[]> {
  const db = ctx.database.db;
  const config = await AdminConfigStore.of(db).get();
  const dir = backupDirOf(config, ctx.filesDir);
  const old = await backupRepo.beyondRetention(db, config.backup_retention_count);
  for (const b of old) {
    await rm(path.join(dir, b.filename), { force: true });
    await backupRepo.remove(db, b.id);
  }
  if (old.length > 0) {
    await db.insert(auditEvents).values({
      tenantId: null,
      eventType: 'configuration_change',
      description: `Sauvegardes supprimées par la rétention (${config.backup_retention_count} conservées) : ${old
        .map((b) => b.filename)
        .join(', ')}`,
      source: 'server',
      details: {
        action: 'backups_pruned',
        retention_count: config.backup_retention_count,
        backups: old.map((b) => ({ id: b.id, filename: b.filename })),
      },
    });
  }
  return old.map((b) => b.filename);
}

/**
 * An archive made elsewhere: written aside, fully checked (as a restore would), then listed as COMPLETED under a
 * name of ours. Anything refused leaves no file and no row.
 */
export async function importBackup(
  ctx: BackupContext,
  content: Readable,
  input: { note: string; userId: number },
): Promise<BackupRow> {
  const db = ctx.database.db;
  const dir = await backupDirectory(ctx);
  const id = randomUUID();
  const partial = path.join(dir, `.vigie-upload-${id}.part`);
  try {
    await pipeline(content, createWriteStream(partial, { flags: 'wx', mode: 0o600 }));
    const inspected = await inspectArchive(partial, await runningShape(ctx.database));
    const taken = new Date(inspected.manifest.created_at);
    const filename = backupFilename(Number.isNaN(taken.getTime()) ? new Date() : taken, id);
    await rename(partial, path.join(dir, filename));
    const now = new Date();
    await backupRepo.insert(db, {
      id,
      filename,
      engine: inspected.manifest.engine,
      status: 'COMPLETED',
      size: inspected.size,
      sha256: inspected.sha256,
      note: input.note,
      createdBy: input.userId,
      createdAt: now,
      completedAt: now,
    });
  } catch (err) {
    await rm(partial, { force: true });
    throw err;
  }
  // The newest backup now: the retention never removes it.
  await pruneBackups(ctx);
  return (await backupRepo.byId(db, id))!;
}

/** Deletes the file and the row. A RUNNING backup may be deleted: its task then discards what it wrote. */
export async function deleteBackup(ctx: BackupContext, row: BackupRow): Promise<void> {
  const dir = await backupDirectory(ctx);
  if (FILENAME_RE.test(row.filename)) await rm(path.join(dir, row.filename), { force: true });
  await backupRepo.remove(ctx.database.db, row.id);
}

export interface RestoreSummary {
  backup: BackupRow;
  /** When the restored data was taken (the archive's manifest). */
  backupCreatedAt: string;
  tables: number;
  rows: number;
  documents: number;
  missingDocuments: string[];
  durationMs: number;
}

/** One restore at a time per database in this process. */
const restoring = new WeakSet<Database>();

/**
 * Restores a completed backup in place (docs/api-admin.md "Backups", "Restore"): everything is checked first, then
 * the tables are replaced in one transaction and the documents directory is swapped with the archive's; on any
 * failure nothing changes. The app keeps running; the in-process caches are dropped afterwards.
 */
export async function restoreBackup(ctx: BackupContext, row: BackupRow): Promise<RestoreSummary> {
  const { database } = ctx;
  const db = database.db;
  if (row.status !== 'COMPLETED') {
    throw new BackupConflictError('Seule une sauvegarde terminée (COMPLETED) peut être restaurée.');
  }
  if (restoring.has(database)) throw new BackupConflictError('Une restauration est déjà en cours.');
  restoring.add(database);
  const started = Date.now();
  try {
    await settleAbandoned(ctx);
    if ((await backupRepo.running(db)) > 0) {
      throw new BackupConflictError(
        'Une sauvegarde est en cours : attendez qu’elle se termine avant de restaurer (ou supprimez-la si elle est bloquée).',
      );
    }
    const { file } = await backupFile(ctx, row);
    await checkRestorePermitted(db);
    const store = createDocumentStore(ctx.filesDir);
    // Beside documents/ (same file system: the swap is two renames).
    await mkdir(ctx.filesDir, { recursive: true });
    const staging = await mkdtemp(path.join(ctx.filesDir, 'documents.restore-'));
    try {
      const inspected = await inspectArchive(file, await runningShape(database), {
        sha256: row.sha256,
        stageDocumentsIn: staging,
      });
      const documents = inspected.manifest.documents;
      const before = store instanceof DiskDocumentStore ? [] : await referencedDocumentKeys(db);
      // Keys are never rewritten: putting the archive's objects first changes no live document.
      if (!(store instanceof DiskDocumentStore)) await uploadStaged(store, staging, documents);
      let swap: Swap | undefined;
      let loaded: LoadSummary;
      try {
        loaded = await db.transaction(async (tx) => {
          const summary = await loadArchive(tx, file, inspected);
          // Last step before the commit: swapped back below if the commit fails.
          if (store instanceof DiskDocumentStore) swap = await swapIn(store.root, staging);
          return summary;
        });
      } catch (err) {
        if (swap) await swapBack(swap);
        if (err instanceof BackupRefusedError) throw err;
        if (isDataError(err)) {
          throw new BackupRefusedError(
            `Fichier refusé : les données de l’archive ne peuvent pas être chargées (${errorMessage(err)}). Rien n’a été modifié.`,
          );
        }
        if (isLockTimeout(err)) {
          throw new BackupConflictError('La base de données est occupée : réessayez la restauration dans un instant.');
        }
        throw err;
      }
      if (swap?.old) await rm(swap.old, { recursive: true, force: true });
      if (!(store instanceof DiskDocumentStore)) {
        const kept = new Set(documents.map((d) => d.key));
        for (const key of before) if (!kept.has(key)) await store.delete(key).catch(() => {});
      }
      SystemSettingsStore.of(db).invalidate();
      SecurityPolicyStore.of(db).invalidate();
      await analyzeRestored(db).catch(() => {});
      return {
        backup: (await backupRepo.byId(db, row.id)) ?? row,
        backupCreatedAt: inspected.manifest.created_at,
        tables: loaded.tables,
        rows: loaded.rows,
        documents: documents.length,
        missingDocuments: inspected.manifest.missing_documents,
        durationMs: Date.now() - started,
      };
    } finally {
      await rm(staging, { recursive: true, force: true });
      await store.close();
    }
  } finally {
    restoring.delete(database);
  }
}

async function uploadStaged(store: DocumentStore, staging: string, documents: ManifestDocument[]): Promise<void> {
  const local = new DiskDocumentStore(staging);
  for (const d of documents) await store.put(d.key, await local.get(d.key));
}

interface Swap {
  root: string;
  staging: string;
  /** Where the previous documents went (null: there were none). */
  old: string | null;
}

/** documents/ → documents.old-…, staging → documents/. */
async function swapIn(root: string, staging: string): Promise<Swap> {
  const old = `${root}.old-${randomUUID()}`;
  let moved = false;
  try {
    await rename(root, old);
    moved = true;
  } catch (err) {
    if ((err as { code?: string }).code !== 'ENOENT') throw err;
  }
  try {
    await rename(staging, root);
  } catch (err) {
    if (moved) await rename(old, root);
    throw err;
  }
  return { root, staging, old: moved ? old : null };
}

async function swapBack(swap: Swap): Promise<void> {
  await rename(swap.root, swap.staging).catch(() => {});
  if (swap.old) await rename(swap.old, swap.root);
}
