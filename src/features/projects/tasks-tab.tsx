import { useId, useState, type FormEvent } from 'react';
import { DeletableRowActions } from '../../components/confirm-delete.tsx';
import { FilterSelect } from '../../components/filter-select.tsx';
import { errorAria, FormActions, FormError, FormField } from '../../components/form-field.tsx';
import { ActionMessages } from '../../components/list-state.tsx';
import { ProgressBar } from '../../components/progress-bar.tsx';
import { RowAction } from '../../components/row-action.tsx';
import { currentTenantId } from '../../lib/auth/session.ts';
import {
  createTask,
  deleteTask,
  listTasks,
  updateTask,
  updateTaskProgress,
  type Id,
  type ProjectPriority,
  type ProjectTask,
  type WorkStatus,
  type Written,
} from './projects-api.ts';
import {
  formatDay,
  label,
  PRIORITIES,
  PRIORITY_LABELS,
  titleProblem,
  WORK_STATUSES,
  WORK_STATUS_LABELS,
  WORK_STATUS_TONE,
} from './project-rules.ts';
import {
  changedFields,
  Empty,
  MemberSelect,
  NO_CHANGE,
  PriorityBadge,
  ProgressEditor,
  serverFieldErrors,
  TabBody,
  useProjectActions,
  type TabProps,
} from './project-widgets.tsx';
import { useLoad } from './use-load.ts';

