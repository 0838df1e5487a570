import { Link } from 'wouter';
import { DataTable } from '../../components/data-table.tsx';
import { FormCard, SelectField, TextField } from '../../components/form-field.tsx';
import { ActionMessages, EmptyState } from '../../components/list-state.tsx';
import { optionsOf } from '../../components/select.tsx';
import { charCount } from '../../../contract/text.ts';
import { useForm } from '../../lib/use-form.ts';
import { listAssetThreats, listAssetVulnerabilities, updateProjectAsset } from './projects-api.ts';
import type { Written } from './project-http.ts';
import type { ProjectAsset } from './project-types.ts';
import { ASSET_TYPE_LABELS, CRITICALITY_LABELS, FINDING_SEVERITY_WORDS, formatDay, label } from './project-rules.ts';
import { useProjectResource } from './project-tab.tsx';
import { ThreatStateCells } from './threats-tab.tsx';

const SCORE = new Intl.NumberFormat('fr-FR', { minimumFractionDigits: 1, maximumFractionDigits: 1 });
const NAME_MAX = 200;

/** Both lists of a linked asset, read together; each failure is said once. */
async function loadAssetDetails(linkId: ProjectAsset['id']) {
  const [findings, threats] = await Promise.all([listAssetVulnerabilities(linkId), listAssetThreats(linkId)]);
  const errors = [...new Set([findings.error, threats.error].filter((e): e is string => !!e))];
  return {
    data: { findings: findings.data.results, threats: threats.data.results },
    origin: findings.origin,
    error: errors.join('\n') || null,
  };
}

/**
 * What the tenant has on a linked asset, read when its row is opened: its findings
 * (GET /projects/assets/{id}/vulnerabilities/) and its threats (GET /projects/assets/{id}/threats/).
 */
export function AssetDetails({ asset }: { asset: ProjectAsset }) {
  const details = useProjectResource(() => loadAssetDetails(asset.id), [asset.id]);
  if (details.loading) return <p role="status">Chargement des vulnérabilités et menaces de l’actif…</p>;
  const { findings = [], threats = [] } = details.data ?? {};
  return (
    <>
      {details.error?.split('\n').map((e) => (
        <ActionMessages key={e} error={e} />
      ))}
      <h5>Vulnérabilités de l’actif</h5>
      {findings.length === 0 ? (
        <EmptyState>Aucune vulnérabilité sur cet actif.</EmptyState>
      ) : (
        <DataTable
          caption={`Vulnérabilités de l’actif ${asset.name}`}
          headers={['Vulnérabilité', 'CVE', 'Gravité', 'CVSS', 'État', 'Détectée le']}
        >
          {findings.map((f) => (
            <tr key={f.id} data-finding-id={f.id}>
              <th scope="row" className="pj-name">
                <Link href={`/vulnerabilities/${encodeURIComponent(String(f.id))}`}>{f.title}</Link>
              </th>
              <td>{f.cve_id ?? '—'}</td>
              <td>
                <span className={`vm-badge ${f.severity}`}>{label(FINDING_SEVERITY_WORDS, f.severity)}</span>
              </td>
              <td>{typeof f.cvss_score === 'number' ? SCORE.format(f.cvss_score) : '—'}</td>
              <td>
                {f.is_resolved ? (
                  <span className="vm-badge ok">Résolue</span>
                ) : (
                  <span className="vm-badge failed">Ouverte</span>
                )}
              </td>
              <td>{formatDay(f.created_at)}</td>
            </tr>
          ))}
        </DataTable>
      )}
      <h5>Menaces sur l’actif</h5>
      {threats.length === 0 ? (
        <EmptyState>Aucune menace sur cet actif.</EmptyState>
      ) : (
        <DataTable caption={`Menaces sur l’actif ${asset.name}`} headers={['Menace', 'Gravité', 'Statut']}>
          {threats.map((t) => (
            <tr key={t.id} data-threat-id={t.id}>
              <th scope="row" className="pj-name">
                {t.title}
              </th>
              <ThreatStateCells threat={t} />
            </tr>
          ))}
        </DataTable>
      )}
      <p>
        <Link href={`/assets/${encodeURIComponent(String(asset.asset_id))}`}>Ouvrir la fiche de l’actif</Link>
      </p>
    </>
  );
}

/**
 * Edit a linked asset in the tenant's inventory: PUT /projects/assets/{id}/ (spec §7) with every field shown; the
 * fields not shown here (exposure to the Internet, tags) are not sent and stay as they are (the inventory's page
 * changes them).
 */
export function AssetEditForm({
  asset,
  onSaved,
  onClose,
}: {
  asset: ProjectAsset;
  onSaved: (result: Written<ProjectAsset>) => void;
  onClose: () => void;
}) {
  const form = useForm({
    name: asset.name,
    asset_type: asset.asset_type,
    criticality: asset.criticality,
    hostname: asset.hostname ?? '',
    ip_address: asset.ip_address ?? '',
    operating_system: asset.operating_system ?? '',
    owner: asset.owner ?? '',
    description: asset.description ?? '',
  });
  const { values } = form;
  const orNull = (v: string) => v.trim() || null;

  const validate = () => {
    const name = values.name.trim();
    if (name === '') return { name: 'Le nom de l’actif est requis.' };
    if (charCount(name) > NAME_MAX) return { name: `Le nom ne doit pas dépasser ${NAME_MAX} caractères.` };
    return {};
  };
  const send = async () =>
    onSaved(
      await updateProjectAsset(asset.id, {
        name: values.name.trim(),
        asset_type: values.asset_type,
        criticality: values.criticality,
        hostname: orNull(values.hostname),
        ip_address: orNull(values.ip_address),
        operating_system: orNull(values.operating_system),
        owner: orNull(values.owner),
        description: values.description.trim(),
      }),
    );

  return (
    <FormCard
      form={form}
      title={`Modifier l’actif « ${asset.name} »`}
      intro={<p className="muted small">L’actif est modifié dans l’inventaire de l’organisation.</p>}
      onSubmit={form.onSubmit(send, { validate })}
      submitLabel="Enregistrer l’actif"
      onClose={onClose}
    >
      <TextField form={form} name="name" label="Nom *" required wide />
      <SelectField form={form} name="asset_type" label="Type" options={optionsOf(ASSET_TYPE_LABELS)} />
      <SelectField form={form} name="criticality" label="Criticité" options={optionsOf(CRITICALITY_LABELS)} />
      <TextField form={form} name="hostname" label="Nom d’hôte" autoComplete="off" />
      <TextField form={form} name="ip_address" label="Adresse IP" inputMode="decimal" autoComplete="off" />
      <TextField form={form} name="operating_system" label="Système d’exploitation" />
      <TextField form={form} name="owner" label="Propriétaire" />
      <TextField form={form} name="description" label="Description" multiline wide />
    </FormCard>
  );
}
