import { useId, useState, type FormEvent } from 'react';
import { errorAria, FormActions, FormError, FormField } from '../../components/form-field.tsx';
import {
  createRisk,
  updateRisk,
  type Id,
  type Risk,
  type RiskInput,
  type RiskStatus,
  type RiskTreatment,
  type Written,
} from './projects-api.ts';
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
  type RiskDraft,
} from './project-rules.ts';
import { messageOf } from '../../lib/error-message.ts';
import { changedFields, LevelBadge, MemberSelect, NO_CHANGE, serverFieldErrors } from './project-widgets.tsx';

const FIELDS = ['title', 'description', 'scenario', 'likelihood', 'impact', 'treatment', 'status', 'owner'] as const;
type Errors = Partial<Record<(typeof FIELDS)[number], string>>;

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
  const id = useId();
  const [title, setTitle] = useState(risk?.title ?? '');
  const [description, setDescription] = useState(risk?.description ?? '');
  const [scenario, setScenario] = useState(risk?.scenario ?? '');
  const [likelihood, setLikelihood] = useState(String(risk?.likelihood ?? 2));
  const [impact, setImpact] = useState(String(risk?.impact ?? 2));
  const [treatment, setTreatment] = useState<RiskTreatment>(risk?.treatment ?? 'REDUCE');
  const [status, setStatus] = useState<RiskStatus>(risk?.status ?? 'IDENTIFIED');
  const [owner, setOwner] = useState<Id | null>(risk?.owner ?? null);
  const [info, setInfo] = useState<string | null>(null);
  const [errors, setErrors] = useState<Errors>({});
  const [error, setError] = useState<string | null>(null);
  const [sending, setSending] = useState(false);

  async function submit(e: FormEvent) {
    e.preventDefault();
    const draft: RiskDraft = { title, likelihood, impact };
    const found = validateRisk(draft);
    setErrors(found);
    setError(null);
    setInfo(null);
    if (Object.keys(found).length > 0) return;
    const body: RiskInput = {
      title: title.trim(),
      description: description.trim(),
      scenario: scenario.trim(),
      likelihood: Number(likelihood),
      impact: Number(impact),
      treatment,
      status,
    };
    const changes = risk ? changedFields(risk, { ...body, owner }) : null;
    if (changes && Object.keys(changes).length === 0) {
      setInfo(NO_CHANGE);
      return;
    }
    setSending(true);
    try {
      onSaved(
        risk && changes
          ? await updateRisk(risk.id, changes)
          : await createRisk({ ...body, project: projectId, ...(owner !== null ? { owner } : {}) }),
      );
    } catch (err) {
      setErrors(serverFieldErrors(err, FIELDS));
      setError(messageOf(err));
    } finally {
      setSending(false);
    }
  }

  const score = Number(likelihood) * Number(impact);
  const aria = (name: keyof Errors) => errorAria(`${id}-${name}-error`, errors[name]);

  return (
    <form className="card pj-form" onSubmit={(e) => void submit(e)} noValidate aria-labelledby={`${id}-title`}>
      <h3 id={`${id}-title`}>{risk ? `Modifier « ${risk.title} »` : 'Nouveau risque'}</h3>
      <div className="vm-form">
        <FormField id={`${id}-t`} label="Titre *" error={errors.title} errorId={`${id}-title-error`} wide>
          <input id={`${id}-t`} value={title} required onChange={(e) => setTitle(e.target.value)} {...aria('title')} />
        </FormField>
        <FormField id={`${id}-l`} label="Vraisemblance" error={errors.likelihood} errorId={`${id}-likelihood-error`}>
          <select
            id={`${id}-l`}
            value={likelihood}
            onChange={(e) => setLikelihood(e.target.value)}
            {...aria('likelihood')}
          >
            {SCALE.map((n) => (
              <option key={n} value={String(n)}>
                {n} — {LIKELIHOOD_LABELS[n]}
              </option>
            ))}
          </select>
        </FormField>
        <FormField id={`${id}-i`} label="Gravité" error={errors.impact} errorId={`${id}-impact-error`}>
          <select id={`${id}-i`} value={impact} onChange={(e) => setImpact(e.target.value)} {...aria('impact')}>
            {SCALE.map((n) => (
              <option key={n} value={String(n)}>
                {n} — {IMPACT_LABELS[n]}
              </option>
            ))}
          </select>
        </FormField>
        <div className="vm-field">
          <span>Niveau initial</span>
          <span aria-live="polite">
            {Number.isFinite(score) && <LevelBadge level={levelOf(score)} score={score} />}
          </span>
        </div>
        <FormField id={`${id}-tr`} label="Traitement" error={errors.treatment} errorId={`${id}-treatment-error`}>
          <select id={`${id}-tr`} value={treatment} onChange={(e) => setTreatment(e.target.value as RiskTreatment)}>
            {TREATMENTS.map((t) => (
              <option key={t} value={t}>
                {TREATMENT_LABELS[t]}
              </option>
            ))}
          </select>
        </FormField>
        <FormField id={`${id}-st`} label="Statut" error={errors.status} errorId={`${id}-status-error`}>
          <select id={`${id}-st`} value={status} onChange={(e) => setStatus(e.target.value as RiskStatus)}>
            {RISK_STATUSES.map((s) => (
              <option key={s} value={s}>
                {RISK_STATUS_LABELS[s]}
              </option>
            ))}
          </select>
        </FormField>
        <FormField id={`${id}-o`} label="Propriétaire du risque" error={errors.owner} errorId={`${id}-owner-error`}>
          <MemberSelect
            id={`${id}-o`}
            projectId={projectId}
            value={owner}
            onChange={setOwner}
            invalid={!!errors.owner}
            describedBy={errors.owner ? `${id}-owner-error` : undefined}
          />
        </FormField>
        <FormField id={`${id}-sc`} label="Scénario" error={errors.scenario} errorId={`${id}-scenario-error`} wide>
          <textarea
            id={`${id}-sc`}
            value={scenario}
            onChange={(e) => setScenario(e.target.value)}
            {...aria('scenario')}
          />
        </FormField>
        <FormField
          id={`${id}-d`}
          label="Description"
          error={errors.description}
          errorId={`${id}-description-error`}
          wide
        >
          <textarea
            id={`${id}-d`}
            value={description}
            onChange={(e) => setDescription(e.target.value)}
            {...aria('description')}
          />
        </FormField>
        {info && (
          <p className="muted vm-wide" role="status">
            {info}
          </p>
        )}
        <FormError error={error} />
        <FormActions
          submitLabel={sending ? 'Enregistrement…' : risk ? 'Enregistrer' : 'Créer le risque'}
          disabled={sending}
          closeLabel="Annuler"
          onClose={onClose}
        />
      </div>
    </form>
  );
}
