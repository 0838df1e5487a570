import { useRef, useState } from 'react';
import { usePolling } from '../../lib/use-polling.ts';
import { streamDownload, type DownloadProgress } from '../../lib/download.ts';
import { useDownload } from '../../lib/use-download.ts';
import { useResource } from '../../lib/use-resource.ts';
import { TypedConfirm } from '../../components/typed-confirm.tsx';
import { DataOriginNote } from '../../components/data-origin-note.tsx';
import { DataTable } from '../../components/data-table.tsx';
import { DeletableRowActions } from '../../components/confirm-delete.tsx';
import { ActionMessages, EmptyState, ReadStatus } from '../../components/list-state.tsx';
import { ProgressBar } from '../../components/progress-bar.tsx';
import { RowAction } from '../../components/row-action.tsx';
import { useRowActions } from '../../components/use-row-actions.ts';
import { messageOf } from '../../lib/error-message.ts';
import {
  backupDownloadPath,
  createBackup,
  deleteBackup,
  fetchBackups,
  restoreBackup,
  RESTORE_CONFIRMATION,
  type Backup,
  type RestoreSummary,
} from './admin-api.ts';
import { formatBytes, formatDateTime, NUMBER } from './format.ts';

/** While a backup runs, the list is read again this often (the task writes the archive in the background). */
export const BACKUP_POLL_MS = 2_000;

const STATUS: Record<string, { label: string; badge: string }> = {
  RUNNING: { label: 'En cours', badge: 'running' },
  COMPLETED: { label: 'Terminée', badge: 'ok' },
  FAILED: { label: 'Échec', badge: 'failed' },
};
const ENGINES: Record<string, string> = { pglite: 'PGlite', postgres: 'PostgreSQL' };

export function confirmsRestore(typed: string): boolean {
  return typed.trim().toUpperCase() === RESTORE_CONFIRMATION;
}

export function restoreSummaryText(s: RestoreSummary): string {
  const parts = [
    typeof s.tables === 'number' ? `${NUMBER.format(s.tables)} tables` : '',
    typeof s.rows === 'number' ? `${NUMBER.format(s.rows)} lignes` : '',
    typeof s.documents === 'number' ? `${NUMBER.format(s.documents)} documents` : '',
  ].filter(Boolean);
  const seconds =
    typeof s.duration_ms === 'number' ? ` en ${NUMBER.format(Math.round(s.duration_ms / 100) / 10)} s` : '';
  const missing = s.missing_documents?.length
    ? ` ${NUMBER.format(s.missing_documents.length)} document(s) manquaient dans la sauvegarde.`
    : '';
  return `${s.detail || 'Sauvegarde restaurée.'}${parts.length ? ` ${parts.join(', ')}${seconds}.` : ''}${missing}`;
}

/** The typed confirmation of a restore: « RESTAURER », as the server asks. */
export function RestoreConfirm({
  backup,
  onDone,
  onCancel,
}: {
  backup: Backup;
  onDone: (summary: RestoreSummary) => void;
  onCancel: () => void;
}) {
  return (
    <TypedConfirm
      title={`Restaurer la sauvegarde du ${formatDateTime(backup.created_at)}`}
      fieldLabel="Confirmation"
      matches={confirmsRestore}
      confirmLabel="Restaurer"
      busyLabel="Restauration en cours…"
      progressLabel="Restauration en cours"
      confirm={async (typed) => onDone(await restoreBackup(backup.id, typed))}
      onCancel={onCancel}
    >
      <strong>Toutes les données actuelles seront remplacées</strong> par celles de la sauvegarde : organisations,
      comptes, projets, vulnérabilités, documents, journal d’audit. Les sessions ouvertes depuis devront se reconnecter.
      Pour confirmer, saisissez <strong>{RESTORE_CONFIRMATION}</strong>.
    </TypedConfirm>
  );
}

/** Streams one archive with its progress (the size is known). */
function downloadBackup(backup: Backup, opts: { signal: AbortSignal; onProgress: (p: DownloadProgress) => void }) {
  return streamDownload({
    path: backupDownloadPath(backup.id),
    filename: backup.filename,
    mimeType: 'application/gzip',
    timeoutMs: 60_000,
    errorMessage: `Impossible de télécharger « ${backup.filename} ».`,
    ...opts,
  });
}

