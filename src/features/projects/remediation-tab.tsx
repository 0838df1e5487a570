import { useId, useState, type FormEvent } from 'react';
import { DataOriginNote } from '../../components/data-origin-note.tsx';
import { DeletableRowActions } from '../../components/confirm-delete.tsx';
import { errorAria, FormActions, FormError, FormField } from '../../components/form-field.tsx';
import { ActionMessages } from '../../components/list-state.tsx';
import { ProgressBar } from '../../components/progress-bar.tsx';
import { RowAction } from '../../components/row-action.tsx';
import { currentTenantId } from '../../lib/auth/session.ts';
import {
  createAction,
  createPlan,
  deleteAction,
  deletePlan,
  listActions,
  listPlans,
  listRisks,
  updateAction,
  updateActionProgress,
  updatePlan,
  type CorrectiveAction,
  type Id,
  type PlanStatus,
  type RemediationPlan,
  type Risk,
  type Written,
} from './projects-api.ts';
import {
  formatDay,
  IMPACT_LABELS,
  label,
  levelOf,
  LIKELIHOOD_LABELS,
  PLAN_STATUS_LABELS,
  SCALE,
  RISK_FORM_MESSAGES,
  titleProblem,
  WORK_STATUS_LABELS,
  WORK_STATUS_TONE,
} from './project-rules.ts';
import {
  changedFields,
  Empty,
  LevelBadge,
  MemberSelect,
  NO_CHANGE,
  ProgressEditor,
  serverFieldErrors,
  useProjectActions,
  type TabProps,
} from './project-widgets.tsx';
import { useLoad } from './use-load.ts';

async function loadRemediation(project: Id) {
  const [risks, plans, actions] = await Promise.all([
    listRisks({ project }),
    listPlans({ project }),
    listActions({ project }),
  ]);
  return { risks, plans, actions };
}

/** Remédiation: each risk's plan with its corrective actions, their progress, and progress updates for editors. */
export function RemediationTab({ project, canEdit, onChanged }: TabProps) {
  const { state, reload } = useLoad(() => loadRemediation(project.id), `${project.id}|${currentTenantId() ?? ''}`);
  const { busy, notice, setNotice, actionError, act } = useProjectActions();
  const [creating, setCreating] = useState(false);
  const [confirming, setConfirming] = useState<string | null>(null);

  const changed = () => {
    reload();
    onChanged();
  };

  if (state.status === 'loading') return <p role="status">Chargement des plans de remédiation…</p>;
  const data = state.status === 'ready' ? state.data : null;
  const errors = data
    ? [...new Set([data.risks.error, data.plans.error, data.actions.error].filter((e): e is string => !!e))]
    : [state.status === 'error' ? state.message : 'Erreur inconnue.'];
  const risks = data?.risks.data.results ?? [];
  const plans = data?.plans.data.results ?? [];
  const actions = data?.actions.data.results ?? [];
  const riskById = new Map(risks.map((r) => [String(r.id), r]));
  const withoutPlan = risks.filter((r) => !plans.some((p) => String(p.risk) === String(r.id)));

  return (
    <div className="pj-tab">
      <div className="vm-head">
        <h3>Plans de remédiation</h3>
        {canEdit && !creating && withoutPlan.length > 0 && (
          <button type="button" className="btn primary" onClick={() => setCreating(true)}>
            Nouveau plan
          </button>
        )}
      </div>
      {data && <DataOriginNote origin={data.plans.origin} />}
      {errors.map((e) => (
        <p key={e} className="error" role="alert">
          {e}
        </p>
      ))}
      <ActionMessages notice={notice} error={actionError} />
      {canEdit && creating && (
        <PlanForm
          risks={withoutPlan}
          onClose={() => setCreating(false)}
          onSaved={(saved) => {
            setCreating(false);
            setNotice(saved.queued ? saved.message : `Plan « ${saved.data.title} » créé.`);
            changed();
          }}
        />
      )}
      {plans.length === 0 ? (
        <Empty>
          {risks.length === 0
            ? 'Aucun risque dans ce projet : créez d’abord un risque dans l’onglet Risques.'
            : 'Aucun plan de remédiation pour le moment.'}
        </Empty>
      ) : (
        <div className="pj-plans">
          {plans.map((plan) => {
            const risk = riskById.get(String(plan.risk));
            const planActions = actions.filter((a) => String(a.remediation_plan) === String(plan.id));
            return (
              <PlanCard
                key={plan.id}
                projectId={project.id}
                plan={plan}
                risk={risk}
                actions={planActions}
                canEdit={canEdit}
                busy={busy}
                confirming={confirming}
                setConfirming={setConfirming}
                onSaved={(saved, message) => {
                  setNotice(saved.queued ? saved.message : message);
                  changed();
                }}
                onProgress={(a, progress) =>
                  act(
                    `progress-${a.id}`,
                    () => updateActionProgress(a.id, progress),
                    `Progression de « ${a.title} » : ${progress} %.`,
                    changed,
                  )
                }
                onDeleteAction={(a) =>
                  act(
                    `delete-action-${a.id}`,
                    () => deleteAction(a.id),
                    `Action « ${a.title} » supprimée.`,
                    () => {
                      setConfirming(null);
                      changed();
                    },
                  )
                }
                onDeletePlan={() =>
                  act(
                    `delete-plan-${plan.id}`,
                    () => deletePlan(plan.id),
                    `Plan « ${plan.title} » supprimé.`,
                    () => {
                      setConfirming(null);
                      changed();
                    },
                  )
                }
                onAddAction={(title, due) =>
                  act(
                    `add-${plan.id}`,
                    () => createAction(plan.id, { title, due_date: due || null }),
                    `Action « ${title} » ajoutée.`,
                    changed,
                  )
                }
              />
            );
          })}
        </div>
      )}
    </div>
  );
}

