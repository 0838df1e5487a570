import { useEffect, useRef, useState } from 'react';
import { Link, useLocation, useSearch } from 'wouter';
import { useSignals } from '@preact/signals-react/runtime';
import { useVirtualizer } from '@tanstack/react-virtual';
import { DataOriginNote } from '../../components/data-origin-note.tsx';
import { FINDING_SEVERITIES, FINDING_SEVERITY_LABELS } from '../../../contract/severity.ts';
import { SSVC_DECISIONS, SSVC_LABELS } from '../../../contract/ssvc.ts';
import { CheckGroup } from '../../components/check-group.tsx';
import { fetchAssetOptions, fetchVulnerabilityPage } from './api/vulnerabilities.ts';
import type { AssetOption, Vulnerability } from './api/types.ts';
import { KevBadge, SeverityBadge } from '../../components/severity-badges.tsx';
import { ExportControls } from './export-controls.tsx';
import { formatDate, formatPercent, formatScore, plural, stateText } from './format.ts';
import {
  filtersToApi,
  filtersToSearch,
  hasFilters,
  ORDERINGS,
  parseFilters,
  type ListFilters,
} from './list-filters.ts';
import { tenantKey } from './permissions.ts';
import { usePagedWindow } from '../../lib/use-paged-list.ts';
import { useResource } from '../../lib/use-resource.ts';
import { RetryError } from '../../components/list-state.tsx';
import { CVE_SEARCH_LINK, DASHBOARD_LINK, ScreenHead } from './screen-head.tsx';
import './vulnerabilities.css';
import { may } from '../../lib/auth/can-write.ts';
import { BulkBar, noSelection, type Selection } from './bulk-bar.tsx';
import { SsvcBadge } from './ssvc-badge.tsx';
import { FindingForm } from './finding-form.tsx';

export const ROW_HEIGHT = 44;
/** Rows read at a time as the visible range needs them. */
export const PAGE_SIZE = 200;
/** Pages kept in memory around the visible rows (the rest is dropped and fetched again if needed). */
export const PAGES_KEPT = 10;
const TEXT_DEBOUNCE_MS = 400;
const LIST_PATH = '/vulnerabilities/list';

/** Sortable columns: header → API ordering field. */
const SORTABLE: Record<string, string> = {
  cve: 'cve_id',
  title: 'title',
  severity: 'severity',
  ssvc: 'ssvc_decision',
  cvss: 'cvss_score',
  date: 'created_at',
};

/** The severity filter: the five scored severities, then « Non évaluée » (after Info). */
const SEVERITY_OPTIONS = FINDING_SEVERITIES.map((s) => [s, FINDING_SEVERITY_LABELS[s]] as const);
/** The SSVC filter, the most urgent decision first (the URL keeps CISA's table order, list-filters.ts). */
const SSVC_OPTIONS = [...SSVC_DECISIONS].reverse().map((d) => [d, SSVC_LABELS[d]] as const);

