import { useState } from 'react';
import { Link } from 'wouter';
import { DataOriginNote } from '../../components/data-origin-note.tsx';
import { DataTable } from '../../components/data-table.tsx';
import { useRowActions } from '../../components/use-row-actions.ts';
import { pageCount, usePagedList } from '../../lib/use-paged-list.ts';
import { DeletableRowActions } from '../../components/confirm-delete.tsx';
import { FilterBar } from '../../components/filter-bar.tsx';
import { ActionMessages, EmptyState, LoadStatus } from '../../components/list-state.tsx';
import { Pager } from '../../components/pager.tsx';
import { ProgressBar } from '../../components/progress-bar.tsx';
import { RowAction } from '../../components/row-action.tsx';
import { deleteScan, listScans, runScanAction, type Scan, type ScanAction } from './scans-api.ts';
import {
  ACTION_LABELS,
  allowedActions,
  isActive,
  SCAN_STATUS_LABELS,
  SCAN_STATUS_TONE,
  SCANNER_LABELS,
} from './scan-rules.ts';
import { usePolling } from '../../lib/use-polling.ts';
import { useCanWrite } from '../../lib/auth/can-write.ts';
import { ScanCreateForm } from './scan-create-form.tsx';
import { ScanImportForm } from './scan-import-form.tsx';
import { DEFAULT_PAGE_SIZE } from '../../../contract/paged.ts';
import './scans.css';
import { dateFormat } from '../../lib/format.ts';

export const PAGE_SIZE = DEFAULT_PAGE_SIZE;
/** While a scan is PENDING or RUNNING the list is read again this often (ms). */
export const SCAN_POLL_MS = 4_000;

const DATE = dateFormat({ dateStyle: 'short', timeStyle: 'short' });
const NUMBER = new Intl.NumberFormat('fr-FR');
const SEVERITY_SHORT: [keyof NonNullable<NonNullable<Scan['summary']>['by_severity']>, string][] = [
  ['critical', 'critiques'],
  ['high', 'élevées'],
  ['medium', 'moyennes'],
  ['low', 'faibles'],
  ['info', 'info'],
  ['unrated', 'non évaluées'],
];

function formatDate(iso: string | null | undefined): string {
  if (!iso) return '—';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? '—' : DATE.format(d);
}

function ScanProgress({ scan }: { scan: Scan }) {
  const value = Math.max(0, Math.min(100, Math.round(scan.progress ?? (scan.status === 'COMPLETED' ? 100 : 0))));
  return <ProgressBar label={`Progression du scan ${scan.name}`} value={value} />;
}

function ScanResults({ scan }: { scan: Scan }) {
  if (scan.status === 'FAILED' && scan.error) return <span className="error">{scan.error}</span>;
  const s = scan.summary;
  if (!s || s.findings === undefined) return <span className="muted">—</span>;
  const severities = SEVERITY_SHORT.filter(([key]) => (s.by_severity?.[key] ?? 0) > 0)
    .map(([key, label]) => `${NUMBER.format(s.by_severity?.[key] ?? 0)} ${label}`)
    .join(', ');
  return (
    <span className="scan-results">
      <span>
        {s.findings === 1 ? '1 constat' : `${NUMBER.format(s.findings)} constats`}
        {s.created !== undefined &&
          ` (${NUMBER.format(s.created)} nouveaux, ${NUMBER.format(s.updated ?? 0)} mis à jour)`}
      </span>
      {severities && <span className="muted">{severities}</span>}
    </span>
  );
}

