import { FormCard, SelectField, TextField } from '../../components/form-field.tsx';
import { optionsOf } from '../../components/select.tsx';
import { useForm } from '../../lib/use-form.ts';
import { createProject, updateProject } from './projects-api.ts';
import type { Written } from './project-http.ts';
import type { Project, ProjectInput, ProjectPriority, ProjectStatus } from './project-types.ts';
import {
  CREATE_STATUSES,
  nextStatuses,
  PRIORITIES,
  PRIORITY_LABELS,
  STATUS_LABELS,
  validateProject,
  type ProjectDraft,
} from './project-rules.ts';

/** Create (no `project`) or edit a project, checked with the server's rules before sending. */
export function ProjectForm({
  project,
  onSaved,
  onClose,
}: {
  project?: Project | undefined;
  onSaved: (result: Written<Project>) => void;
  onClose: () => void;
}) {
  const form = useForm<ProjectDraft>({
    name: project?.name ?? '',
    status: project?.status ?? 'PLANNED',
    priority: project?.priority ?? 'MEDIUM',
    start_date: project?.start_date?.slice(0, 10) ?? '',
    deadline: project?.deadline?.slice(0, 10) ?? '',
    description: project?.description ?? '',
  });
  const { values } = form;
  const statuses = project ? nextStatuses(project.status) : CREATE_STATUSES;

  const send = async () => {
    const body: ProjectInput & { name: string } = {
      name: values.name.trim(),
      description: values.description.trim(),
      status: values.status as ProjectStatus,
      priority: values.priority as ProjectPriority,
      start_date: values.start_date.trim() || null,
      deadline: values.deadline.trim() || null,
    };
    onSaved(project ? await updateProject(project.id, body) : await createProject(body));
  };

  return (
    <FormCard
      form={form}
      title={project ? `Modifier « ${project.name} »` : 'Nouveau projet'}
      heading="h2"
      onSubmit={form.onSubmit(send, { validate: validateProject })}
      submitLabel={project ? 'Enregistrer' : 'Créer le projet'}
      onClose={onClose}
    >
      <TextField form={form} name="name" label="Nom *" required wide />
      <SelectField form={form} name="status" label="Statut" options={optionsOf(STATUS_LABELS, statuses)} />
      <SelectField form={form} name="priority" label="Priorité" options={optionsOf(PRIORITY_LABELS, PRIORITIES)} />
      <TextField form={form} name="start_date" label="Date de début" type="date" />
      <TextField form={form} name="deadline" label="Échéance" type="date" min={values.start_date || undefined} />
      <TextField form={form} name="description" label="Description" multiline wide />
    </FormCard>
  );
}
