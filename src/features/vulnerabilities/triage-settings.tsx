import { useState } from 'react';
import { FINDING_SEVERITIES } from '../../../contract/severity.ts';
import { FormCard, TextField } from '../../components/form-field.tsx';
import { RetryError } from '../../components/list-state.tsx';
import { useForm } from '../../lib/use-form.ts';
import { useResource } from '../../lib/use-resource.ts';
import { fetchTriageSettings, saveTriageSettings, type TriageSettings } from './api/vulnerabilities.ts';
import { draftOf, settingsOf, SLA_LABELS, validateTriage, type TriageDraft } from './triage-settings-rules.ts';

const PERCENT = new Intl.NumberFormat('fr-FR', { style: 'percent', maximumFractionDigits: 2 });

/**
 * The tenant's triage settings, for its administrators (issue 21): the SLA (days to fix per severity, from which new
 * findings get their due date) and the EPSS threshold of the SSVC decision (from which an exploit is taken as
 * likely). Read only when opened: the dashboard itself never waits for it.
 */
export function TriageSettingsCard({ tenant }: { tenant: string }) {
  const [open, setOpen] = useState(false);
  const [saved, setSaved] = useState<string | null>(null);
  return (
    <section className="card triage-settings" aria-labelledby="triage-settings-title">
      <h2 id="triage-settings-title">Réglages du traitement</h2>
      {saved && (
        <p className="notice" role="status">
          {saved}
        </p>
      )}
      {open ? (
        <SettingsLoader
          tenant={tenant}
          onClose={() => setOpen(false)}
          onSaved={(s) => {
            setOpen(false);
            setSaved(`Réglages enregistrés : seuil EPSS de ${PERCENT.format(s.epss_threshold)}.`);
          }}
        />
      ) : (
        <>
          <p className="muted">
            Délais de correction par gravité (SLA) et seuil EPSS à partir duquel la priorité SSVC tient un exploit pour
            probable.
          </p>
          <button
            type="button"
            className="btn secondary"
            onClick={() => {
              setSaved(null);
              setOpen(true);
            }}
          >
            Modifier les réglages
          </button>
        </>
      )}
    </section>
  );
}

function SettingsLoader({
  tenant,
  onClose,
  onSaved,
}: {
  tenant: string;
  onClose: () => void;
  onSaved: (s: TriageSettings) => void;
}) {
  const settings = useResource(() => fetchTriageSettings(), [tenant]);
  const { state } = settings;
  if (state.status === 'loading') return <p role="status">Chargement des réglages…</p>;
  if (state.status === 'error') {
    return <RetryError className="vuln-error" message={state.message} onRetry={() => void settings.refresh()} />;
  }
  return <SettingsForm initial={state.data} onClose={onClose} onSaved={onSaved} />;
}

function SettingsForm({
  initial,
  onClose,
  onSaved,
}: {
  initial: TriageSettings;
  onClose: () => void;
  onSaved: (s: TriageSettings) => void;
}) {
  const form = useForm<TriageDraft>(() => draftOf(initial));
  return (
    <FormCard
      form={form}
      title="Délais et seuil EPSS"
      className="triage-settings-form"
      intro={<p className="muted">Un délai vide : pas d’échéance pour cette gravité.</p>}
      onSubmit={form.onSubmit(async (draft) => onSaved(await saveTriageSettings(settingsOf(draft))), {
        validate: validateTriage,
      })}
      submitLabel="Enregistrer les réglages"
      onClose={onClose}
    >
      {FINDING_SEVERITIES.map((s) => (
        <TextField key={s} form={form} name={s} label={`${SLA_LABELS[s]} (jours)`} inputMode="numeric" />
      ))}
      <TextField form={form} name="epss_percent" label="Seuil EPSS (%)" inputMode="decimal" />
    </FormCard>
  );
}
