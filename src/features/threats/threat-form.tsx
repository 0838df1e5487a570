import { useId, useState, type FormEvent } from 'react';
import { ApiError } from '../../lib/api-client.ts';
import { errorAria, FormActions, FormError, FormField } from '../../components/form-field.tsx';
import { createThreat, updateThreat, type Severity, type Threat, type ThreatStatus } from './threats-api.ts';
import {
  failureReason,
  SEVERITIES,
  SEVERITY_LABELS,
  THREAT_STATUS_LABELS,
  THREAT_TYPES,
  validateThreat,
  type ThreatFieldErrors,
} from './threat-rules.ts';

/** The field messages of a refused save, on the fields this form has. */
function fieldErrors(fields: Record<string, string[]>): ThreatFieldErrors {
  const mapped: ThreatFieldErrors = {};
  for (const key of ['title', 'cve_id', 'asset_id'] as const) {
    const first = fields[key]?.[0];
    if (first) mapped[key] = first;
  }
  return mapped;
}

/**
 * Create (no `threat`) or edit a threat. A save that fails keeps everything typed and says so; `note` tells what
 * the form started from when it is not the server's current version.
 */
export function ThreatForm({
  threat,
  note = null,
  onSaved,
  onClose,
}: {
  threat?: Threat | undefined;
  note?: string | null;
  onSaved: (threat: Threat) => void;
  onClose: () => void;
}) {
  const id = useId();
  const [title, setTitle] = useState(threat?.title ?? '');
  const [description, setDescription] = useState(threat?.description ?? '');
  const [threatType, setThreatType] = useState(threat?.threat_type ?? 'other');
  const [severity, setSeverity] = useState<Severity>(threat?.severity ?? 'medium');
  const [status, setStatus] = useState<ThreatStatus>(threat?.status ?? 'ACTIVE');
  const [source, setSource] = useState(threat?.source ?? '');
  const [cveId, setCveId] = useState(threat?.cve_id ?? '');
  const [assetId, setAssetId] = useState(
    threat?.asset_id === null || threat?.asset_id === undefined ? '' : String(threat.asset_id),
  );
  const [errors, setErrors] = useState<ThreatFieldErrors>({});
  const [error, setError] = useState<string | null>(null);
  const [sending, setSending] = useState(false);

  async function submit(e: FormEvent) {
    e.preventDefault();
    const found = validateThreat({ title, cve_id: cveId, asset_id: assetId });
    setErrors(found);
    setError(null);
    if (Object.keys(found).length > 0) return;
    setSending(true);
    const body = {
      title: title.trim(),
      description: description.trim(),
      threat_type: threatType,
      severity,
      status,
      source: source.trim(),
      cve_id: cveId.trim() ? cveId.trim().toUpperCase() : null,
      asset_id: assetId.trim() ? Number(assetId.trim()) : null,
    };
    try {
      const answer = threat ? await updateThreat(threat.id, body) : await createThreat(body);
      if (!answer.failed && answer.data) {
        onSaved(answer.data);
        return;
      }
      // §7: the save gave null. Nothing typed is lost; the user may correct it or try again.
      const what = threat ? 'L’enregistrement de la menace a échoué' : 'La création de la menace a échoué';
      const why = answer.failed ? failureReason(answer.status, answer.message) : 'réponse vide du serveur';
      setErrors(answer.failed ? fieldErrors(answer.fields) : {});
      setError(`${what} : ${why}. Vos saisies sont conservées.`);
    } catch (err) {
      // 401 and 403 are thrown as before.
      if (err instanceof ApiError) {
        setErrors(fieldErrors(err.fields));
        setError(err.message);
      } else setError('Erreur inattendue.');
    } finally {
      setSending(false);
    }
  }

  const field = (name: keyof ThreatFieldErrors) => errorAria(`${id}-${name}-error`, errors[name]);

  return (
    <form className="card" onSubmit={(e) => void submit(e)} noValidate aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>{threat ? `Modifier « ${threat.title} »` : 'Nouvelle menace'}</h2>
      {note && (
        <p className="notice warn" role="status">
          {note}
        </p>
      )}
      <div className="vm-form">
        <FormField id={`${id}-t`} label="Titre *" error={errors.title} errorId={`${id}-title-error`} wide>
          <input id={`${id}-t`} value={title} required onChange={(e) => setTitle(e.target.value)} {...field('title')} />
        </FormField>
        <FormField id={`${id}-type`} label="Type">
          <select id={`${id}-type`} value={threatType} onChange={(e) => setThreatType(e.target.value)}>
            {!(threatType in THREAT_TYPES) && <option value={threatType}>{threatType}</option>}
            {Object.entries(THREAT_TYPES).map(([value, text]) => (
              <option key={value} value={value}>
                {text}
              </option>
            ))}
          </select>
        </FormField>
        <FormField id={`${id}-sev`} label="Gravité">
          <select id={`${id}-sev`} value={severity} onChange={(e) => setSeverity(e.target.value as Severity)}>
            {SEVERITIES.map((s) => (
              <option key={s} value={s}>
                {SEVERITY_LABELS[s]}
              </option>
            ))}
          </select>
        </FormField>
        <FormField id={`${id}-st`} label="Statut">
          <select id={`${id}-st`} value={status} onChange={(e) => setStatus(e.target.value as ThreatStatus)}>
            {Object.entries(THREAT_STATUS_LABELS).map(([value, text]) => (
              <option key={value} value={value}>
                {text}
              </option>
            ))}
          </select>
        </FormField>
        <FormField id={`${id}-src`} label="Source">
          <input id={`${id}-src`} value={source} onChange={(e) => setSource(e.target.value)} />
        </FormField>
        <FormField id={`${id}-cve`} label="CVE liée" error={errors.cve_id} errorId={`${id}-cve_id-error`}>
          <input
            id={`${id}-cve`}
            value={cveId}
            placeholder="CVE-2024-3094"
            onChange={(e) => setCveId(e.target.value)}
            {...field('cve_id')}
          />
        </FormField>
        <FormField
          id={`${id}-asset`}
          label="Identifiant de l’actif"
          error={errors.asset_id}
          errorId={`${id}-asset_id-error`}
        >
          <input
            id={`${id}-asset`}
            value={assetId}
            inputMode="numeric"
            onChange={(e) => setAssetId(e.target.value)}
            {...field('asset_id')}
          />
        </FormField>
        <FormField id={`${id}-desc`} label="Description" wide>
          <textarea id={`${id}-desc`} value={description} onChange={(e) => setDescription(e.target.value)} />
        </FormField>
        <FormError error={error} />
        <FormActions
          submitLabel={sending ? 'Enregistrement…' : threat ? 'Enregistrer' : 'Créer la menace'}
          disabled={sending}
          closeLabel="Annuler"
          onClose={onClose}
        />
      </div>
    </form>
  );
}
