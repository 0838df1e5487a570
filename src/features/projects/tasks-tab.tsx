import { useState } from 'react';
import { DataTable } from '../../components/data-table.tsx';
import { FilterSelect } from '../../components/filter-select.tsx';
import { FormCard, SelectField, TextField } from '../../components/form-field.tsx';
import { ProgressBar } from '../../components/progress-bar.tsx';
import { RowAction } from '../../components/row-action.tsx';
import { optionsOf, Select } from '../../components/select.tsx';
import { useForm } from '../../lib/use-form.ts';
import { createTask, deleteTask, listTasks, updateTask, updateTaskProgress } from './projects-api.ts';
import type { Written } from './project-http.ts';
import type { Id, ProjectTask, WorkStatus } from './project-types.ts';
import {
  formatDay,
  label,
  PRIORITIES,
  PRIORITY_LABELS,
  titleErrors,
  WORK_STATUSES,
  WORK_STATUS_LABELS,
  WORK_STATUS_TONE,
} from './project-rules.ts';
import { MemberField, PriorityBadge, ProgressEditor } from './project-widgets.tsx';
import { RemovableRow, saveChanges, TabBody, TabHead, TabMessages, useTabList } from './project-tab.tsx';
import type { Removal, TabList, TabProps } from './project-tab.tsx';

/** Tâches: the project's tasks with status and progress; editors create, update and delete them. */
export function TasksTab(props: TabProps) {
  const { project, canEdit } = props;
  const [status, setStatus] = useState('');
  const tab = useTabList(props, () => listTasks({ project: project.id, status }), [status]);
  const [creating, setCreating] = useState(false);
  const [editing, setEditing] = useState<ProjectTask | null>(null);

  return (
    <div className="pj-tab">
      <TabHead
        title="Tâches"
        action={canEdit && !creating && !editing && 'Nouvelle tâche'}
        onAction={() => setCreating(true)}
      />
      {canEdit && creating && (
        <TaskForm
          projectId={project.id}
          onClose={() => setCreating(false)}
          onSaved={(saved) => {
            setCreating(false);
            tab.setNotice(saved.queued ? saved.message : `Tâche « ${saved.data.title} » créée.`);
            tab.changed();
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
            tab.setNotice(saved.queued ? saved.message : `Tâche « ${saved.data.title} » enregistrée.`);
            tab.changed();
          }}
        />
      )}
      <div className="vm-toolbar" role="group" aria-label="Filtrer les tâches">
        <FilterSelect
          label="Statut"
          value={status}
          allLabel="Tous"
          options={optionsOf(WORK_STATUS_LABELS, WORK_STATUSES)}
          onChange={setStatus}
        />
      </div>
      <TabMessages tab={tab} />
      <TabBody
        tab={tab}
        loading="Chargement des tâches…"
        empty={status ? 'Aucune tâche ne correspond à ce filtre.' : 'Aucune tâche dans ce projet.'}
      >
        {(page) => (
          <DataTable
            caption="Tâches du projet"
            headers={['Tâche', 'Statut', 'Priorité', 'Échéance', 'Progression']}
            actions={canEdit}
          >
            {page.results.map((t) => (
              <TaskRow
                key={t.id}
                tab={tab}
                task={t}
                canEdit={canEdit}
                onChanged={props.onChanged}
                onEdit={() => {
                  setCreating(false);
                  setEditing(t);
                }}
              />
            ))}
          </DataTable>
        )}
      </TabBody>
    </div>
  );
}

const REMOVAL: Removal<ProjectTask> = {
  question: 'Supprimer cette tâche ?',
  remove: (t) => deleteTask(t.id),
  removed: (t) => `Tâche « ${t.title} » supprimée.`,
};

function TaskRow({
  tab,
  task: t,
  canEdit,
  onChanged,
  onEdit,
}: {
  tab: TabList<ProjectTask>;
  task: ProjectTask;
  canEdit: boolean;
  onChanged: () => void;
  onEdit: () => void;
}) {
  /** The server's answer replaces the row; the project's completion follows. */
  const saved = (task: ProjectTask | null) => {
    if (task) tab.updateRow(task.id, () => task);
    onChanged();
  };
  return (
    <tr data-task-id={t.id}>
      <th scope="row" className="pj-name">
        {t.title}
        {t.description && <span className="muted pj-desc">{t.description}</span>}
      </th>
      <td>
        {canEdit ? (
          <Select
            aria-label={`Statut de ${t.title}`}
            value={t.status}
            disabled={tab.busy === `status-${t.id}`}
            options={optionsOf(WORK_STATUS_LABELS, WORK_STATUSES)}
            onChange={(e) => {
              const next = e.target.value as WorkStatus;
              void tab.act(
                `status-${t.id}`,
                () => updateTask(t.id, { status: next }),
                `Tâche « ${t.title} » : ${WORK_STATUS_LABELS[next]}.`,
                saved,
              );
            }}
          />
        ) : (
          <span className={`vm-badge ${label(WORK_STATUS_TONE, t.status)}`}>{label(WORK_STATUS_LABELS, t.status)}</span>
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
              disabled={tab.busy === `progress-${t.id}`}
              onSave={(progress) =>
                tab.act(
                  `progress-${t.id}`,
                  () => updateTaskProgress(t.id, progress),
                  `Progression de « ${t.title} » : ${progress} %.`,
                  saved,
                )
              }
            />
            <RemovableRow tab={tab} row={t} name={t.title} removal={REMOVAL}>
              <RowAction action="edit" text="Modifier" name={t.title} onClick={onEdit} />
            </RemovableRow>
          </div>
        </td>
      )}
    </tr>
  );
}

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
  const form = useForm({
    title: task?.title ?? '',
    description: task?.description ?? '',
    status: task?.status ?? 'TODO',
    priority: task?.priority ?? 'MEDIUM',
    assignee: task?.assignee ?? (null as Id | null),
    due_date: task?.due_date ?? '',
  });
  const { values } = form;

  const send = async () => {
    const title = values.title.trim();
    const fields = { title, description: values.description.trim(), priority: values.priority };
    const due_date = values.due_date || null;
    if (task)
      return saveChanges(
        form,
        task,
        { ...fields, status: values.status, assignee: values.assignee, due_date },
        (changes) => updateTask(task.id, changes),
        onSaved,
      );
    onSaved(
      await createTask({
        project: projectId,
        ...fields,
        due_date,
        ...(values.assignee !== null ? { assignee: values.assignee } : {}),
      }),
    );
  };

  return (
    <FormCard
      form={form}
      title={task ? `Modifier la tâche « ${task.title} »` : 'Nouvelle tâche'}
      onSubmit={form.onSubmit(send, { validate: (v) => titleErrors(v.title) })}
      submitLabel={task ? 'Enregistrer la tâche' : 'Créer la tâche'}
      onClose={onClose}
    >
      <TextField form={form} name="title" label="Titre *" wide />
      {task && (
        <SelectField form={form} name="status" label="Statut" options={optionsOf(WORK_STATUS_LABELS, WORK_STATUSES)} />
      )}
      <SelectField form={form} name="priority" label="Priorité" options={optionsOf(PRIORITY_LABELS, PRIORITIES)} />
      <MemberField form={form} name="assignee" label="Attribuée à" projectId={projectId} />
      <TextField form={form} name="due_date" label="Échéance" type="date" />
      <TextField form={form} name="description" label="Description" multiline wide />
    </FormCard>
  );
}
