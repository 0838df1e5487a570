import { useCallback, useEffect, useId, useRef, useState, type FormEvent } from 'react';
import type { DataOrigin } from '../../lib/api-client.ts';
import { DataOriginNote } from '../../components/data-origin-note.tsx';
import { Figure, SampleScope } from '../../components/sample-scope.tsx';
import { messageOf } from '../../lib/error-message.ts';
import { ProgressBar } from '../../components/progress-bar.tsx';
import { ActionMessages, EmptyState, LoadStatus } from '../../components/list-state.tsx';
import {
  cancelTask,
  fetchAvailableTasks,
  fetchRecentTasks,
  fetchTasks,
  launchTask,
  type AvailableTask,
  type BackgroundTask,
  type LaunchResult,
  type ScheduledTask,
} from './tasks-api.ts';
import { formatDuration, isRunning, scheduleLabel, taskStatusLabel, taskStatusTone } from './task-rules.ts';
import { usePolling } from '../../lib/use-polling.ts';
import { recordUiAction } from '../../lib/audit-log.ts';
import { useTaskPermissions, type TaskPermissions } from './can-run.ts';
import './tasks.css';

/** While a task is PENDING or STARTED the recent tasks are read again this often (ms). */
export const TASK_POLL_MS = 2_000;

const DATE = new Intl.DateTimeFormat('fr-FR', { dateStyle: 'short', timeStyle: 'medium' });
const NUMBER = new Intl.NumberFormat('fr-FR');

function formatDate(iso: string | null | undefined): string {
  if (!iso) return '—';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? '—' : DATE.format(d);
}

function TaskProgress({ task }: { task: BackgroundTask }) {
  const raw = task.meta?.progress ?? (task.status === 'SUCCESS' ? 100 : 0);
  const value = Math.max(0, Math.min(100, Math.round(raw)));
  return <ProgressBar label={`Progression : ${task.name}`} value={value} />;
}

function TaskDetails({ task }: { task: BackgroundTask }) {
  const m = task.meta ?? {};
  const facts: string[] = [];
  const duration = formatDuration(m.duration);
  if (duration) facts.push(`Durée : ${duration}`);
  if (typeof m.new_cves === 'number') facts.push(`Nouvelles CVE : ${NUMBER.format(m.new_cves)}`);
  if (typeof m.updated_cves === 'number') facts.push(`CVE mises à jour : ${NUMBER.format(m.updated_cves)}`);
  if (typeof m.attempts === 'number' && m.attempts > 0) facts.push(`Tentatives : ${NUMBER.format(m.attempts)}`);
  if (m.start_time) facts.push(`Début : ${formatDate(m.start_time)}`);
  return (
    <div className="task-details">
      {task.result && <span>{task.result}</span>}
      {facts.length > 0 && <span className="muted">{facts.join(' · ')}</span>}
      {m.error && <span className="error">Erreur : {m.error}</span>}
      {task.status === 'REVOKED' && (m.revoked_by || m.reason) && (
        <span className="muted">
          {m.revoked_by ? `Annulée par ${m.revoked_by}` : 'Annulée'}
          {m.reason ? ` — ${m.reason}` : ''}
        </span>
      )}
      {!task.result && facts.length === 0 && !m.error && <span className="muted">—</span>}
    </div>
  );
}

function CancelForm({
  task,
  onCancelled,
  onClose,
}: {
  task: BackgroundTask;
  onCancelled: (task: BackgroundTask) => void;
  onClose: () => void;
}) {
  const id = useId();
  const [reason, setReason] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [sending, setSending] = useState(false);

  async function submit(e: FormEvent) {
    e.preventDefault();
    setSending(true);
    setError(null);
    const why = reason.trim();
    try {
      const { data } = await cancelTask(task.id, why || undefined);
      recordUiAction('task_cancel', { task_id: task.id, task: task.full_name, reason: why, result: 'cancelled' });
      onCancelled(data);
    } catch (err) {
      const message = messageOf(err);
      recordUiAction('task_cancel', { task_id: task.id, task: task.full_name, reason: why, result: 'failed', message });
      setError(message);
      setSending(false);
    }
  }

  return (
    <form className="task-cancel" onSubmit={(e) => void submit(e)} aria-label={`Annuler la tâche ${task.name}`}>
      <div className="vm-field">
        <label htmlFor={`${id}-reason`}>Motif (facultatif)</label>
        <input id={`${id}-reason`} value={reason} maxLength={500} onChange={(e) => setReason(e.target.value)} />
      </div>
      <div className="vm-actions">
        <button type="submit" className="btn danger small" disabled={sending}>
          Confirmer l’annulation
        </button>
        <button type="button" className="btn secondary small" onClick={onClose}>
          Ne pas annuler
        </button>
      </div>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
    </form>
  );
}

