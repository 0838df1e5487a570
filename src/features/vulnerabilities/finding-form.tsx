import { useEffect, useState } from 'react';
import { FormCard, SelectField, TextField } from '../../components/form-field.tsx';
import { optionsOf } from '../../components/select.tsx';
import { SEVERITIES, SEVERITY_LABELS, type Severity } from '../../../contract/severity.ts';
import { charCount } from '../../../contract/text.ts';
import { textsOf, useForm, type FieldErrors } from '../../lib/use-form.ts';
import {
  createVulnerability,
  fetchAssetOptions,
  updateVulnerability,
  type FindingInput,
} from './api/vulnerabilities.ts';
import type { AssetOption, Vulnerability } from './api/types.ts';

/** The form's texts, as typed. */
export interface FindingTexts {
  title: string;
  cve_id: string;
  asset_id: string;
  severity: string;
  cvss_score: string;
  port: string;
  protocol: string;
  service: string;
  description: string;
  solution: string;
}

/** The server's messages (server/src/schemas/vulnerabilities.ts), checked before anything is sent. */
export const FINDING_MESSAGES = {
  titleRequired: 'Le titre est requis (ou un identifiant CVE connu).',
  titleTooLong: 'Le titre ne doit pas dépasser 500 caractères.',
  cve: 'Identifiant CVE invalide (format attendu : CVE-AAAA-NNNN).',
  cvss: 'Le score CVSS doit être compris entre 0 et 10.',
  port: 'Le port doit être un entier entre 0 et 65535.',
} as const;

const CVE_ID = /^CVE-\d{4}-\d{4,}$/i;
/** A decimal typed the French way (« 7,5 ») or not. */
const decimal = (text: string) => Number(text.trim().replace(',', '.'));

/**
 * The checks the server makes, in French. A new finding needs a title or a CVE id (the server takes a known CVE's
 * title); an edited one keeps a title.
 */
export function validateFinding(values: FindingTexts, editing: boolean): FieldErrors<keyof FindingTexts> {
  const errors: FieldErrors<keyof FindingTexts> = {};
  const title = values.title.trim();
  const cve = values.cve_id.trim();
  if (title === '' && (editing || cve === '')) errors.title = FINDING_MESSAGES.titleRequired;
  else if (charCount(title) > 500) errors.title = FINDING_MESSAGES.titleTooLong;
  if (cve !== '' && !CVE_ID.test(cve)) errors.cve_id = FINDING_MESSAGES.cve;
  if (values.cvss_score.trim() !== '') {
    const score = decimal(values.cvss_score);
    if (!Number.isFinite(score) || score < 0 || score > 10) errors.cvss_score = FINDING_MESSAGES.cvss;
  }
  if (values.port.trim() !== '') {
    const port = values.port.trim();
    if (!/^\d{1,5}$/.test(port) || Number(port) > 65535) errors.port = FINDING_MESSAGES.port;
  }
  return errors;
}

/** A number or id as the form shows it ('' without one). */
const textOf = (value: number | string | null | undefined) =>
  value === null || value === undefined ? '' : String(value);

/** The body sent: empty texts clear their field (null), a new finding's severity only when one was chosen. */
export function findingBody(values: FindingTexts): FindingInput {
  const orNull = (text: string) => (text.trim() === '' ? null : text.trim());
  const cve = orNull(values.cve_id);
  const body: FindingInput = {
    title: values.title.trim(),
    cve_id: cve ? cve.toUpperCase() : null,
    asset_id: values.asset_id === '' ? null : Number(values.asset_id),
    cvss_score: values.cvss_score.trim() === '' ? null : decimal(values.cvss_score),
    description: values.description.trim(),
    solution: values.solution.trim(),
    port: values.port.trim() === '' ? null : Number(values.port.trim()),
    protocol: orNull(values.protocol),
    service: orNull(values.service),
  };
  if (values.severity !== '') body.severity = values.severity as Severity;
  return body;
}

/**
 * A finding entered by hand (no `finding`: POST) or its own fields edited (PUT). Its severity is chosen on creation
 * only: an existing finding's rating changes in « Gravité », with the reason the server keeps. A refusal keeps what
 * was typed and shows the server's words beside the fields they concern.
 */
export function FindingForm({
  finding,
  onSaved,
  onClose,
}: {
  finding?: Vulnerability | undefined;
  onSaved: (saved: Vulnerability) => void;
  onClose: () => void;
}) {
  const editing = finding !== undefined;
  const form = useForm<FindingTexts>(() => ({
    ...textsOf(finding, ['title', 'cve_id', 'description', 'solution', 'protocol', 'service']),
    asset_id: textOf(finding?.asset_id ?? finding?.asset?.id),
    severity: '',
    cvss_score: textOf(finding?.cvss_score).replace('.', ','),
    port: textOf(finding?.port),
  }));
  const [assets, setAssets] = useState<AssetOption[] | null>(null);
  useEffect(() => {
    let live = true;
    void fetchAssetOptions().then((list) => {
      if (live) setAssets(list);
    });
    return () => {
      live = false;
    };
  }, []);

  // The finding's own asset stays a choice even when the list could not be read or does not hold it.
  const own = finding?.asset;
  const assetList = [...(assets ?? [])];
  if (own && !assetList.some((a) => String(a.id) === String(own.id))) assetList.unshift(own);
  const assetOptions = [['', 'Aucun'] as const, ...assetList.map((a) => [String(a.id), a.name] as const)];

  const send = async (values: FindingTexts) => {
    const body = findingBody(values);
    if (finding) {
      const { severity: _ignored, ...fields } = body;
      onSaved(await updateVulnerability(finding.id, fields));
    } else {
      onSaved(await createVulnerability(body));
    }
  };

  return (
    <FormCard
      form={form}
      title={editing ? `Modifier « ${finding.title} »` : 'Nouvelle vulnérabilité'}
      heading="h2"
      className="card"
      intro={
        !editing && (
          <p className="muted">
            Sans titre, celui de la CVE est repris ; sans gravité choisie, celle de la CVE ou du score CVSS s’applique
            (sinon « Non évaluée »).
          </p>
        )
      }
      onSubmit={form.onSubmit(send, { validate: (v) => validateFinding(v, editing) })}
      submitLabel={editing ? 'Enregistrer' : 'Créer la vulnérabilité'}
      busyLabel={editing ? 'Enregistrement…' : 'Création…'}
      onClose={onClose}
    >
      <TextField form={form} name="title" label={editing ? 'Titre *' : 'Titre'} wide maxLength={500} />
      <TextField form={form} name="cve_id" label="CVE" placeholder="CVE-2024-3400" />
      <SelectField
        form={form}
        name="asset_id"
        label={assets === null ? 'Actif (chargement…)' : 'Actif'}
        options={assetOptions}
      />
      {!editing && (
        <SelectField
          form={form}
          name="severity"
          label="Gravité"
          options={[['', 'Selon la CVE ou le score CVSS'], ...optionsOf(SEVERITY_LABELS, SEVERITIES)]}
        />
      )}
      <TextField form={form} name="cvss_score" label="Score CVSS (0 à 10)" inputMode="decimal" />
      <TextField form={form} name="port" label="Port" inputMode="numeric" />
      <TextField form={form} name="protocol" label="Protocole" placeholder="tcp" />
      <TextField form={form} name="service" label="Service" placeholder="https" />
      <TextField form={form} name="description" label="Description" multiline wide />
      <TextField form={form} name="solution" label="Correctif" multiline wide />
    </FormCard>
  );
}
