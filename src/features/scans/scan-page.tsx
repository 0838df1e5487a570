import { useState, type ReactNode } from 'react';
import { Link, useParams } from 'wouter';
import { useSignals } from '@preact/signals-react/runtime';
import { findingStateLabel } from '../../../contract/finding-states.ts';
import { REPORT_FORMAT_LABELS, type ReportFormat } from '../../../contract/scan-formats.ts';
import { FINDING_SEVERITIES, FINDING_SEVERITY_LABELS } from '../../../contract/severity.ts';
import { DataOriginNote, PartOriginNote, readOnlyNote } from '../../components/data-origin-note.tsx';
import { RetryError } from '../../components/list-state.tsx';
import { currentTenantId } from '../../lib/auth/session.ts';
import { useCanWrite } from '../../lib/auth/can-write.ts';
import { formatDateTime, NUMBER } from '../../lib/format.ts';
import { useResource } from '../../lib/use-resource.ts';
import { fetchScan, fetchScanChanges, type Scan, type ScanChange } from './scans-api.ts';
import { SCAN_STATUS_LABELS, SCANNER_LABELS } from './scan-rules.ts';
import { ScanEditForm } from './scan-edit-form.tsx';
import './scans.css';

/**
 * One scan (issue 21), read by id (spec §7 GET): its report, counts, findings and what its reconciliation changed;
 * writers edit its name, scanner, target and asset (spec §7 PUT).
 */
export default function ScanPage() {
  useSignals();
  const { id = '' } = useParams<{ id: string }>();
  const tenant = currentTenantId() ?? '';
  const canWrite = useCanWrite();
  const scan = useResource(() => fetchScan(id), [id, tenant]);
  const [editing, setEditing] = useState(false);
  const [saved, setSaved] = useState<string | null>(null);
  const changes = useResource(() => fetchScanChanges(id), [id, tenant]);
  const { state } = scan;
  const missing = state.status === 'error' && state.httpStatus === 404;

  return (
    <section className="page page-wide scan-page" aria-busy={state.status === 'loading'}>
      <p>
        <Link href="/scans">← Scans</Link>
      </p>
      {state.status === 'loading' && <p role="status">Chargement du scan…</p>}
      {state.status === 'error' && (
        <>
          <h1>Scan</h1>
          <RetryError
            className="scan-error"
            message={missing ? 'Scan introuvable : il n’existe pas ou n’est plus accessible.' : state.message}
            onRetry={missing ? undefined : () => void scan.refresh()}
          />
        </>
      )}
      {state.status === 'ready' && (
        <>
          <DataOriginNote origin={state.origin} />
          <ScanDetail scan={state.data}>
            {canWrite && !editing && (
              <p>
                <button
                  type="button"
                  className="btn secondary"
                  disabled={readOnlyNote(state.origin) !== null}
                  title={readOnlyNote(state.origin) ?? undefined}
                  onClick={() => {
                    setSaved(null);
                    setEditing(true);
                  }}
                >
                  Modifier le scan
                </button>
              </p>
            )}
            {canWrite && editing && (
              <ScanEditForm
                scan={state.data}
                onClose={() => setEditing(false)}
                onSaved={(updated) => {
                  setEditing(false);
                  scan.update((s) => ({ ...s, ...updated }));
                  setSaved(`Scan « ${updated.name} » enregistré.`);
                }}
              />
            )}
            <p className="muted" role="status">
              {saved ?? ''}
            </p>
          </ScanDetail>
          <section className="card" aria-labelledby="scan-changes">
            <h2 id="scan-changes">Ce que ce scan a changé</h2>
            {changes.state.status === 'ready' ? (
              <>
                <PartOriginNote origin={changes.state.origin} page={state.origin} />
                <Changes rows={changes.state.data} />
              </>
            ) : changes.state.status === 'error' ? (
              <p className="muted">Changements indisponibles pour le moment.</p>
            ) : (
              <p role="status">Chargement…</p>
            )}
          </section>
        </>
      )}
    </section>
  );
}