/** Sauvegardes: list, create (followed by polling), restore (typed confirmation), delete, download. */
export default function BackupsPage() {
  const [note, setNote] = useState('');
  const [creating, setCreating] = useState(false);
  const [restoring, setRestoring] = useState<Backup | null>(null);
  const [confirming, setConfirming] = useState<string | null>(null);
  const { busy, notice, setNotice, actionError, run } = useRowActions<string>();
  const [createError, setCreateError] = useState<string | null>(null);
  const download = useDownload();
  const startDownload = (b: Backup) => download.start(b.id, b.size, (opts) => downloadBackup(b, opts));
  const watched = useRef(new Set<string>());

  const read = useResource(async () => {
    const answer = await fetchBackups();
    // Say when a backup this page launched is done.
    for (const b of answer.data) {
      if (!watched.current.has(b.id) || b.status === 'RUNNING') continue;
      watched.current.delete(b.id);
      setNotice(
        b.status === 'COMPLETED'
          ? `Sauvegarde terminée : ${b.filename} (${formatBytes(b.size)}).`
          : `La sauvegarde a échoué : ${b.error ?? 'erreur inconnue'}.`,
      );
    }
    return answer;
  }, []);
  const load = read.refresh;
  const backups = read.data ?? [];
  const running = backups.some((b) => b.status === 'RUNNING');
  usePolling(running, BACKUP_POLL_MS, load);

  async function create() {
    setCreating(true);
    setCreateError(null);
    setNotice(null);
    try {
      const started = await createBackup(note);
      watched.current.add(started.id);
      setNote('');
      setNotice('Sauvegarde lancée : elle s’écrit en arrière-plan.');
      await load();
    } catch (err) {
      setCreateError(messageOf(err));
    } finally {
      setCreating(false);
    }
  }

  return (
    <section className="admin-page">
      <h1>Sauvegardes</h1>
      <form
        className="card admin-inline-form"
        aria-label="Créer une sauvegarde"
        onSubmit={(e) => {
          e.preventDefault();
          if (!creating) void create();
        }}
      >
        <label htmlFor="backup-note">Note (facultative)</label>
        <input id="backup-note" value={note} maxLength={500} onChange={(e) => setNote(e.target.value)} />
        <button type="submit" className="btn primary" disabled={creating}>
          {creating ? 'Lancement…' : 'Créer une sauvegarde'}
        </button>
        {running && <ProgressBar label="Sauvegarde en cours" value={null} showValue={false} />}
      </form>
      {createError && (
        <p className="error" role="alert">
          Impossible de créer la sauvegarde : {createError}
        </p>
      )}
      {restoring && (
        <RestoreConfirm
          key={restoring.id}
          backup={restoring}
          onCancel={() => setRestoring(null)}
          onDone={(summary) => {
            setRestoring(null);
            setNotice(restoreSummaryText(summary));
            void load();
          }}
        />
      )}
      <ActionMessages notice={notice} error={actionError ?? download.error} />
      {running && (
        <p className="muted" role="status">
          Une sauvegarde est en cours ; la liste se met à jour toutes les {BACKUP_POLL_MS / 1000} s.
        </p>
      )}

      <ReadStatus
        pending={read.loading}
        loading="Chargement des sauvegardes…"
        error={read.error}
        failure="Impossible de charger les sauvegardes"
      />
      {read.data && (
        <>
          <DataOriginNote origin={read.origin} />
          {backups.length === 0 ? (
            <EmptyState>Aucune sauvegarde.</EmptyState>
          ) : (
            <DataTable
              region="Sauvegardes"
              headers={['Date', 'Statut', 'Taille', 'Moteur', 'Note', 'Par', 'Empreinte SHA-256', 'Actions']}
            >
              {backups.map((b) => {
                const status = STATUS[b.status] ?? { label: b.status, badge: '' };
                const name = b.filename || formatDateTime(b.created_at);
                const downloading = download.running?.id === b.id;
                return (
                  <tr key={b.id} data-backup-id={b.id}>
                    <td>
                      <time dateTime={b.created_at}>{formatDateTime(b.created_at)}</time>
                    </td>
                    <td>
                      <span className={`vm-badge ${status.badge}`}>{status.label}</span>
                      {b.error && <span className="vm-field-error admin-wrap"> {b.error}</span>}
                    </td>
                    <td>{formatBytes(b.size)}</td>
                    <td>{ENGINES[b.engine] ?? b.engine}</td>
                    <td className="admin-wrap">{b.note || '—'}</td>
                    <td>{b.created_by ?? '—'}</td>
                    <td>{b.sha256 ? <code title={b.sha256}>{b.sha256.slice(0, 12)}…</code> : '—'}</td>
                    <td>
                      <DeletableRowActions
                        name={name}
                        question="Supprimer cette sauvegarde (fichier compris) ?"
                        confirming={confirming === b.id}
                        busy={busy === b.id}
                        onAsk={() => setConfirming(b.id)}
                        onCancel={() => setConfirming(null)}
                        onConfirm={() =>
                          void run(b.id, async () => {
                            await deleteBackup(b.id);
                            setConfirming(null);
                            setNotice('Sauvegarde supprimée.');
                            await load();
                          })
                        }
                      >
                        {b.status === 'COMPLETED' && (
                          <>
                            {downloading ? (
                              <>
                                <ProgressBar
                                  label={`Téléchargement de ${name}`}
                                  value={download.running?.percent ?? null}
                                />
                                <button type="button" className="btn secondary small" onClick={download.cancel}>
                                  Annuler
                                </button>
                              </>
                            ) : (
                              <RowAction
                                action="download"
                                text="Télécharger"
                                name={name}
                                disabled={!!download.running}
                                onClick={() => void startDownload(b)}
                              />
                            )}
                            <RowAction action="restore" text="Restaurer" name={name} onClick={() => setRestoring(b)} />
                          </>
                        )}
                      </DeletableRowActions>
                    </td>
                  </tr>
                );
              })}
            </DataTable>
          )}
        </>
      )}
    </section>
  );
}
