import { useId, useState, type FormEvent } from 'react';
import { DeletableRowActions } from '../../components/confirm-delete.tsx';
import { FilterSelect } from '../../components/filter-select.tsx';
import { errorAria, FormActions, FormError, FormField } from '../../components/form-field.tsx';
import { ActionMessages } from '../../components/list-state.tsx';
import { ProgressBar } from '../../components/progress-bar.tsx';
import { currentTenantId } from '../auth/session.ts';
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
import { Empty, PriorityBadge, ProgressEditor, TabBody, useProjectActions, type TabProps } from './project-widgets.tsx';
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
        {canEdit && !creating && (
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
                            />
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

function TaskForm({
  projectId,
  onSaved,
  onClose,
}: {
  projectId: Id;
  onSaved: (result: Written<ProjectTask>) => void;
  onClose: () => void;
}) {
  const id = useId();
  const [title, setTitle] = useState('');
  const [description, setDescription] = useState('');
  const [priority, setPriority] = useState<ProjectPriority>('MEDIUM');
  const [due, setDue] = useState('');
  const [titleError, setTitleError] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [sending, setSending] = useState(false);

  async function submit(e: FormEvent) {
    e.preventDefault();
    const t = title.trim();
    const problem = titleProblem(t);
    setTitleError(problem);
    setError(null);
    if (problem) return;
    setSending(true);
    try {
      onSaved(
        await createTask({
          project: projectId,
          title: t,
          description: description.trim(),
          priority,
          due_date: due || null,
        }),
      );
    } catch (err) {
      setError(err instanceof Error ? err.message : 'Erreur inattendue.');
    } finally {
      setSending(false);
    }
  }

  return (
    <form className="card pj-form" onSubmit={(e) => void submit(e)} noValidate aria-labelledby={`${id}-h`}>
      <h3 id={`${id}-h`}>Nouvelle tâche</h3>
      <div className="vm-form">
        <FormField id={`${id}-t`} label="Titre *" error={titleError} wide>
          <input
            id={`${id}-t`}
            value={title}
            onChange={(e) => setTitle(e.target.value)}
            {...errorAria(`${id}-t-error`, titleError)}
          />
        </FormField>
        <FormField id={`${id}-p`} label="Priorité">
          <select id={`${id}-p`} value={priority} onChange={(e) => setPriority(e.target.value as ProjectPriority)}>
            {PRIORITIES.map((p) => (
              <option key={p} value={p}>
                {PRIORITY_LABELS[p]}
              </option>
            ))}
          </select>
        </FormField>
        <FormField id={`${id}-d`} label="Échéance">
          <input id={`${id}-d`} type="date" value={due} onChange={(e) => setDue(e.target.value)} />
        </FormField>
        <FormField id={`${id}-desc`} label="Description" wide>
          <textarea id={`${id}-desc`} value={description} onChange={(e) => setDescription(e.target.value)} />
        </FormField>
        <FormError error={error} />
        <FormActions
          submitLabel={sending ? 'Enregistrement…' : 'Créer la tâche'}
          disabled={sending}
          closeLabel="Annuler"
          onClose={onClose}
        />
      </div>
    </form>
  );
}