function canHandle(perms: TaskPermissions, scope: string | undefined): boolean {
  return scope === 'tenant' ? perms.tenant : perms.platform;
}

function LaunchPanel({
  available,
  perms,
  onLaunched,
}: {
  available: AvailableTask[];
  perms: TaskPermissions;
  onLaunched: (result: LaunchResult, origin: DataOrigin) => void;
}) {
  const id = useId();
  const launchable = available.filter((t) => canHandle(perms, t.scope));
  const [choice, setChoice] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [sending, setSending] = useState(false);
  const selected = choice || launchable[0]?.task_name || '';
  const description = launchable.find((t) => t.task_name === selected)?.description;

  if (launchable.length === 0) return null;

  async function submit(e: FormEvent) {
    e.preventDefault();
    if (!selected) return;
    setSending(true);
    setError(null);
    try {
      const { data, origin } = await launchTask(selected);
      recordUiAction('task_launch', {
        task: selected,
        result: 'launched',
        task_id: data.task_id,
        status: data.status,
        origin: origin.source,
      });
      onLaunched(data, origin);
    } catch (err) {
      const message = messageOf(err);
      recordUiAction('task_launch', { task: selected, result: 'failed', message });
      setError(message);
    } finally {
      setSending(false);
    }
  }

  return (
    <form className="card task-launch" onSubmit={(e) => void submit(e)} aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>Lancer une tâche</h2>
      <div className="vm-toolbar">
        <label>
          Tâche
          <select value={selected} onChange={(e) => setChoice(e.target.value)}>
            {launchable.map((t) => (
              <option key={t.task_name} value={t.task_name}>
                {t.name}
              </option>
            ))}
          </select>
        </label>
        <button type="submit" className="btn primary" disabled={sending || !selected}>
          {sending ? 'Lancement…' : 'Lancer'}
        </button>
      </div>
      {description && <p className="muted">{description}</p>}
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
    </form>
  );
}

interface ListState {
  recent: BackgroundTask[];
  scheduled: ScheduledTask[];
  origin: DataOrigin;
}

