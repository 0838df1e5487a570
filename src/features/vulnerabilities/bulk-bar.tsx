import { useEffect, useState, type FormEvent } from 'react';
import {
  FINDING_STATE_LABELS,
  FINDING_STATES,
  JUSTIFIED_STATES,
  type FindingState,
} from '../../../contract/finding-states.ts';
import { DateInput } from '../../components/date-input.tsx';
import { may } from '../../lib/auth/can-write.ts';
import { messageOf } from '../../lib/error-message.ts';
import { todayIso } from '../../lib/format.ts';
import { applyBulk, fetchAssignees, type BulkResult, type ListQuery } from './api/vulnerabilities.ts';
import type { Assignee } from './api/types.ts';
import { NUMBER, plural } from './format.ts';

/** Ticked rows, or every finding the current filters match (chosen by the server). */
export type Selection = { kind: 'ids'; ids: Set<string> } | { kind: 'all' };

export const noSelection = (): Selection => ({ kind: 'ids', ids: new Set() });

type Action = 'assign' | 'transition' | 'due_date';

/**
 * What to do with the selected findings (issue 21): assign them, move them through the lifecycle or set their due
 * date, in one request; the answer says how many changed, were already so, or were refused by the lifecycle.
 */
export function BulkBar({
  selection,
  total,
  query,
  onSelect,
  outcome,
  onDone,
}: {
  selection: Selection;
  total: number;
  query: ListQuery;
  onSelect: (next: Selection) => void;
  /** What the last bulk action did (kept by the list: the rows reload meanwhile). */
  outcome: string | null;
  onDone: (outcome: string | null) => void;
}) {
  const count = selection.kind === 'all' ? total : selection.ids.size;
  const [action, setAction] = useState<Action>('assign');
  const [assignee, setAssignee] = useState('');
  const [state, setState] = useState<FindingState>('confirmed');
  const [comment, setComment] = useState('');
  const [until, setUntil] = useState('');
  const [due, setDue] = useState('');
  const [people, setPeople] = useState<Assignee[]>([]);
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    void fetchAssignees().then(setPeople);
  }, []);
  if (!may('change_content')) return null;
  const states = FINDING_STATES.filter((s) => s !== 'new' && (s !== 'accepted' || may('accept_risk')));

  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (count === 0 || pending) return;
    if (action === 'transition' && JUSTIFIED_STATES.includes(state) && !comment.trim()) {
      setError(`Une justification est obligatoire pour « ${FINDING_STATE_LABELS[state]} ».`);
      return;
    }
    const value =
      action === 'assign'
        ? { assignee_id: assignee ? Number(assignee) : null }
        : action === 'due_date'
          ? { due_date: due || null }
          : {
              state,
              ...(comment.trim() ? { comment: comment.trim() } : {}),
              ...(state === 'accepted' ? { accepted_until: until } : {}),
            };
    const chosen = selection.kind === 'all' ? { filter: filterOf(query) } : { ids: [...selection.ids].map(Number) };
    setPending(true);
    setError(null);
    onDone(null);
    applyBulk({ ...chosen, action, ...value }).then(
      (result) => {
        setPending(false);
        onSelect(noSelection());
        onDone(describe(result));
      },
      (err: unknown) => {
        setPending(false);
        setError(`Action groupée refusée : ${messageOf(err)}`);
      },
    );
  };

  return (
    <form className="card bulk-bar" aria-label="Action groupée" onSubmit={submit} aria-busy={pending}>
      <p className="bulk-count" role="status" aria-live="polite">
        {pending
          ? `Traitement de ${plural(count, 'vulnérabilité', 'vulnérabilités')}…`
          : count === 0
            ? 'Cochez des vulnérabilités, ou sélectionnez toutes celles du filtre.'
            : selection.kind === 'all'
              ? `Les ${NUMBER.format(total)} vulnérabilités du filtre sont sélectionnées.`
              : `${plural(count, 'vulnérabilité sélectionnée', 'vulnérabilités sélectionnées')}.`}{' '}
        {!pending && selection.kind === 'ids' && total > 0 && (
          <button type="button" className="link" onClick={() => onSelect({ kind: 'all' })}>
            Sélectionner les {NUMBER.format(total)} du filtre
          </button>
        )}{' '}
        {!pending && count > 0 && (
          <button type="button" className="link" onClick={() => onSelect(noSelection())}>
            Tout désélectionner
          </button>
        )}
      </p>
      {pending && <progress aria-label="Action groupée en cours" />}
      {count > 0 && !pending && (
        <div className="vm-toolbar bulk-fields">
          <label>
            Action
            <select value={action} onChange={(e) => setAction(e.target.value as Action)}>
              <option value="assign">Assigner</option>
              <option value="transition">Changer l’état</option>
              <option value="due_date">Fixer l’échéance</option>
            </select>
          </label>
          {action === 'assign' && (
            <label>
              Assignée à
              <select value={assignee} onChange={(e) => setAssignee(e.target.value)}>
                <option value="">Personne</option>
                {people.map((p) => (
                  <option key={p.id} value={String(p.id)}>
                    {p.name}
                  </option>
                ))}
              </select>
            </label>
          )}
          {action === 'transition' && (
            <>
              <label>
                Nouvel état
                <select value={state} onChange={(e) => setState(e.target.value as FindingState)}>
                  {states.map((s) => (
                    <option key={s} value={s}>
                      {FINDING_STATE_LABELS[s]}
                    </option>
                  ))}
                </select>
              </label>
              {state === 'accepted' && (
                <label>
                  Accepté jusqu’au
                  <DateInput value={until} onValue={setUntil} min={todayIso()} />
                </label>
              )}
              <label className="bulk-comment">
                {JUSTIFIED_STATES.includes(state) ? 'Justification *' : 'Commentaire'}
                <input value={comment} maxLength={10_000} onChange={(e) => setComment(e.target.value)} />
              </label>
            </>
          )}
          {action === 'due_date' && (
            <label>
              Échéance (vide : aucune)
              <DateInput value={due} onValue={setDue} />
            </label>
          )}
          <button type="submit" className="btn primary">
            Appliquer à {plural(count, 'vulnérabilité', 'vulnérabilités')}
          </button>
        </div>
      )}
      {outcome && <p className="muted">{outcome}</p>}
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
    </form>
  );
}

/** The list's API query (list-filters.ts filtersToApi: the filters given, and the ordering) as a bulk filter. */
function filterOf(query: ListQuery): Record<string, string> {
  const { ordering: _ordering, ...filters } = query;
  return Object.fromEntries(Object.entries(filters).map(([k, v]) => [k, String(v)]));
}

function describe(r: BulkResult): string {
  const parts = [plural(r.changed, 'modifiée', 'modifiées')];
  if (r.unchanged > 0) parts.push(`${NUMBER.format(r.unchanged)} déjà à jour`);
  if (r.refused > 0) parts.push(`${NUMBER.format(r.refused)} refusées par le cycle de vie (état incompatible)`);
  return `Action groupée terminée : ${parts.join(', ')}.`;
}