function ScanDetail({ scan, children }: { scan: Scan; children?: ReactNode }) {
  const s = scan.summary;
  const link = `/vulnerabilities/list?scan=${encodeURIComponent(String(scan.id))}`;
  return (
    <>
      <h1>{scan.name}</h1>
      {children}
      <div className="detail-grid scan-grid">
        <section className="card" aria-labelledby="scan-facts">
          <h2 id="scan-facts">Rapport</h2>
          <dl className="facts">
            <dt>Scanner</dt>
            <dd>{SCANNER_LABELS[scan.scanner] ?? scan.scanner}</dd>
            <dt>État</dt>
            <dd>{SCAN_STATUS_LABELS[scan.status] ?? scan.status}</dd>
            {scan.report_format && (
              <>
                <dt>Format du rapport</dt>
                <dd>
                  {REPORT_FORMAT_LABELS[scan.report_format as ReportFormat] ?? scan.report_format}
                  {scan.report_size ? ` (${NUMBER.format(Math.ceil(scan.report_size / 1024))} Kio)` : ''}
                </dd>
              </>
            )}
            {scan.asset_id !== null && (
              <>
                <dt>Actif visé</dt>
                <dd>
                  <Link href={`/assets/${encodeURIComponent(String(scan.asset_id))}`}>Actif n° {scan.asset_id}</Link>
                </dd>
              </>
            )}
            <dt>Créé le</dt>
            <dd>{formatDateTime(scan.created_at)}</dd>
            <dt>Terminé le</dt>
            <dd>{formatDateTime(scan.completed_at)}</dd>
            {scan.error && (
              <>
                <dt>Erreur</dt>
                <dd className="error">{scan.error}</dd>
              </>
            )}
          </dl>
        </section>
        <section className="card" aria-labelledby="scan-counts">
          <h2 id="scan-counts">Résultats</h2>
          {s ? (
            <>
              <dl className="facts">
                <dt>Vulnérabilités dans le rapport</dt>
                <dd>{NUMBER.format(s.findings ?? 0)}</dd>
                <dt>Nouvelles</dt>
                <dd>{NUMBER.format(s.created ?? 0)}</dd>
                {s.still_present !== undefined && (
                  <>
                    <dt>Toujours présentes</dt>
                    <dd>{NUMBER.format(s.still_present)}</dd>
                    <dt>Rouvertes</dt>
                    <dd>{NUMBER.format(s.reopened ?? 0)}</dd>
                    <dt>Corrigées (absentes du rapport)</dt>
                    <dd>{NUMBER.format(s.fixed ?? 0)}</dd>
                  </>
                )}
                <dt>Actifs créés</dt>
                <dd>{NUMBER.format(s.assets_created ?? 0)}</dd>
              </dl>
              <table className="compact">
                <caption>Par gravité</caption>
                <tbody>
                  {FINDING_SEVERITIES.map((sev) => (
                    <tr key={sev}>
                      <th scope="row">{FINDING_SEVERITY_LABELS[sev]}</th>
                      <td className="num">{NUMBER.format(s.by_severity?.[sev] ?? 0)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </>
          ) : (
            <p className="muted">Pas encore de résultat : le rapport n’a pas été traité.</p>
          )}
          <p>
            <Link href={link}>Voir les vulnérabilités de ce scan</Link>
          </p>
        </section>
      </div>
    </>
  );
}

function Changes({ rows }: { rows: ScanChange[] }) {
  if (rows.length === 0) return <p className="muted">Aucune vulnérabilité rouverte ni corrigée par ce scan.</p>;
  return (
    <table className="compact">
      <thead>
        <tr>
          <th scope="col">Vulnérabilité</th>
          <th scope="col">Avant</th>
          <th scope="col">Après</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((c) => (
          <tr key={`${c.vulnerability_id}-${c.created_at}`}>
            <th scope="row">
              <Link href={`/vulnerabilities/${c.vulnerability_id}`}>
                {c.cve_id ? `${c.cve_id} — ` : ''}
                {c.title}
              </Link>
            </th>
            <td>{findingStateLabel(c.from_value)}</td>
            <td>{findingStateLabel(c.to_value)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
