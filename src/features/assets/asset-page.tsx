import { useState, type ReactNode } from 'react';
import { Link, useParams } from 'wouter';
import { useSignals } from '@preact/signals-react/runtime';
import { FINDING_STATE_LABELS, FINDING_STATES, findingStateLabel } from '../../../contract/finding-states.ts';
import { PROJECT_STATUS_LABELS } from '../../../contract/projects.ts';
import { SCANNER_LABELS } from '../../../contract/scan-formats.ts';
import { FINDING_SEVERITIES, FINDING_SEVERITY_LABELS, findingSeverityLabel } from '../../../contract/severity.ts';
import { DataOriginNote, PartOriginNote } from '../../components/data-origin-note.tsx';
import { RetryError } from '../../components/list-state.tsx';
import { currentTenantId } from '../../lib/auth/session.ts';
import { formatDateTime, NUMBER } from '../../lib/format.ts';
import { useResource } from '../../lib/use-resource.ts';
import { useCanWrite } from '../../lib/auth/can-write.ts';
import { fetchAsset, fetchAssetOverview, type Asset, type AssetOverview } from './assets-api.ts';
import { AssetForm } from './asset-form.tsx';
import { ASSET_TYPE_LABELS, CRITICALITY_LABELS, exposureText } from './asset-rules.ts';
import './assets.css';

const label = (labels: Record<string, string>, value: string) => labels[value] ?? value;

/** What a line of the asset's recent history changed, in brackets after the finding's title. */
function historyWord(e: AssetOverview['history'][number]): string {
  switch (e.kind) {
    case 'state':
      return `(${findingStateLabel(e.from_value)} → ${findingStateLabel(e.to_value)})`;
    case 'severity':
      return `(gravité : ${findingSeverityLabel(e.from_value)} → ${findingSeverityLabel(e.to_value)})`;
    case 'comment':
      return '(commentaire)';
    case 'assignee':
      return '(assignation)';
    default:
      return '(échéance)';
  }
}

/**
 * One asset (issue 21): its facts, its findings by state and severity, its scans, projects and recent history; a
 * writer edits it here (its criticality and exposure move its findings' SSVC decisions).
 */
export default function AssetPage() {
  useSignals();
  const { id = '' } = useParams<{ id: string }>();
  const tenant = currentTenantId() ?? '';
  const asset = useResource(() => fetchAsset(id), [id, tenant]);
  const overview = useResource(() => fetchAssetOverview(id), [id, tenant]);
  const canWrite = useCanWrite();
  const [editing, setEditing] = useState(false);
  const [notice, setNotice] = useState<string | null>(null);
  const { state } = asset;
  const missing = state.status === 'error' && state.httpStatus === 404;

  return (
    <section className="page page-wide asset-page" aria-busy={state.status === 'loading'}>
      <p>
        <Link href="/assets">← Actifs</Link>
      </p>
      {state.status === 'loading' && <p role="status">Chargement de l’actif…</p>}
      {state.status === 'error' && (
        <>
          <h1>Actif</h1>
          <RetryError
            className="asset-error"
            message={missing ? 'Actif introuvable : il n’existe pas ou n’est plus accessible.' : state.message}
            onRetry={missing ? undefined : () => void asset.refresh()}
          />
        </>
      )}
      {state.status === 'ready' && (
        <>
          <DataOriginNote origin={state.origin} />
          <div className="asset-head">
            <h1>{state.data.name}</h1>
            {canWrite && !editing && (
              <button
                type="button"
                className="btn secondary"
                onClick={() => {
                  setNotice(null);
                  setEditing(true);
                }}
              >
                Modifier l’actif
              </button>
            )}
          </div>
          {notice && (
            <p className="notice" role="status">
              {notice}
            </p>
          )}
          {canWrite && editing && (
            <AssetForm
              asset={state.data}
              onClose={() => setEditing(false)}
              onSaved={(saved) => {
                setEditing(false);
                setNotice(`Actif « ${saved.name} » enregistré.`);
                void asset.refresh();
                void overview.refresh();
              }}
            />
          )}
          <div className="detail-grid asset-grid">
            <Facts asset={state.data} />
            {overview.state.status === 'ready' ? (
              <Overview
                asset={state.data}
                o={overview.state.data}
                note={<PartOriginNote origin={overview.state.origin} page={state.origin} />}
              />
            ) : overview.state.status === 'error' ? (
              <p className="muted">Le détail des vulnérabilités et des scans est indisponible pour le moment.</p>
            ) : (
              <p role="status">Chargement…</p>
            )}
          </div>
        </>
      )}
    </section>
  );
}

