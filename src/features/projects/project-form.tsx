import { useId, useState, type FormEvent } from 'react';
import { ApiError } from '../../lib/api-client.ts';
import { errorAria, FormActions, FormError, FormField } from '../../components/form-field.tsx';
import {
  createProject,
  updateProject,
  type Project,
  type ProjectInput,
  type ProjectPriority,
  type ProjectStatus,
  type Written,
} from './projects-api.ts';
import {
  CREATE_STATUSES,
  nextStatuses,
  PRIORITIES,
  PRIORITY_LABELS,
  STATUS_LABELS,
  validateProject,
  type ProjectDraft,
  type ProjectFieldErrors,
} from './project-rules.ts';

const FIELDS: (keyof ProjectDraft)[] = ['name', 'description', 'status', 'priority', 'start_date', 'deadline'];

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
  const id = useId();
  const [draft, setDraft] = useState<ProjectDraft>({
    name: project?.name ?? '',
    description: project?.description ?? '',
    status: project?.status ?? 'PLANNED',
    priority: project?.priority ?? 'MEDIUM',
    start_date: project?.start_date?.slice(0, 10) ?? '',
    deadline: project?.deadline?.slice(0, 10) ?? '',
  });
  const [errors, setErrors] = useState<ProjectFieldErrors>({});
  const [error, setError] = useState<string | null>(null);
  const [sending, setSending] = useState(false);
  const statuses = project ? nextStatuses(project.status) : CREATE_STATUSES;
  const set = (key: keyof ProjectDraft) => (value: string) => setDraft((d) => ({ ...d, [key]: value }));

  async function submit(e: FormEvent) {
    e.preventDefault();
    const found = validateProject(draft);
    setErrors(found);
    setError(null);
    if (Object.keys(found).length > 0) return;
    setSending(true);
    const body: ProjectInput = {
      name: draft.name.trim(),
      description: draft.description.trim(),
      status: draft.status as ProjectStatus,
      priority: draft.priority as ProjectPriority,
      start_date: draft.start_date.trim() || null,
      deadline: draft.deadline.trim() || null,
    };
    try {
      onSaved(project ? await updateProject(project.id, body) : await createProject(body));
    } catch (err) {
      if (err instanceof ApiError) {
        const mapped: ProjectFieldErrors = {};
        for (const key of FIELDS) {
          const first = err.fields[key]?.[0];
          if (first) mapped[key] = first;
        }
        setErrors(mapped);
        setError(err.message);
      } else setError('Erreur inattendue.');
    } finally {
      setSending(false);
    }
  }

  const aria = (name: keyof ProjectDraft) => errorAria(`${id}-${name}-error`, errors[name]);

  return (
    <form className="card pj-form" onSubmit={(e) => void submit(e)} noValidate aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>{project ? `Modifier « ${project.name} »` : 'Nouveau projet'}</h2>
      <div className="vm-form">
        <FormField id={`${id}-name`} label="Nom *" error={errors.name} errorId={`${id}-name-error`} wide>
          <input
            id={`${id}-name`}
            value={draft.name}
            required
            onChange={(e) => set('name')(e.target.value)}
            {...aria('name')}
          />
        </FormField>
        <FormField id={`${id}-status`} label="Statut" error={errors.status} errorId={`${id}-status-error`}>
          <select
            id={`${id}-status`}
            value={draft.status}
            onChange={(e) => set('status')(e.target.value)}
            {...aria('status')}
          >
            {statuses.map((s) => (
              <option key={s} value={s}>
                {STATUS_LABELS[s]}
              </option>
            ))}
          </select>
        </FormField>
        <FormField id={`${id}-priority`} label="Priorité" error={errors.priority} errorId={`${id}-priority-error`}>
          <select
            id={`${id}-priority`}
            value={draft.priority}
            onChange={(e) => set('priority')(e.target.value)}
            {...aria('priority')}
          >
            {PRIORITIES.map((p) => (
              <option key={p} value={p}>
                {PRIORITY_LABELS[p]}
              </option>
            ))}
          </select>
        </FormField>
        <FormField
          id={`${id}-start`}
          label="Date de début"
          error={errors.start_date}
          errorId={`${id}-start_date-error`}
        >
          <input
            id={`${id}-start`}
            type="date"
            value={draft.start_date}
            onChange={(e) => set('start_date')(e.target.value)}
            {...aria('start_date')}
          />
        </FormField>
        <FormField id={`${id}-deadline`} label="Échéance" error={errors.deadline} errorId={`${id}-deadline-error`}>
          <input
            id={`${id}-deadline`}
            type="date"
            value={draft.deadline}
            min={draft.start_date || undefined}
            onChange={(e) => set('deadline')(e.target.value)}
            {...aria('deadline')}
          />
        </FormField>
        <FormField id={`${id}-desc`} label="Description" wide>
          <textarea id={`${id}-desc`} value={draft.description} onChange={(e) => set('description')(e.target.value)} />
        </FormField>
        <FormError error={error} />
        <FormActions
          submitLabel={sending ? 'Enregistrement…' : project ? 'Enregistrer' : 'Créer le projet'}
          disabled={sending}
          closeLabel="Annuler"
          onClose={onClose}
        />
      </div>
    </form>
  );
}
