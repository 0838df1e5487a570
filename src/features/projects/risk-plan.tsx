import { Link } from 'wouter';
import { ActionMessages } from '../../components/list-state.tsx';
import { ProgressBar } from '../../components/progress-bar.tsx';
import { getRiskPlan } from './projects-api.ts';
import type { Risk } from './project-types.ts';
import { formatDay, label, levelOf, NUMBER, PLAN_STATUS_LABELS } from './project-rules.ts';
import { LevelBadge } from './project-widgets.tsx';
import { useProjectResource } from './project-tab.tsx';

/**
 * A risk's remediation plan as the risk gives it (GET /projects/risks/{riskId}/remediation-plan/): its title,
 * status, target, progress, due date and number of actions; the plan is worked on in the « Remédiation » tab.
 */
export function RiskPlan({ risk }: { risk: Risk }) {
  const plan = useProjectResource(() => getRiskPlan(risk.id), [risk.id]);
  if (plan.loading) return <p role="status">Chargement du plan de remédiation…</p>;
  if (plan.state.status === 'error') return <ActionMessages error={plan.error} />;
  const p = plan.data;
  if (!p) return <p className="muted">Ce risque n’a pas de plan de remédiation.</p>;
  const target = p.target_likelihood * p.target_impact;
  return (
    <>
      <h5>{p.title}</h5>
      <dl className="pj-plan-facts">
        <div>
          <dt>Statut</dt>
          <dd>{label(PLAN_STATUS_LABELS, p.status)}</dd>
        </div>
        <div>
          <dt>Cible</dt>
          <dd>
            V{p.target_likelihood} × G{p.target_impact} <LevelBadge level={levelOf(target)} score={target} />
          </dd>
        </div>
        <div>
          <dt>Échéance</dt>
          <dd>{formatDay(p.due_date)}</dd>
        </div>
        <div>
          <dt>Actions correctives</dt>
          <dd>{NUMBER.format(p.actions_count ?? 0)}</dd>
        </div>
      </dl>
      <ProgressBar label={`Progression du plan ${p.title}`} value={p.progress ?? 0} />
      {p.description && <p className="pj-description">{p.description}</p>}
      <p>
        <Link href={`/projects/${encodeURIComponent(String(p.project ?? risk.project))}?tab=remediation`}>
          Voir le plan dans l’onglet Remédiation
        </Link>
      </p>
    </>
  );
}
