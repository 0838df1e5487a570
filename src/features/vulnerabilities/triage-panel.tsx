import { useEffect, useState } from 'react';
import {
  FINDING_STATE_LABELS,
  FINDING_TRANSITIONS,
  findingStateLabel,
  JUSTIFIED_STATES,
  type FindingState,
} from '../../../contract/finding-states.ts';
import {
  FINDING_SEVERITIES,
  FINDING_SEVERITY_LABELS,
  findingSeverityLabel,
  type FindingSeverity,
} from '../../../contract/severity.ts';
import { FormCard, SelectField, TextField } from '../../components/form-field.tsx';
import { optionsOf } from '../../components/select.tsx';
import { may } from '../../lib/auth/can-write.ts';
import { messageOf } from '../../lib/error-message.ts';
import { useForm } from '../../lib/use-form.ts';
import {
  addComment,
  assignFinding,
  fetchAssignees,
  fetchHistory,
  moveFinding,
  overrideSeverity,
  revertSeverity,
} from './api/vulnerabilities.ts';
import type { Assignee, FindingEvent, Vulnerability } from './api/types.ts';
import { formatDate, formatDateTime, hasSeverityOverride, isSeverity, stateText } from './format.ts';
import { canWriteVulnerabilities } from './permissions.ts';
import { todayIso } from '../../lib/format.ts';

/** The state badge: the lifecycle's word, with the resolved/open tone the list uses. */
export function StateBadge({ v }: { v: Pick<Vulnerability, 'state' | 'is_resolved'> }) {
  return <span className={v.is_resolved ? 'status resolved' : 'status open'}>{stateText(v)}</span>;
}

const nameOf = (people: Assignee[], id: string | number | null | undefined) => {
  if (id === null || id === undefined || id === '') return null;
  const person = people.find((p) => String(p.id) === String(id));
  return person ? person.name : `n° ${id}`;
};

/** Overdue: a due date before today on a finding still open. */
export const isOverdue = (v: Pick<Vulnerability, 'due_date' | 'is_resolved'>, today = todayIso()) =>
  !!v.due_date && !v.is_resolved && v.due_date < today;

/**
 * A finding's triage (issue 21): its state, assignee, due date and history for everyone; the state move, the
 * assignment, the severity and the comment forms for those who may change content. Shown when the server speaks
 * the lifecycle. `readOnly`: why the finding shown cannot be written (a sample or a kept copy), null when live.
 */
