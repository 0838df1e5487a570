import { FormCard, SelectField, TextField } from '../../components/form-field.tsx';
import { optionsOf } from '../../components/select.tsx';
import { useForm } from '../../lib/use-form.ts';
import { createRisk, updateRisk } from './projects-api.ts';
import type { Written } from './project-http.ts';
import type { Id, Risk, RiskInput } from './project-types.ts';
import {
  IMPACT_LABELS,
  levelOf,
  LIKELIHOOD_LABELS,
  RISK_STATUS_LABELS,
  RISK_STATUSES,
  SCALE,
  TREATMENT_LABELS,
  TREATMENTS,
  validateRisk,
} from './project-rules.ts';
import { LevelBadge, MemberField } from './project-widgets.tsx';
import { saveChanges } from './project-tab.tsx';

/**
 * Create (no `risk`) or edit a risk: vraisemblance and gravité on the 1–4 scales, treatment, status and owner (a
 * team member). Editing sends (PATCH) only the changed fields.
 */
export function RiskForm({
  projectId,
  risk,
  onSaved,
  onClose,
}: {
  projectId: Id;
  risk?: Risk | undefined;
  onSaved: (result: Written<Risk>) => void;
  onClose: () => void;
}) {
  const form = useForm({
    title: risk?.title ?? '',
    likelihood: String(risk?.likelihood ?? 2),
    impact: String(risk?.impact ?? 2),
    treatment: risk?.treatment ?? 'REDUCE',
    status: risk?.status ?? 'IDENTIFIED',
    owner: risk?.owner ?? (null as Id | null),
    scenario: risk?.scenario ?? '',
    description: risk?.description ?? '',
  });
  const { values } = form;

  const send = async () => {
    const body: RiskInput = {
      title: values.title.trim(),
      description: values.description.trim(),
      scenario: values.scenario.trim(),
      likelihood: Number(values.likelihood),
      impact: Number(values.impact),
      treatment: values.treatment,
      status: values.status,
    };
    if (risk)
      return saveChanges(
        form,
        risk,
        { ...body, owner: values.owner },
        (changes) => updateRisk(risk.id, changes),
        onSaved,
      );
    onSaved(
      await createRisk({ ...body, project: projectId, ...(values.owner !== null ? { owner: values.owner } : {}) }),
    );
  };

  const score = Number(values.likelihood) * Number(values.impact);
  const scale = (labels: Record<number, string>) => SCALE.map((n) => [String(n), `${n} — ${labels[n]}`] as const);

  return (
    <FormCard
      form={form}
      title={risk ? `Modifier « ${risk.title} »` : 'Nouveau risque'}
      onSubmit={form.onSubmit(send, { validate: validateRisk })}
      submitLabel={risk ? 'Enregistrer' : 'Créer le risque'}
      onClose={onClose}
    >
      <TextField form={form} name="title" label="Titre *" required wide />
      <SelectField form={form} name="likelihood" label="Vraisemblance" options={scale(LIKELIHOOD_LABELS)} />
      <SelectField form={form} name="impact" label="Gravité" options={scale(IMPACT_LABELS)} />
      <div className="vm-field">
        <span>Niveau initial</span>
        <span aria-live="polite">{Number.isFinite(score) && <LevelBadge level={levelOf(score)} score={score} />}</span>
      </div>
      <SelectField form={form} name="treatment" label="Traitement" options={optionsOf(TREATMENT_LABELS, TREATMENTS)} />
      <SelectField form={form} name="status" label="Statut" options={optionsOf(RISK_STATUS_LABELS, RISK_STATUSES)} />
      <MemberField form={form} name="owner" label="Propriétaire du risque" projectId={projectId} />
      <TextField form={form} name="scenario" label="Scénario" multiline wide />
      <TextField form={form} name="description" label="Description" multiline wide />
    </FormCard>
  );
}