/** The filtered vulnerability list: filters and ordering in the URL, rows virtualised and fetched by page. */
export default function VulnerabilityListPage() {
  useSignals();
  const search = useSearch();
  const [, navigate] = useLocation();
  const filters = parseFilters(search);
  const canonical = filtersToSearch(filters);
  const apiQuery = filtersToApi(filters);
  // A bulk change reloads the rows (a new key), and a new filter drops the selection.
  const [reloads, setReloads] = useState(0);
  const key = `${canonical}|${filters.ordering}|${tenantKey()}|${reloads}`;
  const [selection, setSelection] = useState<Selection>(noSelection);
  const [bulkOutcome, setBulkOutcome] = useState<string | null>(null);
  const [selectionFor, setSelectionFor] = useState(canonical);
  if (selectionFor !== canonical) {
    setSelectionFor(canonical);
    setSelection(noSelection());
    setBulkOutcome(null);
  }
  const selectable = may('change_content');
  const [creating, setCreating] = useState(false);
  const rows = usePagedWindow(key, (page, size) => fetchVulnerabilityPage(apiQuery, page, size), {
    pageSize: PAGE_SIZE,
    pagesKept: PAGES_KEPT,
  });

  const setFilters = (next: ListFilters) => {
    const qs = filtersToSearch(next);
    if (qs !== canonical) navigate(qs ? `${LIST_PATH}?${qs}` : LIST_PATH);
  };

  return (
    <section className="page page-wide vuln-page">
      <ScreenHead title="Liste des vulnérabilités" links={[DASHBOARD_LINK, CVE_SEARCH_LINK]} />
      {selectable && !creating && (
        <p>
          <button type="button" className="btn primary" onClick={() => setCreating(true)}>
            Nouvelle vulnérabilité
          </button>
        </p>
      )}
      {selectable && creating && (
        <FindingForm
          onClose={() => setCreating(false)}
          onSaved={(created) => navigate(`/vulnerabilities/${encodeURIComponent(String(created.id))}`)}
        />
      )}

      <FilterForm filters={filters} onChange={setFilters} />

      <div className="list-bar">
        <p className="count" role="status" aria-live="polite">
          {rows.total === null
            ? rows.error
              ? ''
              : 'Chargement…'
            : plural(rows.total, 'vulnérabilité', 'vulnérabilités')}
        </p>
        <ExportControls query={apiQuery} expectedRows={rows.total} />
      </div>
      <DataOriginNote origin={rows.origin} />
      {selectable && rows.total !== null && rows.total > 0 && (
        <BulkBar
          selection={selection}
          total={rows.total}
          query={apiQuery}
          onSelect={setSelection}
          outcome={bulkOutcome}
          onDone={(outcome) => {
            setBulkOutcome(outcome);
            if (outcome) setReloads((n) => n + 1);
          }}
        />
      )}
      {rows.error && <RetryError className="vuln-error" message={rows.error} onRetry={rows.retry} />}
      {rows.total === 0 && (
        <p className="empty">
          {hasFilters(filters)
            ? 'Aucune vulnérabilité ne correspond à ces filtres.'
            : 'Aucune vulnérabilité enregistrée pour le moment.'}{' '}
          {hasFilters(filters) && (
            <button type="button" className="link" onClick={() => setFilters(parseFilters(''))}>
              Effacer les filtres
            </button>
          )}
        </p>
      )}
      {rows.total !== null && rows.total > 0 && (
        <VirtualTable
          key={key}
          total={rows.total}
          rowAt={rows.rowAt}
          ensureRange={rows.ensureRange}
          ordering={filters.ordering}
          onSort={(ordering) => setFilters({ ...filters, ordering })}
          onOpen={(v) => navigate(`/vulnerabilities/${encodeURIComponent(String(v.id))}`)}
          selection={selectable ? selection : undefined}
          onSelect={setSelection}
        />
      )}
    </section>
  );
}