/** Tâches: the project's tasks with status and progress; editors create, update and delete them. */
export function TasksTab({ project, canEdit, onChanged }: TabProps) {
  const [status, setStatus] = useState('');
  const { state, reload, update } = useLoad(
    () => listTasks({ project: project.id, status }),
    JSON.stringify([project.id, status, currentTenantId() ?? '']),
  );
  const { busy, notice, setNotice, actionError, act } = useProjectActions();
  const [creating, setCreating] = useState(false);
  const [editing, setEditing] = useState<ProjectTask | null>(null);
  const [confirming, setConfirming] = useState<Id | null>(null);

  const replace = (task: ProjectTask | null) => {
    if (!task) return;
    update((r) => ({
      ...r,
      data: { ...r.data, results: r.data.results.map((t) => (String(t.id) === String(task.id) ? task : t)) },
    }));
  };
  const changed = () => {
    reload();
    onChanged();
  };

  return (
    <div className="pj-tab">
      <div className="vm-head">
        <h3>Tâches</h3>
        {canEdit && !creating && !editing && (
          <button type="button" className="btn primary" onClick={() => setCreating(true)}>
            Nouvelle tâche
          </button>
        )}
      </div>
      {canEdit && creating && (
        <TaskForm
          projectId={project.id}
          onClose={() => setCreating(false)}
          onSaved={(saved) => {
            setCreating(false);
            setNotice(saved.queued ? saved.message : `Tâche « ${saved.data.title} » créée.`);
            changed();
          }}
        />
      )}
      {canEdit && editing && (
        <TaskForm
          key={editing.id}
          projectId={project.id}
          task={editing}
          onClose={() => setEditing(null)}
          onSaved={(saved) => {
            setEditing(null);
            setNotice(saved.queued ? saved.message : `Tâche « ${saved.data.title} » enregistrée.`);
            changed();
          }}
        />
      )}
      <div className="vm-toolbar" role="group" aria-label="Filtrer les tâches">
        <FilterSelect
          label="Statut"
          value={status}
          allLabel="Tous"
          options={WORK_STATUSES.map((s) => [s, WORK_STATUS_LABELS[s]] as const)}
          onChange={setStatus}
        />
      </div>
      <ActionMessages notice={notice} error={actionError} />
      <TabBody state={state} loading="Chargement des tâches…">
        {(result) =>
          result.data.results.length === 0 ? (
            <Empty>{status ? 'Aucune tâche ne correspond à ce filtre.' : 'Aucune tâche dans ce projet.'}</Empty>
          ) : (
            <div className="table-wrap">
              <table className="table">
                <caption className="visually-hidden">Tâches du projet</caption>
                <thead>
                  <tr>
                    <th scope="col">Tâche</th>
                    <th scope="col">Statut</th>
                    <th scope="col">Priorité</th>
                    <th scope="col">Échéance</th>
                    <th scope="col">Progression</th>
                    {canEdit && <th scope="col">Actions</th>}
                  </tr>
                </thead>
                <tbody>
                  {result.data.results.map((t) => (
                    <tr key={t.id} data-task-id={t.id}>
                      <th scope="row" className="pj-name">
                        {t.title}
                        {t.description && <span className="muted pj-desc">{t.description}</span>}
                      </th>
                      <td>
                        {canEdit ? (
                          <select
                            aria-label={`Statut de ${t.title}`}
                            value={t.status}
                            disabled={busy === `status-${t.id}`}
                            onChange={(e) => {
                              const next = e.target.value as WorkStatus;
                              void act(
                                `status-${t.id}`,
                                () => updateTask(t.id, { status: next }),
                                `Tâche « ${t.title} » : ${WORK_STATUS_LABELS[next]}.`,
                                (saved) => {
                                  replace(saved);
                                  onChanged();
                                },
                              );
                            }}
                          >
                            {WORK_STATUSES.map((s) => (
                              <option key={s} value={s}>
                                {WORK_STATUS_LABELS[s]}
                              </option>
                            ))}
                          </select>
                        ) : (
                          <span className={`vm-badge ${label(WORK_STATUS_TONE, t.status)}`}>
                            {label(WORK_STATUS_LABELS, t.status)}
                          </span>
                        )}
                      </td>
                      <td>{t.priority ? <PriorityBadge priority={t.priority} /> : '—'}</td>
                      <td>
                        {formatDay(t.due_date)}
                        {t.is_overdue && <span className="pj-late"> En retard</span>}
                      </td>
                      <td>
                        <ProgressBar label={`Progression de ${t.title}`} value={t.progress ?? 0} />
                      </td>
                      {canEdit && (
                        <td>
                          <div className="vm-actions">
                            <ProgressEditor
                              name={t.title}
                              value={t.progress ?? 0}
                              disabled={busy === `progress-${t.id}`}
                              onSave={(progress) =>
                                act(
                                  `progress-${t.id}`,
                                  () => updateTaskProgress(t.id, progress),
                                  `Progression de « ${t.title} » : ${progress} %.`,
                                  (saved) => {
                                    replace(saved);
                                    onChanged();
                                  },
                                )
                              }
                            />
                            <DeletableRowActions
                              name={t.title}
                              question="Supprimer cette tâche ?"
                              confirming={confirming === t.id}
                              busy={busy === `delete-${t.id}`}
                              onAsk={() => setConfirming(t.id)}
                              onConfirm={() =>
                                void act(
                                  `delete-${t.id}`,
                                  () => deleteTask(t.id),
                                  `Tâche « ${t.title} » supprimée.`,
                                  () => {
                                    setConfirming(null);
                                    changed();
                                  },
                                )
                              }
                              onCancel={() => setConfirming(null)}
                            >
                              <RowAction
                                action="edit"
                                text="Modifier"
                                name={t.title}
                                onClick={() => {
                                  setCreating(false);
                                  setEditing(t);
                                }}
                              />
                            </DeletableRowActions>
                          </div>
                        </td>
                      )}
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )
        }
      </TabBody>
    </div>
  );
}

const TASK_FIELDS = ['title', 'description', 'status', 'priority', 'assignee', 'due_date'] as const;
type TaskErrors = Partial<Record<(typeof TASK_FIELDS)[number], string>>;

/**
 * Create (no `task`) or edit a task. Editing also changes the status and the assignee, and sends (PATCH) only the
 * changed fields.
 */
function TaskForm({
  projectId,
  task,
  onSaved,
  onClose,
}: {
  projectId: Id;
  task?: ProjectTask;
  onSaved: (result: Written<ProjectTask>) => void;
  onClose: () => void;
}) {
  const id = useId();
  const [title, setTitle] = useState(task?.title ?? '');
  const [description, setDescription] = useState(task?.description ?? '');
  const [status, setStatus] = useState<WorkStatus>(task?.status ?? 'TODO');
  const [priority, setPriority] = useState<ProjectPriority>(task?.priority ?? 'MEDIUM');
  const [assignee, setAssignee] = useState<Id | null>(task?.assignee ?? null);
  const [due, setDue] = useState(task?.due_date ?? '');
  const [errors, setErrors] = useState<TaskErrors>({});
  const [error, setError] = useState<string | null>(null);
  const [info, setInfo] = useState<string | null>(null);
  const [sending, setSending] = useState(false);

  async function submit(e: FormEvent) {
    e.preventDefault();
    const t = title.trim();
    const problem = titleProblem(t);
    setErrors(problem ? { title: problem } : {});
    setError(null);
    setInfo(null);
    if (problem) return;
    const body = task
      ? changedFields(task, {
          title: t,
          description: description.trim(),
          status,
          priority,
          assignee,
          due_date: due || null,
        })
      : null;
    if (body && Object.keys(body).length === 0) {
      setInfo(NO_CHANGE);
      return;
    }
    setSending(true);
    try {
      onSaved(
        task && body
          ? await updateTask(task.id, body)
          : await createTask({
              project: projectId,
              title: t,
              description: description.trim(),
              priority,
              due_date: due || null,
              ...(assignee !== null ? { assignee } : {}),
            }),
      );
    } catch (err) {
      setErrors(serverFieldErrors(err, TASK_FIELDS));
      setError(err instanceof Error ? err.message : 'Erreur inattendue.');
    } finally {
      setSending(false);
    }
  }

  const aria = (key: keyof TaskErrors, control: string) => errorAria(`${id}-${control}-error`, errors[key]);

  return (
    <form className="card pj-form" onSubmit={(e) => void submit(e)} noValidate aria-labelledby={`${id}-h`}>
      <h3 id={`${id}-h`}>{task ? `Modifier la tâche « ${task.title} »` : 'Nouvelle tâche'}</h3>
      <div className="vm-form">
        <FormField id={`${id}-t`} label="Titre *" error={errors.title} wide>
          <input id={`${id}-t`} value={title} onChange={(e) => setTitle(e.target.value)} {...aria('title', 't')} />
        </FormField>
        {task && (
          <FormField id={`${id}-s`} label="Statut" error={errors.status}>
            <select
              id={`${id}-s`}
              value={status}
              onChange={(e) => setStatus(e.target.value as WorkStatus)}
              {...aria('status', 's')}
            >
              {WORK_STATUSES.map((s) => (
                <option key={s} value={s}>
                  {WORK_STATUS_LABELS[s]}
                </option>
              ))}
            </select>
          </FormField>
        )}
        <FormField id={`${id}-p`} label="Priorité" error={errors.priority}>
          <select
            id={`${id}-p`}
            value={priority}
            onChange={(e) => setPriority(e.target.value as ProjectPriority)}
            {...aria('priority', 'p')}
          >
            {PRIORITIES.map((p) => (
              <option key={p} value={p}>
                {PRIORITY_LABELS[p]}
              </option>
            ))}
          </select>
        </FormField>
        <FormField id={`${id}-a`} label="Attribuée à" error={errors.assignee}>
          <MemberSelect
            id={`${id}-a`}
            projectId={projectId}
            value={assignee}
            onChange={setAssignee}
            invalid={!!errors.assignee}
            describedBy={errors.assignee ? `${id}-a-error` : undefined}
          />
        </FormField>
        <FormField id={`${id}-d`} label="Échéance" error={errors.due_date}>
          <input
            id={`${id}-d`}
            type="date"
            value={due}
            onChange={(e) => setDue(e.target.value)}
            {...aria('due_date', 'd')}
          />
        </FormField>
        <FormField id={`${id}-desc`} label="Description" error={errors.description} wide>
          <textarea
            id={`${id}-desc`}
            value={description}
            onChange={(e) => setDescription(e.target.value)}
            {...aria('description', 'desc')}
          />
        </FormField>
        {info && (
          <p className="muted vm-wide" role="status">
            {info}
          </p>
        )}
        <FormError error={error} />
        <FormActions
          submitLabel={sending ? 'Enregistrement…' : task ? 'Enregistrer la tâche' : 'Créer la tâche'}
          disabled={sending}
          closeLabel="Annuler"
          onClose={onClose}
        />
      </div>
    </form>
  );
}
