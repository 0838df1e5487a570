import { FormCard, SelectField, TextField } from '../../components/form-field.tsx';
import { optionsOf } from '../../components/select.tsx';
import { UserMessageError } from '../../lib/error-message.ts';
import { fieldErrorsOf, fieldMessages, textsOf, useForm, type FieldErrors } from '../../lib/use-form.ts';
import { createThreat, updateThreat, type Threat } from './threats-api.ts';
import {
  failureReason,
  SEVERITIES,
  SEVERITY_LABELS,
  THREAT_STATUS_LABELS,
  THREAT_TYPES,
  validateThreat,
} from './threat-rules.ts';

/** The fields whose server messages this form shows. */
const FIELDS = ['title', 'cve_id', 'asset_id'] as const;

/** A save the API answered with its spec §7 fallback: the French reason, and the server's field messages. */
class SaveFailed extends UserMessageError {
  constructor(
    message: string,
    readonly fields: FieldErrors,
  ) {
    super(message);
  }
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
  const form = useForm({
    ...textsOf(threat, ['title', 'source', 'cve_id', 'description']),
    threat_type: threat?.threat_type ?? 'other',
    severity: threat?.severity ?? 'medium',
    status: threat?.status ?? 'ACTIVE',
    asset_id: threat?.asset_id === null || threat?.asset_id === undefined ? '' : String(threat.asset_id),
  });
  const { values } = form;

  const send = async () => {
    const cve = values.cve_id.trim();
    const asset = values.asset_id.trim();
    const body = {
      title: values.title.trim(),
      description: values.description.trim(),
      threat_type: values.threat_type,
      severity: values.severity,
      status: values.status,
      source: values.source.trim(),
      cve_id: cve ? cve.toUpperCase() : null,
      asset_id: asset ? Number(asset) : null,
    };
    const answer = threat ? await updateThreat(threat.id, body) : await createThreat(body);
    if (!answer.failed && answer.data) return onSaved(answer.data);
    // spec §7: the save gave null. Nothing typed is lost; the user may correct it or try again.
    const what = threat ? 'L’enregistrement de la menace a échoué' : 'La création de la menace a échoué';
    const why = answer.failed ? failureReason(answer.status, answer.message) : 'réponse vide du serveur';
    throw new SaveFailed(
      `${what} : ${why}. Vos saisies sont conservées.`,
      answer.failed ? fieldMessages(answer.fields, { keys: FIELDS }) : {},
    );
  };

  // 401 and 403 are thrown as before: their message, and the fields the server named.
  const fieldErrors = (err: unknown) => (err instanceof SaveFailed ? err.fields : fieldErrorsOf(err, { keys: FIELDS }));

  // The types the form knows, and the threat's own when it is another.
  const types =
    values.threat_type in THREAT_TYPES ? THREAT_TYPES : { [values.threat_type]: values.threat_type, ...THREAT_TYPES };

  return (
    <FormCard
      form={form}
      title={threat ? `Modifier « ${threat.title} »` : 'Nouvelle menace'}
      heading="h2"
      className="card"
      intro={
        note && (
          <p className="notice warn" role="status">
            {note}
          </p>
        )
      }
      onSubmit={form.onSubmit(send, { validate: validateThreat, fieldErrors })}
      submitLabel={threat ? 'Enregistrer' : 'Créer la menace'}
      onClose={onClose}
    >
      <TextField form={form} name="title" label="Titre *" required wide />
      <SelectField form={form} name="threat_type" label="Type" options={optionsOf(types)} />
      <SelectField form={form} name="severity" label="Gravité" options={optionsOf(SEVERITY_LABELS, SEVERITIES)} />
      <SelectField form={form} name="status" label="Statut" options={optionsOf(THREAT_STATUS_LABELS)} />
      <TextField form={form} name="source" label="Source" />
      <TextField form={form} name="cve_id" label="CVE liée" placeholder="CVE-2024-3094" />
      <TextField form={form} name="asset_id" label="Identifiant de l’actif" inputMode="numeric" />
      <TextField form={form} name="description" label="Description" multiline wide />
    </FormCard>
  );
}