function FilterForm({ filters, onChange }: { filters: ListFilters; onChange: (f: ListFilters) => void }) {
  const assets: AssetOption[] | undefined = useResource(async () => ({ data: await fetchAssetOptions() }), []).data;

  // The text field: typed freely, written to the URL after a pause; a URL change from elsewhere (back) wins.
  const [draft, setDraft] = useState(filters.text);
  const [seen, setSeen] = useState(filters.text);
  const [pushed, setPushed] = useState(filters.text);
  if (filters.text !== seen) {
    setSeen(filters.text);
    if (filters.text !== pushed) setDraft(filters.text);
  }
  const latest = useRef({ filters, onChange });
  useEffect(() => {
    latest.current = { filters, onChange };
  });
  useEffect(() => {
    if (draft.trim() === latest.current.filters.text.trim()) return;
    const t = setTimeout(() => {
      setPushed(draft.trim());
      latest.current.onChange({ ...latest.current.filters, text: draft });
    }, TEXT_DEBOUNCE_MS);
    return () => clearTimeout(t);
  }, [draft]);

  const assetKnown = !filters.asset || assets?.some((a) => String(a.id) === filters.asset);

  return (
    <form
      className="card vuln-filters"
      role="search"
      aria-label="Filtrer les vulnérabilités"
      onSubmit={(e) => e.preventDefault()}
    >
      <div>
        <label htmlFor="vf-text">Recherche</label>
        <input
          id="vf-text"
          type="search"
          value={draft}
          placeholder="CVE, titre, description…"
          onChange={(e) => setDraft(e.target.value)}
        />
      </div>
      <CheckGroup
        legend="Gravité"
        name="severity"
        options={SEVERITY_OPTIONS}
        checked={filters.severity}
        onChange={(severity) => onChange({ ...filters, severity })}
      />
      <CheckGroup
        legend="Décision SSVC"
        name="ssvc"
        options={SSVC_OPTIONS}
        checked={filters.ssvc}
        onChange={(ssvc) => onChange({ ...filters, ssvc })}
      />
      <div>
        <label htmlFor="vf-status">Statut</label>
        <select
          id="vf-status"
          value={filters.is_resolved}
          onChange={(e) => onChange({ ...filters, is_resolved: e.target.value as ListFilters['is_resolved'] })}
        >
          <option value="">Tous</option>
          <option value="false">Ouvertes</option>
          <option value="true">Résolues</option>
        </select>
      </div>
      <div>
        <label htmlFor="vf-kev">KEV (exploitées)</label>
        <select
          id="vf-kev"
          value={filters.kev}
          onChange={(e) => onChange({ ...filters, kev: e.target.value as ListFilters['kev'] })}
        >
          <option value="">Toutes</option>
          <option value="true">KEV uniquement</option>
          <option value="false">Hors KEV</option>
        </select>
      </div>
      <div>
        <label htmlFor="vf-asset">Actif</label>
        <select id="vf-asset" value={filters.asset} onChange={(e) => onChange({ ...filters, asset: e.target.value })}>
          <option value="">Tous les actifs</option>
          {!assetKnown && <option value={filters.asset}>Actif n° {filters.asset}</option>}
          {(assets ?? []).map((a) => (
            <option key={a.id} value={String(a.id)}>
              {a.name}
            </option>
          ))}
        </select>
      </div>
      <div>
        <label htmlFor="vf-ordering">Trier par</label>
        <select
          id="vf-ordering"
          value={filters.ordering}
          onChange={(e) => onChange({ ...filters, ordering: e.target.value })}
        >
          {ORDERINGS.map((o) => (
            <option key={o.value} value={o.value}>
              {o.label}
            </option>
          ))}
          {!ORDERINGS.some((o) => o.value === filters.ordering) && (
            <option value={filters.ordering}>{filters.ordering}</option>
          )}
        </select>
      </div>
      {(filters.cve || filters.scan || hasFilters(filters)) && (
        <div className="span-all">
          {filters.cve && (
            <span className="filter-chip">
              CVE : <span className="mono">{filters.cve}</span>
              <button
                type="button"
                className="link"
                aria-label={`Retirer le filtre ${filters.cve}`}
                onClick={() => onChange({ ...filters, cve: '' })}
              >
                ×
              </button>
            </span>
          )}{' '}
          {filters.scan && (
            <span className="filter-chip">
              Scan n° {filters.scan}
              <button
                type="button"
                className="link"
                aria-label={`Retirer le filtre du scan n° ${filters.scan}`}
                onClick={() => onChange({ ...filters, scan: '' })}
              >
                ×
              </button>
            </span>
          )}{' '}
          <button
            type="button"
            className="link"
            onClick={() => {
              setDraft('');
              onChange({ ...parseFilters(''), ordering: filters.ordering });
            }}
          >
            Effacer les filtres
          </button>
        </div>
      )}
    </form>
  );
}

interface VirtualTableProps {
  total: number;
  rowAt: (index: number) => Vulnerability | undefined;
  ensureRange: (first: number, last: number) => void;
  ordering: string;
  onSort: (ordering: string) => void;
  onOpen: (v: Vulnerability) => void;
  /** Writers tick rows for a bulk action; undefined: no checkboxes. */
  selection?: Selection | undefined;
  onSelect: (next: Selection) => void;
}

