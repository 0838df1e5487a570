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
import {
  applyBulk,
  fetchAssignees,
  fetchEditableProjects,
  fetchRiskOptions,
  linkRisk,
  type BulkResult,
  type ListQuery,
} from './api/vulnerabilities.ts';
import type { Assignee, ProjectOption, RiskOption } from './api/types.ts';
import { ExportControls } from './export-controls.tsx';
import { NUMBER, plural } from './format.ts';

/** Ticked rows, or every finding the current filters match (chosen by the server). */
export type Selection = { kind: 'ids'; ids: Set<string> } | { kind: 'all' };

export const noSelection = (): Selection => ({ kind: 'ids', ids: new Set() });

/** Above this many findings the bar asks before sending (only a filter's selection gets there: ids stop at 1,000). */
export const CONFIRM_ABOVE = 1000;

type Action = 'assign' | 'transition' | 'due_date' | 'link_project' | 'unlink_project' | 'link_risk';

const ACTIONS: Record<Action, string> = {
  assign: 'Assigner',
  transition: 'Changer l’état',
  due_date: 'Fixer l’échéance',
  link_project: 'Lier à un projet',
  unlink_project: 'Retirer d’un projet',
  link_risk: 'Lier à un risque',
};

const isProjectAction = (a: Action): a is 'link_project' | 'unlink_project' =>
  a === 'link_project' || a === 'unlink_project';

/** « 12 s », « 2 min 05 s ». */
function elapsedText(seconds: number): string {
  if (seconds < 60) return `${seconds} s`;
  return `${Math.floor(seconds / 60)} min ${String(seconds % 60).padStart(2, '0')} s`;
}

