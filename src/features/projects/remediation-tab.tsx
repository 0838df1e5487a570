import { useState } from 'react';
import { DataOriginNote } from '../../components/data-origin-note.tsx';
import { DataTable } from '../../components/data-table.tsx';
import { DeletableRowActions } from '../../components/confirm-delete.tsx';
import { ActionMessages, EmptyState } from '../../components/list-state.tsx';
import { ProgressBar } from '../../components/progress-bar.tsx';
import { RowAction } from '../../components/row-action.tsx';
import {
  createAction,
  deleteAction,
  deletePlan,
  listPlanActions,
  listPlans,
  listRisks,
  updateActionProgress,
} from './projects-api.ts';
import type { Written } from './project-http.ts';
import type { CorrectiveAction, Id, RemediationPlan, Risk } from './project-types.ts';
import {
  formatDay,
  label,
  levelOf,
  PLAN_STATUS_LABELS,
  WORK_STATUS_LABELS,
  WORK_STATUS_TONE,
} from './project-rules.ts';
import { LevelBadge, ProgressEditor } from './project-widgets.tsx';
import { TabHead, useProjectActions, useProjectResource, type TabProps } from './project-tab.tsx';
import { ActionEditForm, AddAction, PlanEditForm, PlanForm } from './remediation-forms.tsx';

/**
 * The project's risks and plans, then each plan's actions (GET /remediation-plans/{planId}/actions/, spec §7: all of
 * a plan's actions, unpaged); each list's failure is said once.
 */
async function loadRemediation(project: Id) {
  const [risks, plans] = await Promise.all([listRisks({ project }), listPlans({ project })]);
  const ofPlans = await Promise.all(plans.data.results.map((plan) => listPlanActions(plan.id)));
  const errors = [
    ...new Set([risks.error, plans.error, ...ofPlans.map((a) => a.error)].filter((e): e is string => !!e)),
  ];
  return {
    data: {
      risks: risks.data.results,
      plans: plans.data.results,
      /** Each plan's actions, by the plan's id. */
      actions: new Map(plans.data.results.map((plan, i) => [String(plan.id), ofPlans[i]!.data.results])),
    },
    origin: plans.origin,
    error: errors.join('\n') || null,
  };
}

/** Remédiation: each risk's plan with its corrective actions, their progress, and progress updates for editors. */
export function RemediationTab({ project, canEdit, onChanged }: TabProps) {
  const remediation = useProjectResource(() => loadRemediation(project.id), [project.id]);
  const { busy, notice, setNotice, actionError, act } = useProjectActions();
  const [creating, setCreating] = useState(false);
  const [confirming, setConfirming] = useState<string | null>(null);

  const changed = () => {
    void remediation.refresh();
    onChanged();
  };

  if (remediation.loading) return <p role="status">Chargement des plans de remédiation…</p>;
  const { risks = [], plans = [], actions = new Map<string, CorrectiveAction[]>() } = remediation.data ?? {};
  const riskById = new Map(risks.map((r) => [String(r.id), r]));
  const withoutPlan = risks.filter((r) => !plans.some((p) => String(p.risk) === String(r.id)));
  const deleted = (key: string, call: () => Promise<Written<unknown>>, success: string) =>
    act(key, call, success, () => {
      setConfirming(null);
      changed();
    });

  return (
    <div className="pj-tab">
      <TabHead
        title="Plans de remédiation"
        action={canEdit && !creating && withoutPlan.length > 0 && 'Nouveau plan'}
        onAction={() => setCreating(true)}
      />
      <DataOriginNote origin={remediation.origin} />
      {remediation.error?.split('\n').map((e) => (
        <ActionMessages key={e} error={e} />
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
        <EmptyState>
          {risks.length === 0
            ? 'Aucun risque dans ce projet : créez d’abord un risque dans l’onglet Risques.'
            : 'Aucun plan de remédiation pour le moment.'}
        </EmptyState>
      ) : (
        <div className="pj-plans">
          {plans.map((plan) => (
            <PlanCard
              key={plan.id}
              projectId={project.id}
              plan={plan}
              risk={riskById.get(String(plan.risk))}
              actions={actions.get(String(plan.id)) ?? []}
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
                deleted(`delete-action-${a.id}`, () => deleteAction(a.id), `Action « ${a.title} » supprimée.`)
              }
              onDeletePlan={() =>
                deleted(`delete-plan-${plan.id}`, () => deletePlan(plan.id), `Plan « ${plan.title} » supprimé.`)
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
          ))}
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
        <DataTable
          caption={`Actions correctives du plan ${plan.title}`}
          headers={['Action corrective', 'Échéance', 'Statut', 'Progression']}
          actions={canEdit}
        >
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
        </DataTable>
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