/** Scans: paged list with filters, creation, report import, lifecycle actions, live progress. */
export default function ScansPage() {
  const canWrite = useCanWrite();
  const { query, update, list, pages } = usePagedList({
    filters: { status: '', scanner: '' },
    url: false,
    load: (q) => listScans({ ...q, page_size: PAGE_SIZE }),
    pages: (data) => pageCount(data.count, PAGE_SIZE),
  });
  const { page, status, scanner } = query;
  const { busy, notice, setNotice, actionError, run } = useRowActions<Scan['id']>();
  const [confirming, setConfirming] = useState<Scan['id'] | null>(null);
  const [panel, setPanel] = useState<'none' | 'create' | 'import'>('none');
  const reload = () => void list.refresh();

  const data = list.data;
  const results = data?.results ?? [];
  const active = results.some((s) => isActive(s.status));
  usePolling(active, SCAN_POLL_MS, list.refresh);

  async function runAction(scan: Scan, action: ScanAction) {
    await run(scan.id, async () => {
      const updated = await runScanAction(scan.id, action);
      list.update((prev) => ({ ...prev, results: (prev.results ?? []).map((s) => (s.id === scan.id ? updated : s)) }));
      setNotice(
        action === 'cancel'
          ? `Scan « ${scan.name} » annulé.`
          : action === 'start'
            ? `Scan « ${scan.name} » démarré.`
            : `Scan « ${scan.name} » relancé.`,
      );
    });
  }

  async function remove(scan: Scan) {
    await run(scan.id, async () => {
      await deleteScan(scan.id);
      setConfirming(null);
      setNotice(`Scan « ${scan.name} » supprimé. Ses vulnérabilités sont conservées.`);
      reload();
    });
  }

  const onCreated = (scan: Scan, message: string) => {
    setPanel('none');
    setNotice(message.replace('{name}', scan.name));
    if (page === 1) reload();
    else update({ page: 1 });
  };

  return (
    <section className="page">
      <div className="vm-head">
        <h1>Scans</h1>
        {canWrite && (
          <div className="vm-actions">
            <button
              type="button"
              className="btn primary"
              aria-expanded={panel === 'import'}
              onClick={() => setPanel(panel === 'import' ? 'none' : 'import')}
            >
              Importer un rapport
            </button>
            <button
              type="button"
              className="btn secondary"
              aria-expanded={panel === 'create'}
              onClick={() => setPanel(panel === 'create' ? 'none' : 'create')}
            >
              Nouveau scan
            </button>
          </div>
        )}
      </div>
      <p className="muted">
        Vigie n’exécute pas les scanners : importez le rapport de Trivy, Grype, CycloneDX, SARIF, Nmap, OpenVAS, Nessus,
        OWASP ZAP ou Dependency-Check, son traitement crée ou met à jour les vulnérabilités.
      </p>

      {canWrite && panel !== 'none' && (
        <div className="scan-panels">
          {panel === 'import' && (
            <ScanImportForm
              onDone={(scan) => onCreated(scan, 'Rapport importé : scan « {name} » créé.')}
              onClose={() => setPanel('none')}
            />
          )}
          {panel === 'create' && (
            <ScanCreateForm
              onDone={(scan) => onCreated(scan, 'Scan « {name} » créé.')}
              onClose={() => setPanel('none')}
            />
          )}
        </div>
      )}

      <FilterBar
        label="Filtrer les scans"
        role="search"
        filters={[
          { key: 'status', label: 'Statut', allLabel: 'Tous', options: Object.entries(SCAN_STATUS_LABELS) },
          { key: 'scanner', label: 'Scanner', allLabel: 'Tous', options: Object.entries(SCANNER_LABELS) },
        ]}
        values={query}
        onChange={(key, value) => update({ [key]: value })}
      >
        <button type="button" className="btn secondary" onClick={reload}>
          Actualiser
        </button>
      </FilterBar>

      <ActionMessages notice={notice} error={actionError} />
      <LoadStatus loaded={!!data} error={list.error} failure="Impossible de charger les scans" />

      {data && (
        <>
          <DataOriginNote origin={list.origin} />
          <p className="muted" aria-live="polite">
            {data.count === 1 ? '1 scan' : `${NUMBER.format(data.count)} scans`}
            {active && ' — actualisation automatique pendant les scans en cours'}
          </p>
          {results.length === 0 ? (
            <EmptyState>
              {status || scanner ? 'Aucun scan ne correspond à ces filtres.' : 'Aucun scan pour l’instant.'}
            </EmptyState>
          ) : (
            <DataTable
              caption="Scans, les plus récents d’abord"
              captionClass="muted"
              headers={[
                'Nom',
                'Scanner',
                'Cible',
                'Statut',
                'Progression',
                'Résultats',
                'Créé le',
                'Démarré le',
                'Terminé le',
              ]}
              actions={canWrite}
            >
              {results.map((scan) => (
                <tr key={scan.id} data-scan-id={scan.id}>
                  <th scope="row">
                    <Link href={`/scans/${encodeURIComponent(String(scan.id))}`}>{scan.name}</Link>
                  </th>
                  <td>{SCANNER_LABELS[scan.scanner] ?? scan.scanner}</td>
                  <td>{scan.target || '—'}</td>
                  <td>
                    <span className={`vm-badge ${SCAN_STATUS_TONE[scan.status] ?? ''}`}>
                      {SCAN_STATUS_LABELS[scan.status] ?? scan.status}
                    </span>
                  </td>
                  <td>
                    <ScanProgress scan={scan} />
                  </td>
                  <td className="vm-wrap">
                    <ScanResults scan={scan} />
                  </td>
                  <td>{formatDate(scan.created_at)}</td>
                  <td>{formatDate(scan.started_at)}</td>
                  <td>{formatDate(scan.completed_at)}</td>
                  {canWrite && (
                    <td>
                      <DeletableRowActions
                        name={scan.name}
                        question="Supprimer ce scan ?"
                        confirming={confirming === scan.id}
                        busy={busy === scan.id}
                        disableDelete
                        onAsk={() => setConfirming(scan.id)}
                        onConfirm={() => void remove(scan)}
                        onCancel={() => setConfirming(null)}
                      >
                        {allowedActions(scan.status).map((action) => (
                          <RowAction
                            key={action}
                            action={action}
                            text={ACTION_LABELS[action]}
                            name={scan.name}
                            disabled={busy === scan.id}
                            onClick={() => void runAction(scan, action)}
                          />
                        ))}
                      </DeletableRowActions>
                    </td>
                  )}
                </tr>
              ))}
            </DataTable>
          )}
          <Pager label="Pages des scans" page={page} pages={pages} onPage={(p) => update({ page: p })} />
        </>
      )}
    </section>
  );
}
