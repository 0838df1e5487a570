import { useState } from 'react';
import { Link, useParams } from 'wouter';
import { useSignals } from '@preact/signals-react/runtime';
import { DataOriginNote, readOnlyNote } from '../../components/data-origin-note.tsx';
import { deleteVulnerability, fetchVulnerability, markResolved } from './api/vulnerabilities.ts';
import type { Vulnerability } from './api/types.ts';
import { KevBadge, SeverityBadge } from '../../components/severity-badges.tsx';
import { CvePanel } from './cve-panel.tsx';
import { StateBadge, TriagePanel } from './triage-panel.tsx';
import { SSVC_LABELS } from '../../../contract/ssvc.ts';
import { formatDateTime, formatPercent, formatScore, severitySourceText } from './format.ts';
import { canWriteVulnerabilities, tenantKey } from './permissions.ts';
import { messageOf } from '../../lib/error-message.ts';
import { useResource } from '../../lib/use-resource.ts';
import { RetryError } from '../../components/list-state.tsx';
import { ConfirmDelete } from '../../components/confirm-delete.tsx';
import { FindingForm } from './finding-form.tsx';
import './vulnerabilities.css';

/** One finding: its CVE explained, its asset, and for writers resolve / reopen, edit (PUT) and delete. */
export default function VulnerabilityDetailPage() {
  useSignals();
  const { id = '' } = useParams<{ id: string }>();
  const canWrite = canWriteVulnerabilities();
  const resource = useResource(() => fetchVulnerability(id), [id, tenantKey()]);
  const { state } = resource;
  const notFound = state.status === 'error' && state.httpStatus === 404;
  /** The title of the finding deleted from this page (for this id), said in place of the page. */
  const [deleted, setDeleted] = useState<{ id: string; title: string } | null>(null);

  if (deleted?.id === id) {
    return (
      <section className="page page-wide vuln-page">
        <h1>Vulnérabilité supprimée</h1>
        <p role="status">La vulnérabilité « {deleted.title} » a été supprimée.</p>
        <p>
          <Link href="/vulnerabilities/list">← Liste des vulnérabilités</Link>
        </p>
      </section>
    );
  }

  return (
    <section className="page page-wide vuln-page" aria-busy={state.status === 'loading'}>
      <p>
        <Link href="/vulnerabilities/list">← Liste des vulnérabilités</Link>
      </p>
      {state.status === 'loading' && <p role="status">Chargement de la vulnérabilité…</p>}
      {state.status === 'error' && (
        <>
          <h1>Vulnérabilité</h1>
          <RetryError
            className="vuln-error"
            message={notFound ? 'Cette vulnérabilité n’existe pas ou n’est plus accessible.' : state.message}
            onRetry={notFound ? undefined : () => void resource.refresh()}
          />
        </>
      )}
      {state.status === 'ready' && (
        <>
          <DataOriginNote origin={state.origin} />
          <Detail
            v={state.data}
            canWrite={canWrite}
            readOnly={readOnlyNote(state.origin)}
            onChange={(next) => resource.update((v) => ({ ...v, ...next }))}
            onEdited={() => void resource.refresh()}
            onDeleted={(v) => setDeleted({ id, title: v.title })}
          />
        </>
      )}
    </section>
  );
}

/** CISA's SSVC decision for the finding, and why (docs/ssvc.md). */
function SsvcCard({ ssvc }: { ssvc: NonNullable<Vulnerability['ssvc']> }) {
  return (
    <section className="card ssvc" aria-labelledby="ssvc-title">
      <h2 id="ssvc-title">Priorité SSVC (CISA)</h2>
      <p className={`ssvc-decision ssvc-${ssvc.decision}`}>{SSVC_LABELS[ssvc.decision]}</p>
      <ul>
        {ssvc.reasons.map((r) => (
          <li key={r}>{r}</li>
        ))}
      </ul>
    </section>
  );
}

/** The severity and who gave it: « Critique — source : NVD », an analyst's reason and the source's own rating. */
function SeverityLine({ v }: { v: Vulnerability }) {
  const source = severitySourceText(v);
  return (
    <span className="severity-source">
      <SeverityBadge severity={v.severity} />
      {source && <span className="muted"> — {source}</span>}
    </span>
  );
}

