import { useRef, useState } from 'react';
import type { DataOrigin } from '../../lib/api-client.ts';
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

/** While a task is PENDING or STARTED the recent tasks are read again this often (ms). */
export const TASK_POLL_MS = 2_000;

const DATE = dateFormat({ dateStyle: 'short', timeStyle: 'medium' });
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

/** Background-task manager: recent runs with live progress, scheduled tasks, launch and cancel. */
export default function TasksPage() {
  const perms = useTaskPermissions();
  const [launched, setLaunched] = useState<{ result: LaunchResult; origin: DataOrigin } | null>(null);
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
  // Sample data never changes: following it would only spin.
  const running = !!state && tasks.origin?.source !== 'sample' && state.recent.some((t) => isRunning(t.status));
  usePolling(running, TASK_POLL_MS, refreshRecent);

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