function VirtualTable({ total, rowAt, ensureRange, ordering, onSort, onOpen, selection, onSelect }: VirtualTableProps) {
  const ticked = (v: Vulnerability) =>
    selection?.kind === 'all' || (selection?.kind === 'ids' && selection.ids.has(String(v.id)));
  const tick = (v: Vulnerability, on: boolean) => {
    const ids = new Set(selection?.kind === 'ids' ? selection.ids : []);
    if (on) ids.add(String(v.id));
    else ids.delete(String(v.id));
    onSelect({ kind: 'ids', ids });
  };
  const columns = selection ? 11 : 10;
  const scroller = useRef<HTMLDivElement>(null);
  // eslint-disable-next-line react-hooks/incompatible-library -- the virtualizer is read during render by design
  const virtualizer = useVirtualizer({
    count: total,
    getScrollElement: () => scroller.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 8,
  });
  const items = virtualizer.getVirtualItems();
  const first = items[0]?.index ?? 0;
  const last = items.at(-1)?.index ?? -1;

  useEffect(() => {
    ensureRange(first, last);
  }, [first, last, ensureRange]);

  const padTop = items[0]?.start ?? 0;
  const padBottom = items.length ? virtualizer.getTotalSize() - (items.at(-1)?.end ?? 0) : 0;

  const field = ordering.replace(/^-/, '');
  const desc = ordering.startsWith('-');
  const header = (col: keyof typeof SORTABLE, label: string, className: string) => {
    const f = SORTABLE[col]!;
    const active = field === f;
    const next = active
      ? desc
        ? f
        : `-${f}`
      : col === 'cvss' || col === 'severity' || col === 'ssvc' || col === 'date'
        ? `-${f}`
        : f;
    return (
      <th scope="col" className={className} aria-sort={active ? (desc ? 'descending' : 'ascending') : undefined}>
        <button type="button" onClick={() => onSort(next)}>
          {label}
          {active ? (desc ? ' ↓' : ' ↑') : ''}
        </button>
      </th>
    );
  };

  return (
    <div
      className="vuln-scroller"
      ref={scroller}
      tabIndex={0}
      role="region"
      aria-label="Vulnérabilités (liste défilante)"
    >
      <table className="vuln-table" aria-rowcount={total + 1}>
        <thead>
          <tr aria-rowindex={1}>
            {selection && (
              <th scope="col" className="col-check">
                <span className="visually-hidden">Sélection</span>
              </th>
            )}
            {header('cve', 'CVE', 'col-cve')}
            {header('title', 'Titre', 'col-title')}
            {header('severity', 'Gravité', 'col-sev')}
            {header('ssvc', 'SSVC', 'col-ssvc')}
            {header('cvss', 'CVSS', 'col-num opt-sm')}
            <th scope="col" className="col-asset opt-md opt-lg">
              Actif
            </th>
            <th scope="col" className="col-kev opt-md">
              KEV
            </th>
            <th scope="col" className="col-epss opt-md opt-lg">
              EPSS
            </th>
            {header('date', 'Détectée le', 'col-date opt-sm')}
            <th scope="col" className="col-status">
              Statut
            </th>
          </tr>
        </thead>
        <tbody>
          {padTop > 0 && (
            <tr className="spacer" aria-hidden="true">
              <td style={{ height: padTop }} />
            </tr>
          )}
          {items.map((item) => {
            const v = rowAt(item.index);
            if (!v)
              return (
                <tr key={item.key} className="row loading" aria-rowindex={item.index + 2} aria-busy="true">
                  <td colSpan={columns}>
                    <span className="placeholder" />
                    <span className="visually-hidden">Chargement…</span>
                  </td>
                </tr>
              );
            return (
              <tr key={item.key} className="row" aria-rowindex={item.index + 2} onClick={() => onOpen(v)}>
                {selection && (
                  <td className="col-check" onClick={(e) => e.stopPropagation()}>
                    <input
                      type="checkbox"
                      checked={ticked(v)}
                      disabled={selection.kind === 'all'}
                      aria-label={`Sélectionner ${v.cve_id ?? `n° ${v.id}`}`}
                      onChange={(e) => tick(v, e.target.checked)}
                    />
                  </td>
                )}
                <td className="mono">
                  <Link
                    href={`/vulnerabilities/${encodeURIComponent(String(v.id))}`}
                    onClick={(e) => e.stopPropagation()}
                  >
                    {v.cve_id ?? `n° ${v.id}`}
                  </Link>
                </td>
                <td title={v.title} data-content="">
                  {v.title}
                </td>
                <td>
                  <SeverityBadge severity={v.severity} />
                </td>
                <td>
                  <SsvcBadge decision={v.ssvc_decision} />
                </td>
                <td className="num opt-sm">{formatScore(v.cvss_score)}</td>
                <td className="opt-md opt-lg" title={v.asset?.name}>
                  {v.asset?.name ?? '—'}
                </td>
                <td className="opt-md">{v.kev ? <KevBadge kev /> : <span className="muted">—</span>}</td>
                <td className="num opt-md opt-lg">{formatPercent(v.epss_score)}</td>
                <td className="opt-sm">{formatDate(v.first_seen ?? v.created_at)}</td>
                <td>{stateText(v)}</td>
              </tr>
            );
          })}
          {padBottom > 0 && (
            <tr className="spacer" aria-hidden="true">
              <td style={{ height: padBottom }} />
            </tr>
          )}
        </tbody>
      </table>
    </div>
  );
}