function Detail({
  v,
  canWrite,
  readOnly,
  onChange,
  onEdited,
  onDeleted,
}: {
  v: Vulnerability;
  canWrite: boolean;
  /** Why this copy of the finding cannot be written (a sample, a kept copy); null when live. */
  readOnly: string | null;
  onChange: (v: Vulnerability) => void;
  /** After an edit: the page reads the finding again (its CVE sheet and SSVC decision may have changed). */
  onEdited: () => void;
  onDeleted: (v: Vulnerability) => void;
}) {
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const [editing, setEditing] = useState(false);
  const [confirming, setConfirming] = useState(false);

  const remove = () => {
    setPending(true);
    setError(null);
    setDone(null);
    deleteVulnerability(v.id).then(
      () => onDeleted(v),
      (err: unknown) => {
        setPending(false);
        // The question stays open: the finding is still there.
        setError(`La suppression de la vulnérabilité a échoué : ${messageOf(err)}`);
      },
    );
  };

  const toggle = () => {
    const next = !v.is_resolved;
    setPending(true);
    setError(null);
    setDone(null);
    markResolved(v.id, next).then(
      (updated) => {
        setPending(false);
        onChange({ ...v, ...updated, cve: updated?.cve ?? v.cve, is_resolved: updated?.is_resolved ?? next });
        setDone(
          updated?.state
            ? `Vulnérabilité ${next ? 'marquée comme corrigée (à vérifier)' : 'rouverte (confirmée)'}.`
            : next
              ? 'Vulnérabilité marquée comme résolue.'
              : 'Vulnérabilité rouverte.',
        );
      },
      (err: unknown) => {
        setPending(false);
        setError(
          `${next ? 'Impossible de marquer la vulnérabilité comme résolue' : 'Impossible de rouvrir la vulnérabilité'} : ${messageOf(err)}`,
        );
      },
    );
  };

  return (
    <>
      <div className="detail-head">
        <h1>
          {v.cve_id ? <span className="mono">{v.cve_id}</span> : null} <span data-content="">{v.title}</span>
        </h1>
      </div>
      {/* Spaces between the items: read aloud or copied, « source : CNA » and « CVSS 7,8 » stay apart. */}
      <p className="detail-head">
        <SeverityLine v={v} /> <KevBadge kev={v.kev} />{' '}
        <span>
          CVSS <strong>{formatScore(v.cvss_score)}</strong>
        </span>{' '}
        <span>
          EPSS <strong>{formatPercent(v.epss_score)}</strong>
        </span>{' '}
        <StateBadge v={v} />
      </p>
      {canWrite && (
        <div className="vm-actions detail-actions">
          <button type="button" className="btn primary" disabled={pending} onClick={toggle} aria-busy={pending}>
            {pending ? 'Enregistrement…' : v.is_resolved ? 'Rouvrir' : 'Marquer comme résolue'}
          </button>
          <button
            type="button"
            className="btn secondary"
            disabled={pending || readOnly !== null || editing}
            title={readOnly ?? undefined}
            onClick={() => {
              setDone(null);
              setError(null);
              setConfirming(false);
              setEditing(true);
            }}
          >
            Modifier
          </button>
          {confirming ? (
            <ConfirmDelete
              name={v.title}
              question="Supprimer définitivement cette vulnérabilité (et son historique) ?"
              busy={pending}
              onConfirm={remove}
              onCancel={() => setConfirming(false)}
            />
          ) : (
            <button
              type="button"
              className="btn danger"
              disabled={pending || readOnly !== null}
              title={readOnly ?? undefined}
              onClick={() => {
                setDone(null);
                setError(null);
                setEditing(false);
                setConfirming(true);
              }}
            >
              Supprimer
            </button>
          )}
        </div>
      )}
      {canWrite && editing && (
        <FindingForm
          finding={v}
          onClose={() => setEditing(false)}
          onSaved={(saved) => {
            setEditing(false);
            // The answer has no CVE sheet: the old one stays until the page has read the finding again.
            onChange({ ...v, ...saved, cve: saved.cve_id === v.cve_id ? v.cve : null });
            setDone('Vulnérabilité enregistrée.');
            onEdited();
          }}
        />
      )}
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      <p className="muted" role="status">
        {done ?? ''}
      </p>

      <div className="detail-grid">
        <section className="card" aria-labelledby="finding-title">
          <h2 id="finding-title">Constat</h2>
          {v.description && (
            <p className="description" data-content="">
              {v.description}
            </p>
          )}
          <dl className="facts">
            <dt>Actif</dt>
            <dd>
              {v.asset ? (
                <Link href={`/assets/${encodeURIComponent(String(v.asset.id))}`}>{v.asset.name}</Link>
              ) : (
                'Aucun'
              )}
            </dd>
            {(v.port || v.protocol || v.service) && (
              <>
                <dt>Service</dt>
                <dd>{[v.service, v.port ? `port ${v.port}` : null, v.protocol].filter(Boolean).join(' · ')}</dd>
              </>
            )}
            {v.package_name && (
              <>
                <dt>Paquet</dt>
                <dd>
                  <span className="mono">{v.package_name}</span> {v.installed_version ?? ''}
                  {v.fixed_version ? ` → corrigé en ${v.fixed_version}` : ''}
                </dd>
              </>
            )}
            {v.cvss_vector && (
              <>
                <dt>Vecteur CVSS</dt>
                <dd className="vector mono">{v.cvss_vector}</dd>
              </>
            )}
            <dt>Détectée le</dt>
            <dd>{formatDateTime(v.first_seen ?? v.created_at)}</dd>
            {v.last_seen && (
              <>
                <dt>Vue pour la dernière fois</dt>
                <dd>{formatDateTime(v.last_seen)}</dd>
              </>
            )}
            {v.is_resolved && (
              <>
                <dt>Résolue le</dt>
                <dd>{formatDateTime(v.resolved_at)}</dd>
              </>
            )}
            {v.source && (
              <>
                <dt>Source</dt>
                <dd>
                  {v.scan_id !== null && v.scan_id !== undefined ? (
                    <Link href={`/scans/${encodeURIComponent(String(v.scan_id))}`}>{v.source}</Link>
                  ) : (
                    v.source
                  )}
                </dd>
              </>
            )}
          </dl>
          {v.solution && (
            <>
              <h3>Correctif</h3>
              <p className="description" data-content="">
                {v.solution}
              </p>
            </>
          )}
        </section>
        {v.ssvc && <SsvcCard ssvc={v.ssvc} />}
        {v.state && <TriagePanel v={v} onChange={onChange} readOnly={readOnly} />}
      </div>

      {v.cve ? (
        <>
          <h2 className="section-title">Fiche CVE</h2>
          <CvePanel cve={v.cve} headingLevel={3} />
        </>
      ) : (
        v.cve_id && (
          <p className="muted">
            La fiche de {v.cve_id} n’est pas dans la base locale.{' '}
            <Link href={`/cve/${encodeURIComponent(v.cve_id)}`}>Rechercher la CVE</Link>
          </p>
        )
      )}
    </>
  );
}