function Facts({ asset }: { asset: Asset }) {
  return (
    <section className="card" aria-labelledby="asset-facts">
      <h2 id="asset-facts">Fiche</h2>
      <dl className="facts">
        <dt>Type</dt>
        <dd>{label(ASSET_TYPE_LABELS, asset.asset_type)}</dd>
        <dt>Criticité</dt>
        <dd>{label(CRITICALITY_LABELS, asset.criticality)}</dd>
        <dt>Exposé à Internet</dt>
        <dd>{exposureText(asset.internet_exposed)}</dd>
        {asset.hostname && (
          <>
            <dt>Nom d’hôte</dt>
            <dd className="mono">{asset.hostname}</dd>
          </>
        )}
        {asset.ip_address && (
          <>
            <dt>Adresse IP</dt>
            <dd className="mono">{asset.ip_address}</dd>
          </>
        )}
        {asset.operating_system && (
          <>
            <dt>Système</dt>
            <dd>{asset.operating_system}</dd>
          </>
        )}
        {asset.owner && (
          <>
            <dt>Responsable</dt>
            <dd>{asset.owner}</dd>
          </>
        )}
        {asset.tags.length > 0 && (
          <>
            <dt>Étiquettes</dt>
            <dd>{asset.tags.join(', ')}</dd>
          </>
        )}
      </dl>
      {asset.description && (
        <p className="description" data-content="">
          {asset.description}
        </p>
      )}
    </section>
  );
}

/** `note`: where these counts come from when it differs from the asset's (a kept copy beside a live asset). */
function Overview({ asset, o, note }: { asset: Asset; o: AssetOverview; note: ReactNode }) {
  const list = `/vulnerabilities/list?asset=${encodeURIComponent(String(asset.id))}`;
  return (
    <>
      <section className="card" aria-labelledby="asset-findings">
        <h2 id="asset-findings">Vulnérabilités</h2>
        {note}
        <div className="asset-counts">
          <table className="compact">
            <caption>Par état</caption>
            <tbody>
              {FINDING_STATES.map((s) => (
                <tr key={s}>
                  <th scope="row">{FINDING_STATE_LABELS[s]}</th>
                  <td className="num">{NUMBER.format(o.findings_by_state[s] ?? 0)}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <table className="compact">
            <caption>Ouvertes, par gravité</caption>
            <tbody>
              {FINDING_SEVERITIES.map((s) => (
                <tr key={s}>
                  <th scope="row">{FINDING_SEVERITY_LABELS[s]}</th>
                  <td className="num">{NUMBER.format(o.open_by_severity[s] ?? 0)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        <p>
          <Link href={list}>Voir les vulnérabilités de cet actif</Link>
        </p>
      </section>
      <section className="card" aria-labelledby="asset-scans">
        <h2 id="asset-scans">Scans</h2>
        {o.scans.length === 0 ? (
          <p className="muted">Aucun scan n’a visé cet actif ni relevé de vulnérabilité dessus.</p>
        ) : (
          <ul className="plain-list">
            {o.scans.map((s) => (
              <li key={s.id}>
                <Link href={`/scans/${s.id}`}>{s.name}</Link>{' '}
                <span className="muted">
                  — {label(SCANNER_LABELS, s.scanner)}, {formatDateTime(s.completed_at ?? s.created_at)}
                </span>
              </li>
            ))}
          </ul>
        )}
        <h2 id="asset-projects">Projets</h2>
        {o.projects.length === 0 ? (
          <p className="muted">Aucun projet visible ne suit cet actif.</p>
        ) : (
          <ul className="plain-list">
            {o.projects.map((p) => (
              <li key={p.id}>
                <Link href={`/projects/${p.id}`}>{p.name}</Link>{' '}
                <span className="muted">— {label(PROJECT_STATUS_LABELS, p.status)}</span>
              </li>
            ))}
          </ul>
        )}
      </section>
      <section className="card" aria-labelledby="asset-history">
        <h2 id="asset-history">Historique récent</h2>
        {o.history.length === 0 ? (
          <p className="muted">Aucun changement sur les vulnérabilités de cet actif.</p>
        ) : (
          <ol className="plain-list">
            {o.history.map((e) => (
              <li key={e.id}>
                <span className="muted">
                  {formatDateTime(e.created_at)} — {e.username ?? 'Vigie'} :
                </span>{' '}
                <Link href={`/vulnerabilities/${e.vulnerability_id}`}>{e.title}</Link> {historyWord(e)}
              </li>
            ))}
          </ol>
        )}
      </section>
    </>
  );
}
