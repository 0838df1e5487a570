import { useId, useState, type FormEvent } from 'react';
import { FormField } from '../../components/form-field.tsx';
import type { Form } from '../../lib/use-form.ts';
import { listTeam } from './projects-api.ts';
import type { Id, TeamMember } from './project-types.ts';
import { useProjectResource } from './project-tab.tsx';
import {
  IMPACT_LABELS,
  label,
  LEVEL_LABELS,
  levelOf,
  LIKELIHOOD_LABELS,
  NUMBER,
  parseProgress,
  PRIORITY_LABELS,
  PRIORITY_TONE,
  PROGRESS_MESSAGE,
  SCALE,
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

/** Soft hyphens in the scale's long words, so narrow headers break them with a hyphen, not anywhere. */
const SOFT_HYPHENS: Record<string, string> = {
  Significative: 'Signi\u00adfica\u00adtive',
  Maximale: 'Maxi\u00admale',
  Mineure: 'Mi\u00adneure',
  Critique: 'Cri\u00adtique',
};

function hyphenable(word: string | undefined): string {
  return word === undefined ? '' : (SOFT_HYPHENS[word] ?? word);
}

/**
 * The 4 × 4 risk heat map: rows are gravité (4 at the top), columns vraisemblance; each cell coloured by the level
 * of likelihood × impact and holding the number of risks. `matrix[impact - 1][likelihood - 1]`.
 */
export function RiskMatrix({ matrix, caption }: { matrix: number[][]; caption: string }) {
  return (
    <div className="pj-matrix-wrap">
      <table className="pj-matrix">
        <caption>{caption}</caption>
        <colgroup>
          <col className="pj-matrix-head-col" />
          <col span={4} />
        </colgroup>
        <thead>
          <tr>
            <td />
            <th scope="colgroup" colSpan={4}>
              Vraisemblance →
            </th>
          </tr>
          <tr>
            <th scope="col" className="pj-matrix-axis">
              Gravité ↓
            </th>
            {SCALE.map((l) => (
              <th scope="col" key={l}>
                <span className="pj-matrix-n">{l}</span>
                <span className="pj-matrix-label">{hyphenable(LIKELIHOOD_LABELS[l])}</span>
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {[...SCALE].reverse().map((impact) => (
            <tr key={impact}>
              <th scope="row">
                <span className="pj-matrix-n">{impact}</span>
                <span className="pj-matrix-label">{hyphenable(IMPACT_LABELS[impact])}</span>
              </th>
              {SCALE.map((likelihood) => {
                const count = matrix[impact - 1]?.[likelihood - 1] ?? 0;
                const level = levelOf(likelihood * impact);
                return (
                  <td
                    key={likelihood}
                    data-likelihood={likelihood}
                    data-impact={impact}
                    className={`level-${level}${count === 0 ? ' empty' : ''}`}
                  >
                    <div className="pj-cell">
                      <strong className="pj-count">{NUMBER.format(count)}</strong>
                      <span className="visually-hidden">
                        {count > 1 ? ' risques' : ' risque'}, niveau {LEVEL_LABELS[level]}
                      </span>
                    </div>
                  </td>
                );
              })}
            </tr>
          ))}
        </tbody>
      </table>
      <ul className="pj-legend" aria-label="Légende des niveaux">
        {(['low', 'medium', 'high', 'critical'] as const).map((level) => (
          <li key={level}>
            <span className={`pj-swatch level-${level}`} aria-hidden="true" /> {LEVEL_LABELS[level]}
          </li>
        ))}
      </ul>
    </div>
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
