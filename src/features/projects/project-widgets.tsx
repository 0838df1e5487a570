import { useId, useState, type FormEvent, type ReactNode } from 'react';
import { DataOriginNote } from '../../components/data-origin-note.tsx';
import { EmptyState } from '../../components/list-state.tsx';
import { useRowActions } from '../../components/use-row-actions.ts';
import { ApiError } from '../../lib/api-client.ts';
import { currentTenantId } from '../../lib/auth/session.ts';
import { listTeam, type Id, type ListResult, type Project, type TeamMember, type Written } from './projects-api.ts';
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
import { useLoad } from './use-load.ts';

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

/** Where a list came from and, when it failed, its French error (the list itself shows empty). */
export function ListNotes({ result }: { result: Pick<ListResult<unknown>, 'origin' | 'error'> }) {
  return (
    <>
      <DataOriginNote origin={result.origin} />
      {result.error && (
        <p className="error" role="alert">
          {result.error}
        </p>
      )}
    </>
  );
}

/** The body of a tab: a loading status, or the data's origin, its error and the content (never blank). */
export function TabBody<T>({
  state,
  loading,
  children,
}: {
  state: { status: 'loading' } | { status: 'error'; message: string } | { status: 'ready'; data: ListResult<T> };
  loading: string;
  children: (result: ListResult<T>) => ReactNode;
}) {
  if (state.status === 'loading') return <p role="status">{loading}</p>;
  if (state.status === 'error')
    return (
      <>
        <p className="error" role="alert">
          {state.message}
        </p>
        {children({
          data: { count: 0, next: null, previous: null, results: [] },
          origin: { source: 'network' },
          error: state.message,
        })}
      </>
    );
  return (
    <>
      <ListNotes result={state.data} />
      {children(state.data)}
    </>
  );
}

export function Empty({ children }: { children: ReactNode }) {
  return <EmptyState>{children}</EmptyState>;
}

/**
 * The state of the writes made from a tab: `act` runs one, marks its row busy, then shows the success notice, or
 * the service worker's "stored offline" message, or the French error.
 */
export function useProjectActions() {
  const { busy, notice, setNotice, actionError, run } = useRowActions<string>();
  async function act<T>(
    rowKey: string,
    call: () => Promise<Written<T>>,
    success: string,
    done?: (data: T | null) => void,
  ): Promise<boolean> {
    let ok = false;
    await run(rowKey, async () => {
      const result = await call();
      done?.(result.data);
      setNotice(result.queued ? result.message : success);
      ok = true;
    });
    return ok;
  }
  return { busy, notice, setNotice, actionError, act };
}

/** What every tab of the project page receives. */
export interface TabProps {
  project: Project;
  canEdit: boolean;
  canManage: boolean;
  /** Something changed that the project's header shows (completion, counts): read the project again. */
  onChanged: () => void;
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
  const { state } = useLoad(() => listTeam(projectId), `team|${projectId}|${currentTenantId() ?? ''}`);
  const members = state.status === 'ready' ? state.data.data.results : [];
  const listError = state.status === 'ready' ? state.data.error : state.status === 'error' ? state.message : null;
  const current = value === null ? '' : String(value);
  const known = current === '' || members.some((m) => String(m.id) === current);
  return (
    <>
      <select
        id={id}
        value={current}
        disabled={disabled}
        aria-busy={state.status === 'loading' ? true : undefined}
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
      {listError && <span className="muted small pj-member-error">{listError}</span>}
    </>
  );
}

function comparable(v: unknown): string | null {
  if (v === undefined || v === null || v === '') return null;
  return typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' ? String(v) : JSON.stringify(v);
}

/** The fields of `after` that differ from `before` (ids compared as text, '' and null alike): a PATCH body. */
export function changedFields<T extends object>(before: object, after: T): Partial<T> {
  const out: Partial<T> = {};
  const old = before as Record<string, unknown>;
  for (const key of Object.keys(after) as (keyof T & string)[]) {
    if (comparable(after[key]) !== comparable(old[key])) out[key] = after[key];
  }
  return out;
}

/** The server's first message for each of `keys` (`fields` of a 400 body). */
export function serverFieldErrors<K extends string>(err: unknown, keys: readonly K[]): Partial<Record<K, string>> {
  const found: Partial<Record<K, string>> = {};
  if (!(err instanceof ApiError)) return found;
  for (const key of keys) {
    const first = err.fields[key]?.[0];
    if (first) found[key] = first;
  }
  return found;
}

/** The message shown when an edit form is sent without any change (nothing is sent). */
export const NO_CHANGE = 'Aucune modification à enregistrer.';