export function TriagePanel({
  v,
  onChange,
  readOnly = null,
}: {
  v: Vulnerability;
  onChange: (v: Vulnerability) => void;
  readOnly?: string | null;
}) {
  const [people, setPeople] = useState<Assignee[]>([]);
  const [history, setHistory] = useState<FindingEvent[] | null>(null);
  const [historyError, setHistoryError] = useState(false);
  const canWrite = canWriteVulnerabilities();

  const reloadHistory = () =>
    fetchHistory(v.id).then(
      (events) => {
        setHistory(events);
        setHistoryError(false);
      },
      () => setHistoryError(true),
    );
  useEffect(() => {
    void fetchAssignees().then(setPeople);
  }, []);
  useEffect(() => {
    void reloadHistory();
    // The history follows every change of the finding (a move, an assignment, its severity).
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [v.id, v.state, v.assignee_id, v.due_date, v.severity, v.severity_source, v.severity_reason]);

  const changed = (next: Vulnerability) => onChange({ ...v, ...next, cve: v.cve });
  const assignee = nameOf(people, v.assignee_id);

  return (
    <section className="card triage" aria-labelledby="triage-title">
      <h2 id="triage-title">Traitement</h2>
      <dl className="facts">
        <dt>État</dt>
        <dd>
          <StateBadge v={v} />
        </dd>
        <dt>Assignée à</dt>
        <dd>{assignee ?? 'Personne'}</dd>
        <dt>Échéance</dt>
        <dd>
          {v.due_date ? formatDate(v.due_date) : 'Aucune'}
          {isOverdue(v) && <span className="status overdue"> En retard</span>}
        </dd>
        {v.state === 'accepted' && (
          <>
            <dt>Risque accepté jusqu’au</dt>
            <dd>
              {formatDate(v.accepted_until)}
              {v.accepted_by ? ` (par ${nameOf(people, v.accepted_by)})` : ''}
            </dd>
          </>
        )}
        {v.state_reason && (
          <>
            <dt>Justification</dt>
            <dd data-content="">{v.state_reason}</dd>
          </>
        )}
      </dl>
      {canWrite && v.state && <MoveForm v={v} state={v.state} onDone={changed} />}
      {canWrite && <AssignForm v={v} people={people} onDone={changed} />}
      {canWrite && <SeverityForm v={v} readOnly={readOnly} onDone={changed} />}
      <h3>Historique</h3>
      {historyError && <p className="error">Historique indisponible pour le moment.</p>}
      {history && history.length === 0 && <p className="muted">Aucun changement ni commentaire pour l’instant.</p>}
      {history && history.length > 0 && (
        <ol className="finding-history">
          {history.map((e) => (
            <li key={e.id}>
              <span className="muted">
                {formatDateTime(e.created_at)} — {e.username ?? 'Vigie'}
              </span>{' '}
              {describe(e, people)}
              {e.comment && (
                <q className="description" data-content="">
                  {e.comment}
                </q>
              )}
            </li>
          ))}
        </ol>
      )}
      {canWrite && <CommentForm id={v.id} onDone={() => void reloadHistory()} />}
    </section>
  );
}

function describe(e: FindingEvent, people: Assignee[]): string {
  switch (e.kind) {
    case 'state':
      return `État : ${findingStateLabel(e.from_value)} → ${findingStateLabel(e.to_value)}.`;
    case 'assignee':
      return e.to_value ? `Assignée à ${nameOf(people, e.to_value)}.` : 'Plus assignée.';
    case 'due_date':
      return e.to_value ? `Échéance fixée au ${formatDate(e.to_value)}.` : 'Échéance retirée.';
    case 'comment':
      return 'Commentaire :';
    case 'severity':
      return `Gravité : ${findingSeverityLabel(e.from_value)} → ${findingSeverityLabel(e.to_value)}.`;
  }
}

const SEVERITY_OPTIONS = optionsOf(FINDING_SEVERITY_LABELS, FINDING_SEVERITIES);

/**
 * An analyst's severity, with its required reason; while one stands, « Rétablir la gravité de la source » goes
 * back to the scanner's or the CVE store's rating. Off, and saying why, for data that is not live.
 */
function SeverityForm({
  v,
  readOnly,
  onDone,
}: {
  v: Vulnerability;
  readOnly: string | null;
  onDone: (v: Vulnerability) => void;
}) {
  const current: FindingSeverity = isSeverity(v.severity) ? v.severity : 'unrated';
  const form = useForm({ severity: current, reason: '' });
  const [reverting, setReverting] = useState(false);
  useEffect(() => form.set('severity', current), [current]); // eslint-disable-line react-hooks/exhaustive-deps
  const off = readOnly !== null;

  const revert = () => {
    setReverting(true);
    form.setError(null);
    form.setNotice(null);
    revertSeverity(v.id).then(
      (back) => {
        setReverting(false);
        onDone(back);
        form.setNotice(`Gravité de la source rétablie : ${findingSeverityLabel(back.severity)}.`);
      },
      (err: unknown) => {
        setReverting(false);
        form.setError(`Impossible de rétablir la gravité de la source : ${messageOf(err)}`);
      },
    );
  };

  return (
    <FormCard
      form={form}
      title="Gravité"
      heading="h3"
      className="triage-form"
      intro={
        <>
          {readOnly && (
            <p className="muted" role="note">
              {readOnly}
            </p>
          )}
          {hasSeverityOverride(v) && (
            <p>
              <button
                type="button"
                className="btn secondary"
                disabled={off || reverting || form.submitting}
                aria-busy={reverting}
                onClick={revert}
              >
                {reverting ? 'Enregistrement…' : 'Rétablir la gravité de la source'}
              </button>
            </p>
          )}
        </>
      }
      onSubmit={form.onSubmit(
        async ({ severity, reason }) => {
          if (off) return;
          const saved = await overrideSeverity(v.id, { severity, reason: reason.trim() });
          form.set('reason', '');
          onDone(saved);
          form.setNotice(`Gravité : ${findingSeverityLabel(saved.severity)} (source : analyste).`);
        },
        { validate: (x) => (x.reason.trim() ? {} : { reason: 'Motif obligatoire pour modifier la gravité.' }) },
      )}
      submitLabel="Modifier la gravité"
      closeLabel="Effacer"
      onClose={() => form.set('reason', '')}
      disabled={off || reverting}
    >
      <SelectField form={form} name="severity" label="Nouvelle gravité" options={SEVERITY_OPTIONS} disabled={off} />
      <TextField form={form} name="reason" label="Motif *" multiline wide rows={2} maxLength={2000} disabled={off} />
    </FormCard>
  );
}

function MoveForm({ v, state, onDone }: { v: Vulnerability; state: FindingState; onDone: (v: Vulnerability) => void }) {
  const targets = FINDING_TRANSITIONS[state].filter((s) => s !== 'accepted' || may('accept_risk'));
  const form = useForm({ state: targets[0] ?? state, comment: '', accepted_until: '' });
  const { values } = form;
  const justified = JUSTIFIED_STATES.includes(values.state);
  useEffect(() => form.set('state', targets[0] ?? state), [state]); // eslint-disable-line react-hooks/exhaustive-deps
  if (targets.length === 0) return null;
  return (
    <FormCard
      form={form}
      title="Changer l’état"
      heading="h3"
      className="triage-form"
      onSubmit={form.onSubmit(
        async () => {
          const moved = await moveFinding(v.id, {
            state: values.state,
            comment: values.comment.trim(),
            ...(values.state === 'accepted' ? { accepted_until: values.accepted_until } : {}),
          });
          form.set('comment', '');
          form.set('accepted_until', '');
          onDone(moved);
          form.setNotice(`État : ${FINDING_STATE_LABELS[moved.state ?? values.state]}.`);
        },
        {
          validate: (x) => ({
            ...(JUSTIFIED_STATES.includes(x.state) && !x.comment.trim()
              ? { comment: `Une justification est obligatoire pour « ${FINDING_STATE_LABELS[x.state]} ».` }
              : {}),
            ...(x.state === 'accepted' && !x.accepted_until
              ? { accepted_until: 'La date d’expiration de l’acceptation du risque est obligatoire.' }
              : {}),
          }),
        },
      )}
      submitLabel="Appliquer"
      closeLabel="Effacer"
      onClose={() => form.set('comment', '')}
    >
      <SelectField form={form} name="state" label="Nouvel état" options={optionsOf(FINDING_STATE_LABELS, targets)} />
      {values.state === 'accepted' && (
        <TextField form={form} name="accepted_until" label="Risque accepté jusqu’au *" type="date" min={todayIso()} />
      )}
      <TextField
        form={form}
        name="comment"
        label={justified ? 'Justification *' : 'Commentaire'}
        multiline
        wide
        rows={2}
        maxLength={10_000}
      />
    </FormCard>
  );
}

function AssignForm({
  v,
  people,
  onDone,
}: {
  v: Vulnerability;
  people: Assignee[];
  onDone: (v: Vulnerability) => void;
}) {
  const initial = () => ({ assignee: v.assignee_id ? String(v.assignee_id) : '', due_date: v.due_date ?? '' });
  const form = useForm(initial);
  useEffect(() => {
    form.set('assignee', v.assignee_id ? String(v.assignee_id) : '');
    form.set('due_date', v.due_date ?? '');
  }, [v.assignee_id, v.due_date]); // eslint-disable-line react-hooks/exhaustive-deps
  return (
    <FormCard
      form={form}
      title="Assignation et échéance"
      heading="h3"
      className="triage-form"
      onSubmit={form.onSubmit(async ({ assignee, due_date }) => {
        onDone(
          await assignFinding(v.id, { assignee_id: assignee ? Number(assignee) : null, due_date: due_date || null }),
        );
        form.setNotice('Assignation enregistrée.');
      })}
      submitLabel="Enregistrer"
      closeLabel="Annuler"
      onClose={() => {
        const back = initial();
        form.set('assignee', back.assignee);
        form.set('due_date', back.due_date);
      }}
    >
      <SelectField
        form={form}
        name="assignee"
        label="Assignée à"
        options={[['', 'Personne'], ...people.map((p) => [String(p.id), p.name] as const)]}
      />
      <TextField form={form} name="due_date" label="Échéance" type="date" />
    </FormCard>
  );
}

function CommentForm({ id, onDone }: { id: Vulnerability['id']; onDone: () => void }) {
  const form = useForm({ comment: '' });
  return (
    <FormCard
      form={form}
      title="Ajouter un commentaire"
      heading="h3"
      className="triage-form"
      onSubmit={form.onSubmit(
        async ({ comment }) => {
          await addComment(id, comment.trim());
          form.set('comment', '');
          onDone();
        },
        { validate: (x) => (x.comment.trim() ? {} : { comment: 'Le commentaire est vide.' }) },
      )}
      submitLabel="Ajouter le commentaire"
      closeLabel="Effacer"
      onClose={() => form.set('comment', '')}
    >
      <TextField form={form} name="comment" label="Commentaire" multiline wide rows={2} maxLength={10_000} />
    </FormCard>
  );
}