/**
 * What to do with the selected findings (issue 21): assign them, move them through the lifecycle, set their due
 * date, link them to a project or unlink them, in one request; export them; link one to a risk (a risk names a single
 * finding). A large selection is confirmed first; while the server works the bar shows the elapsed time (the work is
 * one transaction: there is no partial count to show); the answer says how many changed, were already so, or were
 * refused by the lifecycle.
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
  const single = selection.kind === 'ids' && selection.ids.size === 1 ? Number([...selection.ids][0]) : null;
  const [chosenAction, setAction] = useState<Action>('assign');
  // A risk names one finding: its link is offered for one ticked row only.
  const action = chosenAction === 'link_risk' && single === null ? 'assign' : chosenAction;
  const [assignee, setAssignee] = useState('');
  const [state, setState] = useState<FindingState>('confirmed');
  const [comment, setComment] = useState('');
  const [until, setUntil] = useState('');
  const [due, setDue] = useState('');
  const [people, setPeople] = useState<Assignee[]>([]);
  const [projects, setProjects] = useState<ProjectOption[] | null>(null);
  const [project, setProject] = useState('');
  const [risks, setRisks] = useState<RiskOption[] | null>(null);
  const [risk, setRisk] = useState('');
  const [confirming, setConfirming] = useState(false);
  // The export's formats open from one button: the bar stays short, with a single status (the selection's count).
  const [exporting, setExporting] = useState(false);
  const [pending, setPending] = useState<{ count: number; since: number } | null>(null);
  const [now, setNow] = useState(0);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    void fetchAssignees().then(setPeople);
  }, []);
  // Projects and risks are read when their action is first chosen.
  const needsProjects = isProjectAction(action) && projects === null;
  useEffect(() => {
    if (needsProjects) void fetchEditableProjects().then(setProjects);
  }, [needsProjects]);
  const needsRisks = action === 'link_risk' && risks === null;
  useEffect(() => {
    if (needsRisks) void fetchRiskOptions().then(setRisks);
  }, [needsRisks]);
  useEffect(() => {
    if (!pending) return;
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, [pending]);
  if (!may('change_content')) return null;
  const states = FINDING_STATES.filter((s) => s !== 'new' && (s !== 'accepted' || may('accept_risk')));
  const projectName = projects?.find((p) => String(p.id) === project)?.name ?? '';

  const choose = (next: Action) => {
    setAction(next);
    setConfirming(false);
    setError(null);
  };

  const finish = (text: string) => {
    setPending(null);
    onSelect(noSelection());
    onDone(text);
  };
  const fail = (prefix: string) => (err: unknown) => {
    setPending(null);
    setError(`${prefix} : ${messageOf(err)}`);
  };
  const start = (n: number) => {
    setPending({ count: n, since: Date.now() });
    setConfirming(false);
    setError(null);
    onDone(null);
  };

  const send = () => {
    const value =
      action === 'assign'
        ? { assignee_id: assignee ? Number(assignee) : null }
        : action === 'due_date'
          ? { due_date: due || null }
          : isProjectAction(action)
            ? { project_id: Number(project) }
            : {
                state,
                ...(comment.trim() ? { comment: comment.trim() } : {}),
                ...(state === 'accepted' ? { accepted_until: until } : {}),
              };
    const chosen = selection.kind === 'all' ? { filter: filterOf(query) } : { ids: [...selection.ids].map(Number) };
    const name = projectName;
    start(count);
    applyBulk({ ...chosen, action, ...value }).then(
      (result) => finish(describe(result, action, name)),
      fail('Action groupée refusée'),
    );
  };

  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (count === 0 || pending) return;
    if (action === 'transition' && JUSTIFIED_STATES.includes(state) && !comment.trim()) {
      setError(`Une justification est obligatoire pour « ${FINDING_STATE_LABELS[state]} ».`);
      return;
    }
    if (isProjectAction(action) && !project) {
      setError('Choisissez un projet.');
      return;
    }
    if (action === 'link_risk') {
      const target = risks?.find((r) => String(r.id) === risk);
      if (!target || single === null) {
        setError('Choisissez un risque.');
        return;
      }
      start(1);
      linkRisk(target.id, single).then(
        () => finish(`Vulnérabilité liée au risque « ${target.title} ».`),
        fail('Lien refusé'),
      );
      return;
    }
    if (count > CONFIRM_ABOVE && !confirming) {
      setConfirming(true);
      return;
    }
    send();
  };

  const seconds = pending ? Math.max(0, Math.floor((now - pending.since) / 1000)) : 0;
  return (
    <form className="card bulk-bar" aria-label="Action groupée" onSubmit={submit} aria-busy={pending !== null}>
      <p className="bulk-count" role="status" aria-live="polite">
        {pending ? (
          <>
            Traitement de {plural(pending.count, 'vulnérabilité', 'vulnérabilités')}…{' '}
            {/* Visible, but not read out every second: the progress bar carries it for assistive technology. */}
            <span className="bulk-elapsed" aria-hidden="true">
              {elapsedText(seconds)}
            </span>
          </>
        ) : count === 0 ? (
          'Cochez des vulnérabilités, ou sélectionnez toutes celles du filtre.'
        ) : selection.kind === 'all' ? (
          `Les ${NUMBER.format(total)} vulnérabilités du filtre sont sélectionnées.`
        ) : (
          `${plural(count, 'vulnérabilité sélectionnée', 'vulnérabilités sélectionnées')}.`
        )}{' '}
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
      {pending && (
        <progress
          aria-label="Action groupée en cours"
          aria-valuetext={`${elapsedText(seconds)} écoulées, ${plural(pending.count, 'vulnérabilité', 'vulnérabilités')}`}
        />
      )}
      {count > 0 && !pending && confirming && (
        <div className="bulk-confirm" role="alertdialog" aria-label="Confirmer l’action groupée">
          <p>
            « {ACTIONS[action]} » portera sur {plural(count, 'vulnérabilité', 'vulnérabilités')}
            {selection.kind === 'all' ? ' (tous les résultats du filtre)' : ''} ; celles déjà à jour resteront
            inchangées. Confirmer ?
          </p>
          <button type="button" className="btn primary" onClick={send}>
            Confirmer
          </button>{' '}
          <button type="button" className="btn secondary" onClick={() => setConfirming(false)}>
            Annuler
          </button>
        </div>
      )}
      {count > 0 && !pending && !confirming && (
        <div className="vm-toolbar bulk-fields">
          <label>
            Action
            <select value={action} onChange={(e) => choose(e.target.value as Action)}>
              {(Object.keys(ACTIONS) as Action[])
                .filter((a) => a !== 'link_risk' || single !== null)
                .map((a) => (
                  <option key={a} value={a}>
                    {ACTIONS[a]}
                  </option>
                ))}
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
          {isProjectAction(action) &&
            (projects === null ? (
              <span className="muted">Chargement des projets…</span>
            ) : projects.length === 0 ? (
              <span className="muted">Aucun projet que vous pouvez modifier.</span>
            ) : (
              <label>
                Projet
                <select value={project} onChange={(e) => setProject(e.target.value)}>
                  <option value="">Choisir…</option>
                  {projects.map((p) => (
                    <option key={p.id} value={String(p.id)}>
                      {p.name}
                    </option>
                  ))}
                </select>
              </label>
            ))}
          {action === 'link_risk' &&
            (risks === null ? (
              <span className="muted">Chargement des risques…</span>
            ) : risks.length === 0 ? (
              <span className="muted">Aucun risque dans vos projets.</span>
            ) : (
              <label>
                Risque (il ne nomme qu’une vulnérabilité)
                <select value={risk} onChange={(e) => setRisk(e.target.value)}>
                  <option value="">Choisir…</option>
                  {risks.map((r) => (
                    <option key={r.id} value={String(r.id)}>
                      {r.title}
                      {r.vulnerability === single
                        ? ' (déjà liée)'
                        : r.vulnerability !== null
                          ? ` (remplace la vulnérabilité #${r.vulnerability})`
                          : ''}
                    </option>
                  ))}
                </select>
              </label>
            ))}
          <button type="submit" className="btn primary">
            {action === 'link_risk'
              ? 'Lier au risque'
              : `Appliquer à ${plural(count, 'vulnérabilité', 'vulnérabilités')}`}
          </button>
        </div>
      )}
      {count > 0 && !pending && (
        <div className="bulk-export">
          <button
            type="button"
            className="btn secondary"
            aria-expanded={exporting}
            onClick={() => setExporting(!exporting)}
          >
            Exporter la sélection
          </button>
          {exporting && (
            <ExportControls
              label="Exporter la sélection"
              query={selection.kind === 'all' ? query : { ids: [...selection.ids].join(',') }}
              expectedRows={count}
            />
          )}
        </div>
      )}
      {/* Announced, but not a second status of the bar: the selection's count is its status. */}
      <p className="bulk-outcome" aria-live="polite">
        {outcome}
      </p>
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

/** The French summary of an answer: what changed, what already was so, what the lifecycle refused. */
function describe(r: BulkResult, action: Action, projectName: string): string {
  const project = `« ${projectName} »`;
  const parts =
    action === 'link_project'
      ? [`${plural(r.changed, 'liée', 'liées')} au projet ${project}`]
      : action === 'unlink_project'
        ? [`${plural(r.changed, 'retirée', 'retirées')} du projet ${project}`]
        : [plural(r.changed, 'modifiée', 'modifiées')];
  if (r.unchanged > 0) {
    parts.push(
      action === 'link_project'
        ? `${plural(r.unchanged, 'était déjà liée', 'étaient déjà liées')}`
        : action === 'unlink_project'
          ? `${plural(r.unchanged, 'n’y était pas liée', 'n’y étaient pas liées')}`
          : `${NUMBER.format(r.unchanged)} déjà à jour`,
    );
  }
  if (r.refused > 0) parts.push(`${NUMBER.format(r.refused)} refusées par le cycle de vie (état incompatible)`);
  return `Action groupée terminée : ${parts.join(', ')}.`;
}
