import { FormCard, SelectField, TextField } from '../../components/form-field.tsx';
import { optionsOf } from '../../components/select.tsx';
import { useForm, type FieldErrors } from '../../lib/use-form.ts';
import { createPlan, updateAction, updatePlan } from './projects-api.ts';
import type { Written } from './project-http.ts';
import type { CorrectiveAction, Id, RemediationPlan, Risk } from './project-types.ts';
import {
  IMPACT_LABELS,
  LIKELIHOOD_LABELS,
  PLAN_STATUS_LABELS,
  PLAN_STATUSES,
  RISK_FORM_MESSAGES,
  SCALE,
  titleErrors,
} from './project-rules.ts';
import { MemberField } from './project-widgets.tsx';
import { saveChanges } from './project-tab.tsx';

const LIKELIHOODS = SCALE.map((n) => [String(n), `${n} — ${LIKELIHOOD_LABELS[n]}`] as const);
const IMPACTS = SCALE.map((n) => [String(n), `${n} — ${IMPACT_LABELS[n]}`] as const);

/** A plan's target scores may not exceed its risk's initial ones (the server's messages). */
function targetErrors(risk: Risk | undefined, tl: string, ti: string): FieldErrors {
  const found: FieldErrors = {};
  if (risk && Number(tl) > risk.likelihood)
    found.target_likelihood = RISK_FORM_MESSAGES.targetAboveLikelihood(risk.likelihood);
  if (risk && Number(ti) > risk.impact) found.target_impact = RISK_FORM_MESSAGES.targetAboveImpact(risk.impact);
  return found;
}

/** Adds a corrective action to a plan (`onAdd` says whether it was added): a title and an optional due date. */
export function AddAction({ busy, onAdd }: { busy: boolean; onAdd: (title: string, due: string) => Promise<boolean> }) {
  const form = useForm({ title: '', due_date: '' });
  const send = async () => {
    if (await onAdd(form.values.title.trim(), form.values.due_date)) form.setValues({ title: '', due_date: '' });
  };
  return (
    <form
      className="pj-inline-fields"
      onSubmit={form.onSubmit(send, { validate: (v) => titleErrors(v.title) })}
      noValidate
      aria-label="Ajouter une action"
    >
      <TextField form={form} name="title" label="Nouvelle action" />
      <TextField form={form} name="due_date" label="Échéance" type="date" />
      <button type="submit" className="btn secondary" disabled={busy}>
        Ajouter l’action
      </button>
    </form>
  );
}

/** A new plan for one of the risks that have none: title, targets (not above the risk's scores), due date. */
export function PlanForm({
  risks,
  onSaved,
  onClose,
}: {
  risks: Risk[];
  onSaved: (result: Written<RemediationPlan>) => void;
  onClose: () => void;
}) {
  const form = useForm({
    risk: risks[0] ? String(risks[0].id) : '',
    title: '',
    description: '',
    target_likelihood: '1',
    target_impact: '1',
    due_date: '',
  });
  const { values } = form;
  const risk = risks.find((r) => String(r.id) === values.risk);

  const validate = () => ({
    ...(risk ? {} : { risk: 'Choisissez un risque.' }),
    ...titleErrors(values.title),
    ...targetErrors(risk, values.target_likelihood, values.target_impact),
  });
  const send = async () =>
    onSaved(
      await createPlan({
        risk: risk!.id,
        title: values.title.trim(),
        description: values.description.trim(),
        target_likelihood: Number(values.target_likelihood),
        target_impact: Number(values.target_impact),
        due_date: values.due_date || null,
      }),
    );

  return (
    <FormCard
      form={form}
      title="Nouveau plan de remédiation"
      onSubmit={form.onSubmit(send, { validate })}
      submitLabel="Créer le plan"
      onClose={onClose}
    >
      <SelectField
        form={form}
        name="risk"
        label="Risque traité *"
        wide
        options={risks.map((r) => [String(r.id), `${r.title} (V${r.likelihood} × G${r.impact})`] as const)}
      />
      <TextField form={form} name="title" label="Titre *" wide />
      <SelectField form={form} name="target_likelihood" label="Vraisemblance cible" options={LIKELIHOODS} />
      <SelectField form={form} name="target_impact" label="Gravité cible" options={IMPACTS} />
      <TextField form={form} name="due_date" label="Échéance" type="date" />
      <TextField form={form} name="description" label="Description" multiline wide />
    </FormCard>
  );
}

/**
 * Edit a plan: title, description, status, targets (not above the risk's initial scores, checked here with the
 * server's messages), owner and due date. PATCH with the changed fields only.
 */
export function PlanEditForm({
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
  const form = useForm({
    title: plan.title,
    status: plan.status,
    target_likelihood: String(plan.target_likelihood),
    target_impact: String(plan.target_impact),
    owner: plan.owner ?? (null as Id | null),
    due_date: plan.due_date ?? '',
    description: plan.description ?? '',
  });
  const { values } = form;

  const validate = () => ({
    ...titleErrors(values.title),
    ...targetErrors(risk, values.target_likelihood, values.target_impact),
  });
  const send = () =>
    saveChanges(
      form,
      plan,
      {
        title: values.title.trim(),
        description: values.description.trim(),
        status: values.status,
        target_likelihood: Number(values.target_likelihood),
        target_impact: Number(values.target_impact),
        owner: values.owner,
        due_date: values.due_date || null,
      },
      (changes) => updatePlan(plan.id, changes),
      onSaved,
    );

  return (
    <FormCard
      form={form}
      title={`Modifier le plan « ${plan.title} »`}
      heading="h4"
      className="card pj-form pj-edit-form"
      onSubmit={form.onSubmit(send, { validate })}
      submitLabel="Enregistrer le plan"
      onClose={onClose}
    >
      <TextField form={form} name="title" label="Titre *" wide />
      <SelectField form={form} name="status" label="Statut" options={optionsOf(PLAN_STATUS_LABELS, PLAN_STATUSES)} />
      <SelectField form={form} name="target_likelihood" label="Vraisemblance cible" options={LIKELIHOODS} />
      <SelectField form={form} name="target_impact" label="Gravité cible" options={IMPACTS} />
      <MemberField form={form} name="owner" label="Responsable" projectId={projectId} />
      <TextField form={form} name="due_date" label="Échéance" type="date" />
      <TextField form={form} name="description" label="Description" multiline wide />
    </FormCard>
  );
}

/** Edit a corrective action: title, description, assignee and due date. PATCH with the changed fields only. */
export function ActionEditForm({
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
  const form = useForm({
    title: action.title,
    assignee: action.assignee ?? (null as Id | null),
    due_date: action.due_date ?? '',
    description: action.description ?? '',
  });
  const { values } = form;
  const send = () =>
    saveChanges(
      form,
      action,
      {
        title: values.title.trim(),
        description: values.description.trim(),
        assignee: values.assignee,
        due_date: values.due_date || null,
      },
      (changes) => updateAction(action.id, changes),
      onSaved,
    );

  return (
    <FormCard
      form={form}
      title={`Modifier l’action « ${action.title} »`}
      heading="h4"
      className="card pj-form pj-edit-form"
      onSubmit={form.onSubmit(send, { validate: (v) => titleErrors(v.title) })}
      submitLabel="Enregistrer l’action"
      onClose={onClose}
    >
      <TextField form={form} name="title" label="Titre *" wide />
      <MemberField form={form} name="assignee" label="Attribuée à" projectId={projectId} />
      <TextField form={form} name="due_date" label="Échéance" type="date" />
      <TextField form={form} name="description" label="Description" multiline wide />
    </FormCard>
  );
}
