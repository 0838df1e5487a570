import { useRef, useState } from 'react';
import { ApiError, type DataOrigin } from '../../lib/api-client.ts';
import { DataOriginNote } from '../../components/data-origin-note.tsx';
import { Figure, SampleScope } from '../../components/sample-scope.tsx';
import { messageOf } from '../../lib/error-message.ts';
import { ProgressBar } from '../../components/progress-bar.tsx';
import { ActionMessages, EmptyState, LoadStatus } from '../../components/list-state.tsx';
import { DataTable } from '../../components/data-table.tsx';
import { Select } from '../../components/select.tsx';
import { useForm } from '../../lib/use-form.ts';
import { useResource } from '../../lib/use-resource.ts';
import {
  cancelTask,
  fetchAvailableTasks,
  fetchTask,
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
import { dateFormat } from '../../lib/format.ts';

/**
 * While a task is PENDING or STARTED it is read again this often (ms): a task launched here on its own
 * (GET /celery/tasks/{id}/), the others through the recent tasks.
 */
export const TASK_POLL_MS = 2_000;

/** A launch and what the page has read of that run since. */
interface Launched {
  result: LaunchResult;
  origin: DataOrigin;
  /** The run as last read by its id. */
  task?: BackgroundTask;
  /** Why it could not be read (the follow-up stops on a refusal or an unknown id). */
  error?: string;
}

/** A run is followed by its id when the server gave one and it is still running (sample launches are not real). */
function followed(launched: Launched | null): string | null {
  if (!launched || launched.origin.source === 'sample' || !launched.result.task_id || launched.error) return null;
  return isRunning(launched.task?.status ?? launched.result.status) ? launched.result.task_id : null;
}

/** The launch notice: the message of the launch, then the run's own state as read by its id until it ends. */
function LaunchedNotice({ launched }: { launched: Launched }) {
  const { result, task } = launched;
  const status = task?.status ?? result.status;
  const following = followed(launched) !== null;
  return (
    <div className="notice task-launched" role="status" data-status={status}>
      <DataOriginNote origin={launched.origin} />
      <p>
        <strong>{result.message || 'Tâche lancée.'}</strong>{' '}
        <span className={`vm-badge ${taskStatusTone(status)}`}>{taskStatusLabel(status)}</span>
      </p>
      <p className="muted">
        {task?.name ?? result.task_name}
        {result.task_id && ` — identifiant ${result.task_id}`}
        {result.created_at && ` — ${formatDate(result.created_at)}`}
      </p>
      {task && <TaskProgress task={task} label={`Progression de la tâche lancée : ${task.name}`} />}
      {task && !isRunning(task.status) && <TaskDetails task={task} />}
      {following && <p className="muted">Suivi de la tâche : actualisation toutes les 2 secondes.</p>}
      {launched.error && (
        <p className="error" role="alert">
          Impossible de suivre la tâche : {launched.error}
        </p>
      )}
    </div>
  );
}

const DATE = dateFormat({ dateStyle: 'short', timeStyle: 'medium' });
const NUMBER = new Intl.NumberFormat('fr-FR');

function formatDate(iso: string | null | undefined): string {
  if (!iso) return '—';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? '—' : DATE.format(d);
}

function TaskProgress({ task, label = `Progression : ${task.name}` }: { task: BackgroundTask; label?: string }) {
  const raw = task.meta?.progress ?? (task.status === 'SUCCESS' ? 100 : 0);
  const value = Math.max(0, Math.min(100, Math.round(raw)));
  return <ProgressBar label={label} value={value} />;
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
  const form = useForm({ reason: '' });
  const send = async ({ reason }: { reason: string }) => {
    const why = reason.trim();
    const record = (outcome: Record<string, unknown>) =>
      recordUiAction('task_cancel', { task_id: task.id, task: task.full_name, reason: why, ...outcome });
    try {
      const { data } = await cancelTask(task.id, why || undefined);
      record({ result: 'cancelled' });
      onCancelled(data);
    } catch (err) {
      record({ result: 'failed', message: messageOf(err) });
      throw err;
    }
  };

  return (
    <form className="task-cancel" onSubmit={form.onSubmit(send)} aria-label={`Annuler la tâche ${task.name}`}>
      <div className="vm-field">
        <label htmlFor={`${form.id}-reason`}>Motif (facultatif)</label>
        <input {...form.control('reason')} maxLength={500} />
      </div>
      <div className="vm-actions">
        <button type="submit" className="btn danger small" disabled={form.submitting}>
          Confirmer l’annulation
        </button>
        <button type="button" className="btn secondary small" onClick={onClose}>
          Ne pas annuler
        </button>
      </div>
      <ActionMessages error={form.error} />
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
  const launchable = available.filter((t) => canHandle(perms, t.scope));
  const form = useForm({ task: '' });
  const selected = form.values.task || launchable[0]?.task_name || '';
  const description = launchable.find((t) => t.task_name === selected)?.description;

  if (launchable.length === 0) return null;

  const send = async () => {
    if (!selected) return;
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
      recordUiAction('task_launch', { task: selected, result: 'failed', message: messageOf(err) });
      throw err;
    }
  };

  return (
    <form className="card task-launch" onSubmit={form.onSubmit(send)} aria-labelledby={`${form.id}-title`}>
      <h2 id={`${form.id}-title`}>Lancer une tâche</h2>
      <div className="vm-toolbar">
        <label>
          Tâche
          <Select
            value={selected}
            options={launchable.map((t) => [t.task_name, t.name] as const)}
            onChange={(e) => form.set('task', e.target.value)}
          />
        </label>
        <button type="submit" className="btn primary" disabled={form.submitting || !selected}>
          {form.submitting ? 'Lancement…' : 'Lancer'}
        </button>
      </div>
      {description && <p className="muted">{description}</p>}
      <ActionMessages error={form.error} />
    </form>
  );
}

/**
 * Background-task manager: recent runs with live progress, scheduled tasks, launch and cancel; a task launched here
 * is followed by its own status until it ends.
 */
export default function TasksPage() {
  const perms = useTaskPermissions();
  const [launched, setLaunched] = useState<Launched | null>(null);
  const [cancelling, setCancelling] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  // The live follow-up reads only the recent runs; the schedule stays as last read.
  const recentOnly = useRef(false);
  const scheduled = useRef<ScheduledTask[]>([]);
  const tasks = useResource(
    async () => {
      if (recentOnly.current) {
        recentOnly.current = false;
        const { data, origin } = await fetchRecentTasks();
        return { data: { recent: data, scheduled: scheduled.current }, origin };
      }
      const { data, origin } = await fetchTasks();
      scheduled.current = data.scheduled_tasks;
      return { data: { recent: data.recent_tasks, scheduled: data.scheduled_tasks }, origin };
    },
    [],
    { keepPrevious: true },
  );
  const mayLaunch = perms.platform || perms.tenant;
  const available =
    useResource(
      async () => ({
        data: mayLaunch
          ? await fetchAvailableTasks().then(
              (r) => r.data,
              (): AvailableTask[] => [],
            )
          : [],
      }),
      [mayLaunch],
    ).data ?? [];
  const reload = () => void tasks.refresh();
  const refreshRecent = () => {
    recentOnly.current = true;
    return tasks.refresh();
  };

  const state = tasks.data;
  const following = followed(launched);
  // Sample data never changes: following it would only spin. The run launched here is read by its own id.
  const running =
    !!state && tasks.origin?.source !== 'sample' && state.recent.some((t) => isRunning(t.status) && t.id !== following);
  usePolling(running, TASK_POLL_MS, refreshRecent);

  /** One read of the launched run: its row follows, and its end brings the list up to date. */
  const followLaunched = async () => {
    if (!following) return;
    try {
      const { data } = await fetchTask(following);
      setLaunched((l) => (l?.result.task_id === following ? { ...l, task: data } : l));
      tasks.update((prev) => ({ ...prev, recent: prev.recent.map((t) => (t.id === data.id ? data : t)) }));
      if (!isRunning(data.status)) reload();
    } catch (err) {
      // A refusal or an unknown run will not change: the follow-up stops. An outage is tried again.
      if (err instanceof ApiError && err.status >= 400 && err.status < 500) {
        setLaunched((l) => (l?.result.task_id === following ? { ...l, error: messageOf(err) } : l));
      }
    }
  };
  usePolling(following !== null, TASK_POLL_MS, followLaunched);

  const scopeOf = (task: BackgroundTask) => available.find((a) => a.task_name === task.full_name)?.scope;

  return (
    <section className="page">
      <div className="vm-head">
        <h1>Tâches de fond</h1>
        <button type="button" className="btn secondary" onClick={reload}>
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
          reload();
        }}
      />
      {launched && <LaunchedNotice launched={launched} />}
      <ActionMessages notice={notice} />
      <LoadStatus loaded={!!state} error={tasks.error} failure="Impossible de charger les tâches" />

      {state && (
        <>
          <h2>Tâches récentes</h2>
          <DataOriginNote origin={tasks.origin} />
          <SampleScope origin={tasks.origin}>
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
            <DataTable
              region="Tâches récentes"
              headers={['Tâche', 'Statut', 'Progression', 'Terminée le', 'Résultat']}
              actions
            >
              {state.recent.map((task) => {
                const mayCancel = isRunning(task.status) && canHandle(perms, scopeOf(task));
                return (
                  <tr key={task.id} data-task-id={task.id}>
                    <th scope="row" className="vm-wrap">
                      {/* The internal name (vulnerabilities.tasks.…) is no text of the screen, which speaks French. */}
                      <span className="task-name" data-task={task.full_name}>
                        {task.name}
                      </span>
                    </th>
                    <td>
                      <span className={`vm-badge ${taskStatusTone(task.status)}`}>{taskStatusLabel(task.status)}</span>
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
                            tasks.update((prev) => ({
                              ...prev,
                              recent: prev.recent.map((t) => (t.id === task.id ? updated : t)),
                            }));
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
            </DataTable>
          )}

          <h2>Tâches planifiées</h2>
          {state.scheduled.length === 0 ? (
            <EmptyState>Aucune tâche planifiée.</EmptyState>
          ) : (
            <DataTable region="Tâches planifiées" headers={['Nom', 'Planification']}>
              {state.scheduled.map((s) => {
                const when = scheduleLabel(s.schedule);
                return (
                  <tr key={s.id}>
                    <th scope="row" data-task={s.task}>
                      {s.name}
                    </th>
                    <td>
                      {when.label}
                      {when.cron && <span className="muted"> (cron {when.cron}, UTC)</span>}
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
