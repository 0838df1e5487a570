import { useId, useState, type FormEvent } from 'react';
import { FormField } from '../../components/form-field.tsx';
export { RiskMatrix } from '../../components/risk-matrix.tsx';
import type { Form } from '../../lib/use-form.ts';
import { listTeam } from './projects-api.ts';
import type { Id, TeamMember } from './project-types.ts';
import { useProjectResource } from './project-tab.tsx';
import {
  label,
  LEVEL_LABELS,
  NUMBER,
  parseProgress,
  PRIORITY_LABELS,
  PRIORITY_TONE,
  PROGRESS_MESSAGE,
  STATUS_LABELS,
  STATUS_TONE,
} from './project-rules.ts';

export function StatusBadge({ status }: { status: string }) {
  return (
    <span className={`vm-badge ${label(STATUS_TONE, status)}`} data-status={status}>
      {label(STATUS_LABELS, status)}
    </span>
  );
}

export function PriorityBadge({ priority }: { priority: string }) {
  return (
    <span className={`vm-badge ${label(PRIORITY_TONE, priority)}`} data-priority={priority}>
      {label(PRIORITY_LABELS, priority)}
    </span>
  );
}

/** A risk level badge (Faible, Modéré, Élevé, Critique), with the score when given. */
export function LevelBadge({ level, score }: { level: string; score?: number }) {
  return (
    <span className={`pj-level level-${level}`} data-level={level}>
      {label(LEVEL_LABELS, level)}
      {score !== undefined && <span className="pj-score"> ({NUMBER.format(score)})</span>}
    </span>
  );
}

/**
 * An integer 0–100 progress input, checked before sending with the server's message; `onSave` runs only with a
 * valid value.
 */
export function ProgressEditor({
  name,
  value,
  disabled,
  onSave,
}: {
  /** The item's name, in the accessible names. */
  name: string;
  value: number;
  disabled?: boolean;
  onSave: (progress: number) => Promise<unknown>;
}) {
  const id = useId();
  const [text, setText] = useState(String(value));
  const [prev, setPrev] = useState(value);
  const [error, setError] = useState<string | null>(null);
  if (prev !== value) {
    setPrev(value);
    setText(String(value));
  }

  function submit(e: FormEvent) {
    e.preventDefault();
    const progress = parseProgress(text);
    if (progress === null) {
      setError(PROGRESS_MESSAGE);
      return;
    }
    setError(null);
    void onSave(progress);
  }

  return (
    <form className="pj-progress-form" onSubmit={submit} noValidate aria-label={`Progression : ${name}`}>
      <label htmlFor={`${id}-p`} className="visually-hidden">
        Progression de {name} (%)
      </label>
      <input
        id={`${id}-p`}
        type="text"
        inputMode="numeric"
        size={4}
        value={text}
        disabled={disabled}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? `${id}-e` : undefined}
        onChange={(e) => setText(e.target.value)}
      />
      <span aria-hidden="true">%</span>
      <button type="submit" className="btn secondary small" disabled={disabled} data-action="progress">
        Mettre à jour
      </button>
      {error && (
        <span id={`${id}-e`} className="vm-field-error pj-progress-error" role="alert">
          {error}
        </span>
      )}
    </form>
  );
}

/** The label of the empty choice of an assignee or owner picker (sent as null). */
export const UNASSIGNED = 'Non attribué';

function memberLabel(m: TeamMember): string {
  return m.name && m.email ? `${m.name} (${m.email})` : m.name || m.email || `Utilisateur ${m.id}`;
}

/**
 * A select of the project's team members (GET /projects/{id}/team-members/) with « Non attribué » for null; a
 * current value that is no longer on the team stays selectable, so opening a form never changes it.
 */
export function MemberSelect({
  id,
  projectId,
  value,
  onChange,
  disabled,
  describedBy,
  invalid,
}: {
  id: string;
  projectId: Id;
  value: Id | null;
  onChange: (value: Id | null) => void;
  disabled?: boolean;
  describedBy?: string | undefined;
  invalid?: boolean;
}) {
  const team = useProjectResource(() => listTeam(projectId), ['team', projectId]);
  const members = team.data?.results ?? [];
  const current = value === null ? '' : String(value);
  const known = current === '' || members.some((m) => String(m.id) === current);
  return (
    <>
      <select
        id={id}
        value={current}
        disabled={disabled}
        aria-busy={team.loading ? true : undefined}
        aria-invalid={invalid ? true : undefined}
        aria-describedby={describedBy}
        onChange={(e) => {
          const v = e.target.value;
          if (v === '') onChange(null);
          else onChange(members.find((m) => String(m.id) === v)?.id ?? (v === current ? value : v));
        }}
      >
        <option value="">{UNASSIGNED}</option>
        {members.map((m) => (
          <option key={m.id} value={String(m.id)}>
            {memberLabel(m)}
          </option>
        ))}
        {!known && <option value={current}>Utilisateur {current}</option>}
      </select>
      {team.error && <span className="muted small pj-member-error">{team.error}</span>}
    </>
  );
}

/** A form's assignee or owner field (`name`): one of the project's team members, or nobody. */
export function MemberField<K extends string>({
  form,
  name,
  label: text,
  projectId,
}: {
  form: Pick<Form<Record<K, Id | null>>, 'field' | 'values' | 'set'>;
  name: K;
  label: string;
  projectId: Id;
}) {
  const field = form.field(name);
  return (
    <FormField {...field} label={text}>
      <MemberSelect
        id={field.id}
        projectId={projectId}
        value={form.values[name]}
        onChange={(value) => form.set(name, value)}
        invalid={!!field.error}
        describedBy={field.error ? field.errorId : undefined}
      />
    </FormField>
  );
}
