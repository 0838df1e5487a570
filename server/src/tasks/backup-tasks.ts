import { eq } from 'drizzle-orm';
import { users } from '../db/schema.ts';
import { CREATE_BACKUP_TASK, recoverInterruptedBackup, runBackup } from '../services/backups.ts';
import type { RecoveryContext, TaskContext, TaskDefinition, TaskOutcome } from './types.ts';
import { isUuid } from '../lib/uuid.ts';

export { CREATE_BACKUP_TASK } from '../services/backups.ts';

const number = new Intl.NumberFormat('fr-FR', { maximumFractionDigits: 1 });

function formatSize(bytes: number): string {
  if (bytes >= 1024 ** 3) return `${number.format(bytes / 1024 ** 3)} Go`;
  if (bytes >= 1024 ** 2) return `${number.format(bytes / 1024 ** 2)} Mo`;
  if (bytes >= 1024) return `${number.format(bytes / 1024)} Ko`;
  return `${bytes} octets`;
}

/**
 * Writes the archive of the backup that POST /api/admin/backups/ created (args.backup_id). Platform tasks may be
 * launched by staff from the task manager: this one only runs for a superuser's request.
 */
export async function createBackup(ctx: TaskContext): Promise<TaskOutcome> {
  const backupId = ctx.args.backup_id;
  if (typeof backupId !== 'string' || !isUuid(backupId)) {
    throw new Error('Paramètre « backup_id » manquant : une sauvegarde se lance par POST /api/admin/backups/.');
  }
  const [requester] =
    ctx.requestedBy === null
      ? []
      : await ctx.database.db
          .select({ isSuperuser: users.isSuperuser })
          .from(users)
          .where(eq(users.id, ctx.requestedBy));
  if (!requester?.isSuperuser) throw new Error('Seul un superutilisateur peut lancer une sauvegarde.');

  const done = await runBackup({ database: ctx.database, filesDir: ctx.filesDir }, backupId, {
    signal: ctx.signal,
    progress: (percent) => ctx.progress(percent),
  });
  const { manifest } = done;
  const rows = manifest.tables.reduce((n, t) => n + t.rows, 0);
  const parts = [
    `Sauvegarde « ${done.row.filename} » créée (${formatSize(done.size)}, ${number.format(manifest.tables.length)} tables, ` +
      `${number.format(rows)} lignes, ${number.format(manifest.documents.length)} documents)`,
  ];
  if (manifest.missing_documents.length > 0) {
    parts.push(`${number.format(manifest.missing_documents.length)} documents introuvables non sauvegardés`);
  }
  if (done.pruned.length > 0) parts.push(`${number.format(done.pruned.length)} anciennes sauvegardes supprimées`);
  return {
    result: parts.join(' ; '),
    meta: {
      backup_id: backupId,
      size: done.size,
      sha256: done.sha256,
      tables: manifest.tables.length,
      rows,
      documents: manifest.documents.length,
      missing_documents: manifest.missing_documents.length,
      pruned: done.pruned.length,
    },
  };
}

/**
 * The process writing the backup died: the backup is FAILED (no retry) and its `.part` archive and scratch folder
 * are removed, so the list tells the truth and restores are possible again at once.
 */
export async function recoverBackup(ctx: RecoveryContext): Promise<void> {
  const backupId = ctx.args.backup_id;
  if (typeof backupId !== 'string' || !isUuid(backupId)) return;
  const { removed } = await recoverInterruptedBackup({ database: ctx.database, filesDir: ctx.filesDir }, backupId, {
    fail: ctx.final,
  });
  ctx.log.warn({ backupId, removed }, 'backup interrupted by the death of its process recovered');
}

export const backupTasks: TaskDefinition[] = [
  {
    name: CREATE_BACKUP_TASK,
    label: 'Sauvegarde de la plateforme',
    description:
      'Écrit une archive de la base de données et des documents dans le dossier des sauvegardes, puis supprime les plus anciennes au-delà de backup_retention_count.',
    scope: 'platform',
    // A failed backup is reported as such; the administrator starts another one.
    retryLimit: 0,
    expireInSeconds: 6 * 3600,
    run: createBackup,
    recover: recoverBackup,
  },
];