function PlanCard({
  projectId,
  plan,
  risk,
  actions,
  canEdit,
  busy,
  confirming,
  setConfirming,
  onSaved,
  onProgress,
  onDeleteAction,
  onDeletePlan,
  onAddAction,
}: {
  projectId: Id;
  plan: RemediationPlan;
  risk: Risk | undefined;
  actions: CorrectiveAction[];
  canEdit: boolean;
  busy: string | null;
  confirming: string | null;
  setConfirming: (key: string | null) => void;
  /** An edit was saved (or queued): `message` is the success notice. */
  onSaved: (saved: Written<unknown>, message: string) => void;
  onProgress: (a: CorrectiveAction, progress: number) => Promise<boolean>;
  onDeleteAction: (a: CorrectiveAction) => Promise<boolean>;
  onDeletePlan: () => Promise<boolean>;
  onAddAction: (title: string, due: string) => Promise<boolean>;
}) {
  const target = plan.target_likelihood * plan.target_impact;
  const [editingPlan, setEditingPlan] = useState(false);
  const [editingAction, setEditingAction] = useState<CorrectiveAction | null>(null);
  return (
    <section className="card pj-plan" data-plan-id={plan.id} aria-label={`Plan : ${plan.title}`}>
      <div className="vm-head">
        <h4>{plan.title}</h4>
        <span className="vm-badge pending">{label(PLAN_STATUS_LABELS, plan.status)}</span>
      </div>
      <dl className="pj-plan-facts">
        <div>
          <dt>Risque</dt>
          <dd>
            {risk ? (
              <>
                {risk.title} <LevelBadge level={risk.residual_level} score={risk.residual_score} />
              </>
            ) : (
              `Risque ${plan.risk}`
            )}
          </dd>
        </div>
        <div>
          <dt>Cible</dt>
          <dd>
            V{plan.target_likelihood} × G{plan.target_impact} <LevelBadge level={levelOf(target)} score={target} />
          </dd>
        </div>
        <div>
          <dt>Échéance</dt>
          <dd>{formatDay(plan.due_date)}</dd>
        </div>
      </dl>
      <ProgressBar label={`Progression du plan ${plan.title}`} value={plan.progress ?? 0} />
      {plan.description && <p className="pj-description">{plan.description}</p>}
      {canEdit && editingPlan && (
        <PlanEditForm
          projectId={projectId}
          plan={plan}
          risk={risk}
          onClose={() => setEditingPlan(false)}
          onSaved={(saved) => {
            setEditingPlan(false);
            onSaved(saved, `Plan « ${saved.data?.title ?? plan.title} » enregistré.`);
          }}
        />
      )}

      {actions.length === 0 ? (
        <p className="muted">Aucune action corrective.</p>
      ) : (
        <div className="table-wrap">
          <table className="table">
            <caption className="visually-hidden">Actions correctives du plan {plan.title}</caption>
            <thead>
              <tr>
                <th scope="col">Action corrective</th>
                <th scope="col">Échéance</th>
                <th scope="col">Statut</th>
                <th scope="col">Progression</th>
                {canEdit && <th scope="col">Actions</th>}
              </tr>
            </thead>
            <tbody>
              {actions.map((a) => (
                <tr key={a.id} data-action-id={a.id}>
                  <th scope="row" className="pj-name">
                    {a.title}
                  </th>
                  <td>
                    {formatDay(a.due_date)}
                    {a.is_overdue && <span className="pj-late"> En retard</span>}
                  </td>
                  <td>
                    <span className={`vm-badge ${label(WORK_STATUS_TONE, a.status)}`}>
                      {label(WORK_STATUS_LABELS, a.status)}
                    </span>
                  </td>
                  <td>
                    <ProgressBar label={`Progression de ${a.title}`} value={a.progress ?? 0} />
                  </td>
                  {canEdit && (
                    <td>
                      <div className="vm-actions">
                        <ProgressEditor
                          name={a.title}
                          value={a.progress ?? 0}
                          disabled={busy === `progress-${a.id}`}
                          onSave={(p) => onProgress(a, p)}
                        />
                        <DeletableRowActions
                          name={a.title}
                          question="Supprimer cette action ?"
                          confirming={confirming === `action-${a.id}`}
                          busy={busy === `delete-action-${a.id}`}
                          onAsk={() => setConfirming(`action-${a.id}`)}
                          onConfirm={() => void onDeleteAction(a)}
                          onCancel={() => setConfirming(null)}
                        >
                          <RowAction action="edit" text="Modifier" name={a.title} onClick={() => setEditingAction(a)} />
                        </DeletableRowActions>
                      </div>
                    </td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {canEdit && editingAction && (
        <ActionEditForm
          key={editingAction.id}
          projectId={projectId}
          action={editingAction}
          onClose={() => setEditingAction(null)}
          onSaved={(saved) => {
            setEditingAction(null);
            onSaved(saved, `Action « ${saved.data?.title ?? editingAction.title} » enregistrée.`);
          }}
        />
      )}
      {canEdit && (
        <div className="pj-plan-footer">
          <AddAction busy={busy === `add-${plan.id}`} onAdd={onAddAction} />
          <DeletableRowActions
            name={plan.title}
            question="Supprimer ce plan et ses actions ?"
            confirming={confirming === `plan-${plan.id}`}
            busy={busy === `delete-plan-${plan.id}`}
            onAsk={() => setConfirming(`plan-${plan.id}`)}
            onConfirm={() => void onDeletePlan()}
            onCancel={() => setConfirming(null)}
          >
            {!editingPlan && (
              <RowAction action="edit" text="Modifier le plan" name={plan.title} onClick={() => setEditingPlan(true)} />
            )}
          </DeletableRowActions>
        </div>
      )}
    </section>
  );
}

function AddAction({ busy, onAdd }: { busy: boolean; onAdd: (title: string, due: string) => Promise<boolean> }) {
  const id = useId();
  const [title, setTitle] = useState('');
  const [due, setDue] = useState('');
  const [error, setError] = useState<string | null>(null);

  async function submit(e: FormEvent) {
    e.preventDefault();
    const problem = titleProblem(title);
    if (problem) {
      setError(problem);
      return;
    }
    setError(null);
    if (await onAdd(title.trim(), due)) {
      setTitle('');
      setDue('');
    }
  }

  return (
    <form className="pj-inline-fields" onSubmit={(e) => void submit(e)} noValidate aria-label="Ajouter une action">
      <FormField id={`${id}-t`} label="Nouvelle action" error={error}>
        <input
          id={`${id}-t`}
          value={title}
          onChange={(e) => setTitle(e.target.value)}
          {...errorAria(`${id}-t-error`, error)}
        />
      </FormField>
      <FormField id={`${id}-d`} label="Échéance">
        <input id={`${id}-d`} type="date" value={due} onChange={(e) => setDue(e.target.value)} />
      </FormField>
      <button type="submit" className="btn secondary" disabled={busy}>
        Ajouter l’action
      </button>
    </form>
  );
}

function PlanForm({
  risks,
  onSaved,
  onClose,
}: {
  risks: Risk[];
  onSaved: (result: Written<RemediationPlan>) => void;
  onClose: () => void;
}) {
  const id = useId();
  const [riskId, setRiskId] = useState(risks[0] ? String(risks[0].id) : '');
  const [title, setTitle] = useState('');
  const [description, setDescription] = useState('');
  const [tl, setTl] = useState('1');
  const [ti, setTi] = useState('1');
  const [due, setDue] = useState('');
  const [errors, setErrors] = useState<
    Partial<Record<'risk' | 'title' | 'target_likelihood' | 'target_impact', string>>
  >({});
  const [error, setError] = useState<string | null>(null);
  const [sending, setSending] = useState(false);
  const risk = risks.find((r) => String(r.id) === riskId);

  async function submit(e: FormEvent) {
    e.preventDefault();
    const found: typeof errors = {};
    if (!risk) found.risk = 'Choisissez un risque.';
    const problem = titleProblem(title);
    if (problem) found.title = problem;
    if (risk && Number(tl) > risk.likelihood)
      found.target_likelihood = RISK_FORM_MESSAGES.targetAboveLikelihood(risk.likelihood);
    if (risk && Number(ti) > risk.impact) found.target_impact = RISK_FORM_MESSAGES.targetAboveImpact(risk.impact);
    setErrors(found);
    setError(null);
    if (Object.keys(found).length > 0 || !risk) return;
    setSending(true);
    try {
      onSaved(
        await createPlan({
          risk: risk.id,
          title: title.trim(),
          description: description.trim(),
          target_likelihood: Number(tl),
          target_impact: Number(ti),
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
      <h3 id={`${id}-h`}>Nouveau plan de remédiation</h3>
      <div className="vm-form">
        <FormField id={`${id}-r`} label="Risque traité *" error={errors.risk} wide>
          <select id={`${id}-r`} value={riskId} onChange={(e) => setRiskId(e.target.value)}>
            {risks.map((r) => (
              <option key={r.id} value={String(r.id)}>
                {r.title} (V{r.likelihood} × G{r.impact})
              </option>
            ))}
          </select>
        </FormField>
        <FormField id={`${id}-t`} label="Titre *" error={errors.title} wide>
          <input
            id={`${id}-t`}
            value={title}
            onChange={(e) => setTitle(e.target.value)}
            {...errorAria(`${id}-t-error`, errors.title)}
          />
        </FormField>
        <FormField id={`${id}-tl`} label="Vraisemblance cible" error={errors.target_likelihood}>
          <select id={`${id}-tl`} value={tl} onChange={(e) => setTl(e.target.value)}>
            {SCALE.map((n) => (
              <option key={n} value={String(n)}>
                {n} — {LIKELIHOOD_LABELS[n]}
              </option>
            ))}
          </select>
        </FormField>
        <FormField id={`${id}-ti`} label="Gravité cible" error={errors.target_impact}>
          <select id={`${id}-ti`} value={ti} onChange={(e) => setTi(e.target.value)}>
            {SCALE.map((n) => (
              <option key={n} value={String(n)}>
                {n} — {IMPACT_LABELS[n]}
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
          submitLabel={sending ? 'Enregistrement…' : 'Créer le plan'}
          disabled={sending}
          closeLabel="Annuler"
          onClose={onClose}
        />
      </div>
    </form>
  );
}

const PLAN_STATUSES = Object.keys(PLAN_STATUS_LABELS) as PlanStatus[];
const PLAN_FIELDS = [
  'title',
  'description',
  'status',
  'target_likelihood',
  'target_impact',
  'owner',
  'due_date',
] as const;
type PlanErrors = Partial<Record<(typeof PLAN_FIELDS)[number], string>>;

/**
 * Edit a plan: title, description, status, targets (not above the risk's initial scores, checked here with the
 * server's messages), owner and due date. PATCH with the changed fields only.
 */
function PlanEditForm({
  projectId,
  plan,
  risk,
  onSaved,
  onClose,
}: {
  projectId: Id;
  plan: RemediationPlan;
  risk: Risk | undefined;
  onSaved: (result: Written<RemediationPlan>) => void;
  onClose: () => void;
}) {
  const id = useId();
  const [title, setTitle] = useState(plan.title);
  const [description, setDescription] = useState(plan.description ?? '');
  const [status, setStatus] = useState<PlanStatus>(plan.status);
  const [tl, setTl] = useState(String(plan.target_likelihood));
  const [ti, setTi] = useState(String(plan.target_impact));
  const [owner, setOwner] = useState<Id | null>(plan.owner ?? null);
  const [due, setDue] = useState(plan.due_date ?? '');
  const [errors, setErrors] = useState<PlanErrors>({});
  const [error, setError] = useState<string | null>(null);
  const [info, setInfo] = useState<string | null>(null);
  const [sending, setSending] = useState(false);

  async function submit(e: FormEvent) {
    e.preventDefault();
    const found: PlanErrors = {};
    const problem = titleProblem(title);
    if (problem) found.title = problem;
    if (risk && Number(tl) > risk.likelihood)
      found.target_likelihood = RISK_FORM_MESSAGES.targetAboveLikelihood(risk.likelihood);
    if (risk && Number(ti) > risk.impact) found.target_impact = RISK_FORM_MESSAGES.targetAboveImpact(risk.impact);
    setErrors(found);
    setError(null);
    setInfo(null);
    if (Object.keys(found).length > 0) return;
    const body = changedFields(plan, {
      title: title.trim(),
      description: description.trim(),
      status,
      target_likelihood: Number(tl),
      target_impact: Number(ti),
      owner,
      due_date: due || null,
    });
    if (Object.keys(body).length === 0) {
      setInfo(NO_CHANGE);
      return;
    }
    setSending(true);
    try {
      onSaved(await updatePlan(plan.id, body));
    } catch (err) {
      setErrors(serverFieldErrors(err, PLAN_FIELDS));
      setError(err instanceof Error ? err.message : 'Erreur inattendue.');
    } finally {
      setSending(false);
    }
  }

  const aria = (key: keyof PlanErrors, control: string) => errorAria(`${id}-${control}-error`, errors[key]);

  return (
    <form className="card pj-form pj-edit-form" onSubmit={(e) => void submit(e)} noValidate aria-labelledby={`${id}-h`}>
      <h4 id={`${id}-h`}>Modifier le plan « {plan.title} »</h4>
      <div className="vm-form">
        <FormField id={`${id}-t`} label="Titre *" error={errors.title} wide>
          <input id={`${id}-t`} value={title} onChange={(e) => setTitle(e.target.value)} {...aria('title', 't')} />
        </FormField>
        <FormField id={`${id}-st`} label="Statut" error={errors.status}>
          <select
            id={`${id}-st`}
            value={status}
            onChange={(e) => setStatus(e.target.value as PlanStatus)}
            {...aria('status', 'st')}
          >
            {PLAN_STATUSES.map((s) => (
              <option key={s} value={s}>
                {PLAN_STATUS_LABELS[s]}
              </option>
            ))}
          </select>
        </FormField>
        <FormField id={`${id}-tl`} label="Vraisemblance cible" error={errors.target_likelihood}>
          <select
            id={`${id}-tl`}
            value={tl}
            onChange={(e) => setTl(e.target.value)}
            {...aria('target_likelihood', 'tl')}
          >
            {SCALE.map((n) => (
              <option key={n} value={String(n)}>
                {n} — {LIKELIHOOD_LABELS[n]}
              </option>
            ))}
          </select>
        </FormField>
        <FormField id={`${id}-ti`} label="Gravité cible" error={errors.target_impact}>
          <select id={`${id}-ti`} value={ti} onChange={(e) => setTi(e.target.value)} {...aria('target_impact', 'ti')}>
            {SCALE.map((n) => (
              <option key={n} value={String(n)}>
                {n} — {IMPACT_LABELS[n]}
              </option>
            ))}
          </select>
        </FormField>
        <FormField id={`${id}-o`} label="Responsable" error={errors.owner}>
          <MemberSelect
            id={`${id}-o`}
            projectId={projectId}
            value={owner}
            onChange={setOwner}
            invalid={!!errors.owner}
            describedBy={errors.owner ? `${id}-o-error` : undefined}
          />
        </FormField>
        <FormField id={`${id}-d`} label="Échéance" error={errors.due_date}>
          <input
            id={`${id}-d`}
            type="date"
            value={due}
            onChange={(e) => setDue(e.target.value)}
            {...aria('due_date', 'd')}
          />
        </FormField>
        <FormField id={`${id}-desc`} label="Description" error={errors.description} wide>
          <textarea
            id={`${id}-desc`}
            value={description}
            onChange={(e) => setDescription(e.target.value)}
            {...aria('description', 'desc')}
          />
        </FormField>
        {info && (
          <p className="muted vm-wide" role="status">
            {info}
          </p>
        )}
        <FormError error={error} />
        <FormActions
          submitLabel={sending ? 'Enregistrement…' : 'Enregistrer le plan'}
          disabled={sending}
          closeLabel="Annuler"
          onClose={onClose}
        />
      </div>
    </form>
  );
}

const ACTION_FIELDS = ['title', 'description', 'assignee', 'due_date'] as const;
type ActionErrors = Partial<Record<(typeof ACTION_FIELDS)[number], string>>;

/** Edit a corrective action: title, description, assignee and due date. PATCH with the changed fields only. */
function ActionEditForm({
  projectId,
  action,
  onSaved,
  onClose,
}: {
  projectId: Id;
  action: CorrectiveAction;
  onSaved: (result: Written<CorrectiveAction>) => void;
  onClose: () => void;
}) {
  const id = useId();
  const [title, setTitle] = useState(action.title);
  const [description, setDescription] = useState(action.description ?? '');
  const [assignee, setAssignee] = useState<Id | null>(action.assignee ?? null);
  const [due, setDue] = useState(action.due_date ?? '');
  const [errors, setErrors] = useState<ActionErrors>({});
  const [error, setError] = useState<string | null>(null);
  const [info, setInfo] = useState<string | null>(null);
  const [sending, setSending] = useState(false);

  async function submit(e: FormEvent) {
    e.preventDefault();
    const problem = titleProblem(title);
    setErrors(problem ? { title: problem } : {});
    setError(null);
    setInfo(null);
    if (problem) return;
    const body = changedFields(action, {
      title: title.trim(),
      description: description.trim(),
      assignee,
      due_date: due || null,
    });
    if (Object.keys(body).length === 0) {
      setInfo(NO_CHANGE);
      return;
    }
    setSending(true);
    try {
      onSaved(await updateAction(action.id, body));
    } catch (err) {
      setErrors(serverFieldErrors(err, ACTION_FIELDS));
      setError(err instanceof Error ? err.message : 'Erreur inattendue.');
    } finally {
      setSending(false);
    }
  }

  const aria = (key: keyof ActionErrors, control: string) => errorAria(`${id}-${control}-error`, errors[key]);

  return (
    <form className="card pj-form pj-edit-form" onSubmit={(e) => void submit(e)} noValidate aria-labelledby={`${id}-h`}>
      <h4 id={`${id}-h`}>Modifier l’action « {action.title} »</h4>
      <div className="vm-form">
        <FormField id={`${id}-t`} label="Titre *" error={errors.title} wide>
          <input id={`${id}-t`} value={title} onChange={(e) => setTitle(e.target.value)} {...aria('title', 't')} />
        </FormField>
        <FormField id={`${id}-a`} label="Attribuée à" error={errors.assignee}>
          <MemberSelect
            id={`${id}-a`}
            projectId={projectId}
            value={assignee}
            onChange={setAssignee}
            invalid={!!errors.assignee}
            describedBy={errors.assignee ? `${id}-a-error` : undefined}
          />
        </FormField>
        <FormField id={`${id}-d`} label="Échéance" error={errors.due_date}>
          <input
            id={`${id}-d`}
            type="date"
            value={due}
            onChange={(e) => setDue(e.target.value)}
            {...aria('due_date', 'd')}
          />
        </FormField>
        <FormField id={`${id}-desc`} label="Description" error={errors.description} wide>
          <textarea
            id={`${id}-desc`}
            value={description}
            onChange={(e) => setDescription(e.target.value)}
            {...aria('description', 'desc')}
          />
        </FormField>
        {info && (
          <p className="muted vm-wide" role="status">
            {info}
          </p>
        )}
        <FormError error={error} />
        <FormActions
          submitLabel={sending ? 'Enregistrement…' : 'Enregistrer l’action'}
          disabled={sending}
          closeLabel="Annuler"
          onClose={onClose}
        />
      </div>
    </form>
  );
}
