import { useCallback, useEffect, useId, useRef, useState } from 'react';
import { usePolling } from '../../lib/use-polling.ts';
import { DownloadError, streamDownload } from '../../lib/download.ts';
import { DataOriginNote } from '../../components/data-origin-note.tsx';
import { DeletableRowActions } from '../../components/confirm-delete.tsx';
import { ActionMessages, EmptyState } from '../../components/list-state.tsx';
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
  type AdminRead,
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
  const id = useId();
  const [typed, setTyped] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => input.current?.focus(), []);
  const ok = confirmsRestore(typed);

  async function confirm() {
    setBusy(true);
    setError(null);
    try {
      onDone(await restoreBackup(backup.id, typed.trim()));
    } catch (err) {
      setError(messageOf(err));
    } finally {
      setBusy(false);
    }
  }

  return (
    <div className="card admin-danger" role="group" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>Restaurer la sauvegarde du {formatDateTime(backup.created_at)}</h2>
      <p>
        <strong>Toutes les données actuelles seront remplacées</strong> par celles de la sauvegarde : organisations,
        comptes, projets, vulnérabilités, documents, journal d’audit. Les sessions ouvertes depuis devront se
        reconnecter. Pour confirmer, saisissez <strong>{RESTORE_CONFIRMATION}</strong>.
      </p>
      <form
        className="admin-inline-form"
        onSubmit={(e) => {
          e.preventDefault();
          if (ok && !busy) void confirm();
        }}
      >
        <label htmlFor={`${id}-confirm`}>Confirmation</label>
        <input
          id={`${id}-confirm`}
          ref={input}
          value={typed}
          autoComplete="off"
          spellCheck={false}
          disabled={busy}
          onChange={(e) => setTyped(e.target.value)}
        />
        <button type="submit" className="btn danger" disabled={!ok || busy}>
          {busy ? 'Restauration en cours…' : 'Restaurer'}
        </button>
        <button type="button" className="btn secondary" disabled={busy} onClick={onCancel}>
          Annuler
        </button>
      </form>
      {busy && <ProgressBar label="Restauration en cours" value={null} showValue={false} />}
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
    </div>
  );
}

/** A download of one archive, streamed with its progress (the size is known). */
function useDownload() {
  const [running, setRunning] = useState<{ id: string; percent: number | null } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const controller = useRef<AbortController | null>(null);
  useEffect(() => () => controller.current?.abort(), []);

  const start = (backup: Backup) => {
    controller.current?.abort();
    const ac = new AbortController();
    controller.current = ac;
    setError(null);
    setRunning({ id: backup.id, percent: backup.size ? 0 : null });
    streamDownload({
      path: backupDownloadPath(backup.id),
      filename: backup.filename,
      mimeType: 'application/gzip',
      signal: ac.signal,
      timeoutMs: 60_000,
      errorMessage: `Impossible de télécharger « ${backup.filename} ».`,
      onProgress: ({ bytes }) =>
        setRunning({
          id: backup.id,
          percent: backup.size ? Math.min(100, Math.round((bytes / backup.size) * 100)) : null,
        }),
    }).then(
      () => controller.current === ac && setRunning(null),
      (err: unknown) => {
        if (controller.current !== ac) return;
        setRunning(null);
        if (!(err instanceof DownloadError && err.aborted))
          setError(err instanceof Error ? err.message : messageOf(err));
      },
    );
  };
  return { running, error, start, cancel: () => controller.current?.abort() };
}

/** Sauvegardes: list, create (followed by polling), restore (typed confirmation), delete, download. */
export default function BackupsPage() {
  const [read, setRead] = useState<AdminRead<Backup[]> | null>(null);
  const [note, setNote] = useState('');
  const [creating, setCreating] = useState(false);
  const [restoring, setRestoring] = useState<Backup | null>(null);
  const [confirming, setConfirming] = useState<string | null>(null);
  const { busy, notice, setNotice, actionError, run } = useRowActions<string>();
  const [createError, setCreateError] = useState<string | null>(null);
  const download = useDownload();
  const watched = useRef(new Set<string>());

  const load = useCallback(
    () =>
      fetchBackups().then((answer) => {
        setRead(answer);
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
      }),
    [setNotice],
  );

  useEffect(() => {
    void load();
  }, [load]);
  const backups = read?.data ?? [];
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

      {!read && <p role="status">Chargement des sauvegardes…</p>}
      {read?.error && (
        <p className="error" role="alert">
          Impossible de charger les sauvegardes : {read.error}
        </p>
      )}
      {read && (
        <>
          <DataOriginNote origin={read.origin} />
          {backups.length === 0 ? (
            <EmptyState>Aucune sauvegarde.</EmptyState>
          ) : (
            <div className="table-wrap" role="region" tabIndex={0} aria-label="Sauvegardes">
              <table className="table">
                <thead>
                  <tr>
                    <th scope="col">Date</th>
                    <th scope="col">Statut</th>
                    <th scope="col">Taille</th>
                    <th scope="col">Moteur</th>
                    <th scope="col">Note</th>
                    <th scope="col">Par</th>
                    <th scope="col">Empreinte SHA-256</th>
                    <th scope="col">Actions</th>
                  </tr>
                </thead>
                <tbody>
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
                                    onClick={() => download.start(b)}
                                  />
                                )}
                                <RowAction
                                  action="restore"
                                  text="Restaurer"
                                  name={name}
                                  onClick={() => setRestoring(b)}
                                />
                              </>
                            )}
                          </DeletableRowActions>
                        </td>
                      </tr>
                    );
                  })}
                </tbody>
              </table>
            </div>
          )}
        </>
      )}
    </section>
  );
}