/** Background-task manager: recent runs with live progress, scheduled tasks, launch and cancel. */
export default function TasksPage() {
  const perms = useTaskPermissions();
  const [state, setState] = useState<ListState | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [available, setAvailable] = useState<AvailableTask[]>([]);
  const [launched, setLaunched] = useState<{ result: LaunchResult; origin: DataOrigin } | null>(null);
  const [cancelling, setCancelling] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [reloadKey, setReloadKey] = useState(0);
  const seq = useRef(0);

  useEffect(() => {
    const mine = ++seq.current;
    fetchTasks().then(
      ({ data, origin }) => {
        if (mine !== seq.current) return;
        setState({ recent: data.recent_tasks, scheduled: data.scheduled_tasks, origin });
        setLoadError(null);
      },
      (err: unknown) => mine === seq.current && setLoadError(messageOf(err)),
    );
  }, [reloadKey]);

  useEffect(() => {
    if (!perms.platform && !perms.tenant) return;
    let live = true;
    fetchAvailableTasks().then(
      ({ data }) => live && setAvailable(data),
      () => live && setAvailable([]),
    );
    return () => {
      live = false;
    };
  }, [perms.platform, perms.tenant]);

  const refreshRecent = useCallback(() => {
    const mine = ++seq.current;
    return fetchRecentTasks().then(
      ({ data, origin }) => {
        if (mine !== seq.current) return;
        setState((prev) => ({ recent: data, scheduled: prev?.scheduled ?? [], origin }));
        setLoadError(null);
      },
      (err: unknown) => mine === seq.current && setLoadError(messageOf(err)),
    );
  }, []);

  // Sample data never changes: following it would only spin.
  const running = !!state && state.origin.source !== 'sample' && state.recent.some((t) => isRunning(t.status));
  usePolling(running, TASK_POLL_MS, refreshRecent);

  const scopeOf = (task: BackgroundTask) => available.find((a) => a.task_name === task.full_name)?.scope;

  return (
    <section className="page">
      <div className="vm-head">
        <h1>Tâches de fond</h1>
        <button type="button" className="btn secondary" onClick={() => setReloadKey((k) => k + 1)}>
          Actualiser
        </button>
      </div>
      <p className="muted">Mises à jour des CVE, indexation et traitement des rapports de scan.</p>

      <LaunchPanel
        available={available}
        perms={perms}
        onLaunched={(result, origin) => {
          setLaunched({ result, origin });
          setNotice(null);
          setReloadKey((k) => k + 1);
        }}
      />
      {launched && (
        <div className="notice task-launched" role="status">
          <DataOriginNote origin={launched.origin} />
          <p>
            <strong>{launched.result.message || 'Tâche lancée.'}</strong>{' '}
            <span className={`vm-badge ${taskStatusTone(launched.result.status)}`}>
              {taskStatusLabel(launched.result.status)}
            </span>
          </p>
          <p className="muted">
            {launched.result.task_name}
            {launched.result.task_id && ` — identifiant ${launched.result.task_id}`}
            {launched.result.created_at && ` — ${formatDate(launched.result.created_at)}`}
          </p>
        </div>
      )}
      <ActionMessages notice={notice} />
      <LoadStatus loaded={!!state} error={loadError} failure="Impossible de charger les tâches" />

      {state && (
        <>
          <h2>Tâches récentes</h2>
          <DataOriginNote origin={state.origin} />
          <SampleScope origin={state.origin}>
            <p className="muted">
              <Figure>{NUMBER.format(state.recent.length)}</Figure>{' '}
              {state.recent.length === 1 ? 'tâche récente' : 'tâches récentes'}
            </p>
          </SampleScope>
          <p className="muted" aria-live="polite">
            {running ? 'Suivi en direct : actualisation toutes les 2 secondes.' : null}
          </p>
          {state.recent.length === 0 ? (
            <EmptyState>Aucune tâche récente.</EmptyState>
          ) : (
            <div className="table-wrap">
              <table className="table">
                <thead>
                  <tr>
                    <th scope="col">Tâche</th>
                    <th scope="col">Statut</th>
                    <th scope="col">Progression</th>
                    <th scope="col">Terminée le</th>
                    <th scope="col">Résultat</th>
                    <th scope="col">Actions</th>
                  </tr>
                </thead>
                <tbody>
                  {state.recent.map((task) => {
                    const mayCancel = isRunning(task.status) && canHandle(perms, scopeOf(task));
                    return (
                      <tr key={task.id} data-task-id={task.id}>
                        <th scope="row" className="vm-wrap">
                          <span className="task-name">{task.name}</span>
                          <code className="muted">{task.full_name}</code>
                        </th>
                        <td>
                          <span className={`vm-badge ${taskStatusTone(task.status)}`}>
                            {taskStatusLabel(task.status)}
                          </span>
                        </td>
                        <td>
                          <TaskProgress task={task} />
                        </td>
                        <td>{formatDate(task.date_done)}</td>
                        <td className="vm-wrap">
                          <TaskDetails task={task} />
                        </td>
                        <td className="vm-wrap">
                          {mayCancel && cancelling === task.id && (
                            <CancelForm
                              task={task}
                              onClose={() => setCancelling(null)}
                              onCancelled={(updated) => {
                                setCancelling(null);
                                setNotice(`Tâche « ${task.name} » annulée.`);
                                setState((prev) =>
                                  prev
                                    ? { ...prev, recent: prev.recent.map((t) => (t.id === task.id ? updated : t)) }
                                    : prev,
                                );
                              }}
                            />
                          )}
                          {mayCancel && cancelling !== task.id && (
                            <button
                              type="button"
                              className="btn secondary small"
                              aria-label={`Annuler la tâche ${task.name}`}
                              onClick={() => setCancelling(task.id)}
                            >
                              Annuler
                            </button>
                          )}
                          {!mayCancel && <span className="muted">—</span>}
                        </td>
                      </tr>
                    );
                  })}
                </tbody>
              </table>
            </div>
          )}

          <h2>Tâches planifiées</h2>
          {state.scheduled.length === 0 ? (
            <EmptyState>Aucune tâche planifiée.</EmptyState>
          ) : (
            <div className="table-wrap">
              <table className="table">
                <thead>
                  <tr>
                    <th scope="col">Nom</th>
                    <th scope="col">Tâche</th>
                    <th scope="col">Planification</th>
                  </tr>
                </thead>
                <tbody>
                  {state.scheduled.map((s) => {
                    const when = scheduleLabel(s.schedule);
                    return (
                      <tr key={s.id}>
                        <th scope="row">{s.name}</th>
                        <td>
                          <code>{s.task}</code>
                        </td>
                        <td>
                          {when.label}
                          {when.cron && <span className="muted"> (cron {when.cron}, UTC)</span>}
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
