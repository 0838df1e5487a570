import { Fragment, useState } from 'react';
import { DataOriginNote } from '../../components/data-origin-note.tsx';
import { DataTable } from '../../components/data-table.tsx';
import { ExportControls, type ExportFormat } from '../../components/export-controls.tsx';
import { FilterBar } from '../../components/filter-bar.tsx';
import { EmptyState, ReadStatus } from '../../components/list-state.tsx';
import { Pager } from '../../components/pager.tsx';
import { optionsOf } from '../../components/select.tsx';
import { SearchFilters, type SearchFilterField } from '../../components/search-filters.tsx';
import { pageCount, usePagedList } from '../../lib/use-paged-list.ts';
import { LOG_LEVEL_LABELS, LOG_LEVELS } from '../../../contract/levels.ts';
import { fetchLogs, LOG_EXPORT_PATH, LOG_PAGE_SIZE, type LogLine } from './admin-api.ts';
import { formatDateTime, LOG_LEVEL_BADGES, NUMBER } from './format.ts';

export const LEVEL_LABELS: Record<string, string> = LOG_LEVEL_LABELS;

/** The filters of GET /admin/logs/ and its export, as kept in the URL. */
export const LOG_FILTER_KEYS = [
  'level',
  'min_level',
  'q',
  'date_from',
  'date_to',
  'status',
  'method',
  'request_id',
  'tenant_id',
  'user_id',
] as const;
type FilterKey = (typeof LOG_FILTER_KEYS)[number];
type Filters = Record<FilterKey, string>;
const TEXT_KEYS = ['q', 'status', 'method', 'request_id', 'user_id', 'tenant_id', 'date_from', 'date_to'] as const;

export function logExportFilename(format: ExportFormat, now = new Date()): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `vigie-logs-${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}.${format}`;
}

/** The text filters, applied together; the level selects apply at once. */
const TEXT_FIELDS: readonly SearchFilterField<(typeof TEXT_KEYS)[number]>[] = (
  [
    ['q', 'Texte'],
    ['status', 'Statut HTTP'],
    ['method', 'Méthode'],
    ['request_id', 'Requête'],
    ['user_id', 'Utilisateur (id)'],
    ['tenant_id', 'Organisation (id)'],
    ['date_from', 'Du'],
    ['date_to', 'Au'],
  ] as const
).map(([key, label]) => ({
  key,
  label,
  type: key === 'date_from' || key === 'date_to' ? 'date' : key === 'q' ? 'search' : 'text',
  className: key === 'q' ? 'admin-search-text' : undefined,
  maxLength: 200,
  autoComplete: 'off',
}));

function badStatus({ status }: { status: string }): string | null {
  const s = status.trim();
  return s && !/^[1-5](\d\d|xx)$/i.test(s)
    ? 'Statut HTTP invalide : un code (par exemple 404) ou une classe (par exemple 5xx) est attendu.'
    : null;
}

function LogDetail({ line }: { line: LogLine }) {
  return (
    <dl className="admin-dl">
      <dt>Identifiant</dt>
      <dd>{String(line.id)}</dd>
      <dt>Requête</dt>
      <dd>{line.request_id ?? '—'}</dd>
      <dt>Adresse</dt>
      <dd className="admin-wrap">{line.url ?? '—'}</dd>
      <dt>Organisation</dt>
      <dd>{line.tenant_id ?? '—'}</dd>
      <dt>Contexte</dt>
      <dd>
        <pre className="admin-pre">{line.context ? JSON.stringify(line.context, null, 2) : '—'}</pre>
      </dd>
    </dl>
  );
}

/** Journaux serveur: the server's structured log lines with URL filters, paging and a streamed export. */
export default function LogsPage() {
  const { query, update, list, pages } = usePagedList({
    filters: Object.fromEntries(LOG_FILTER_KEYS.map((k) => [k, ''])) as Filters,
    load: ({ page, ...filters }) =>
      fetchLogs({
        page,
        page_size: LOG_PAGE_SIZE,
        ...Object.fromEntries(LOG_FILTER_KEYS.filter((k) => filters[k]).map((k) => [k, filters[k]])),
      }),
    pages: (data) => pageCount(data.total, LOG_PAGE_SIZE),
  });
  const { page, ...filters } = query;
  const read = list.data;
  const [open, setOpen] = useState<LogLine['id'] | null>(null);

  const exportQuery = Object.fromEntries(LOG_FILTER_KEYS.filter((k) => filters[k]).map((k) => [k, filters[k]]));
  const filtered = LOG_FILTER_KEYS.some((k) => filters[k]);

  return (
    <section className="admin-page">
      <h1>Journaux serveur</h1>
      <FilterBar
        label="Filtrer par niveau"
        filters={[
          { key: 'level', label: 'Niveau', allLabel: 'Tous', options: optionsOf(LOG_LEVEL_LABELS, LOG_LEVELS) },
          {
            key: 'min_level',
            label: 'Niveau minimal',
            allLabel: 'Aucun',
            options: optionsOf(LOG_LEVEL_LABELS, LOG_LEVELS),
          },
        ]}
        values={filters}
        onChange={(key, value) => update({ [key]: value })}
      />
      <SearchFilters
        key={TEXT_KEYS.map((k) => filters[k]).join('|')}
        label="Rechercher dans les journaux"
        className="admin-search"
        fields={TEXT_FIELDS}
        initial={
          Object.fromEntries(TEXT_KEYS.map((k) => [k, filters[k]])) as Record<(typeof TEXT_KEYS)[number], string>
        }
        reversedDates="La date de fin précède la date de début."
        check={badStatus}
        onApply={(values) => update({ ...values, method: values.method.trim().toUpperCase() })}
      />
      <ExportControls
        className="admin-export"
        label="Exporter les journaux filtrés"
        expectedRows={read && !list.error ? read.total : null}
        target={(format) => ({
          path: LOG_EXPORT_PATH,
          query: { ...exportQuery, format },
          filename: logExportFilename(format),
        })}
        errorMessage={(format) => `Impossible d’exporter les journaux en ${format.toUpperCase()}.`}
      />

      <ReadStatus
        pending={!read}
        loading="Chargement des journaux…"
        error={list.error}
        failure="Impossible de charger les journaux"
      />
      {read && (
        <>
          <DataOriginNote origin={list.origin} />
          <p className="muted">{read.total === 1 ? '1 ligne' : `${NUMBER.format(read.total)} lignes`}</p>
          {read.logs.length === 0 ? (
            <EmptyState>
              {filtered ? 'Aucune ligne ne correspond à ces filtres.' : 'Aucune ligne de journal.'}
            </EmptyState>
          ) : (
            <DataTable
              region="Lignes de journal"
              className="admin-logs"
              headers={['Date', 'Niveau', 'Message', 'Statut', 'Durée', 'Utilisateur', 'Détail']}
            >
              {read.logs.map((line) => (
                <Fragment key={line.id}>
                  <tr data-log-id={line.id}>
                    <td>
                      <time dateTime={line.time}>{formatDateTime(line.time)}</time>
                    </td>
                    <td>
                      <span className={`vm-badge ${LOG_LEVEL_BADGES[line.level] ?? ''}`}>
                        {LEVEL_LABELS[line.level] ?? line.level}
                      </span>
                    </td>
                    <td className="admin-wrap">{line.message}</td>
                    <td>{line.status_code ?? '—'}</td>
                    <td>
                      {typeof line.response_time_ms === 'number'
                        ? `${NUMBER.format(Math.round(line.response_time_ms * 10) / 10)} ms`
                        : '—'}
                    </td>
                    <td>
                      {line.username ??
                        (line.user_id !== null && line.user_id !== undefined ? String(line.user_id) : '—')}
                    </td>
                    <td>
                      <button
                        type="button"
                        className="btn secondary small"
                        aria-expanded={open === line.id}
                        onClick={() => setOpen(open === line.id ? null : line.id)}
                      >
                        {open === line.id ? 'Masquer' : 'Afficher'}
                      </button>
                    </td>
                  </tr>
                  {open === line.id && (
                    <tr className="admin-detail-row">
                      <td colSpan={7}>
                        <LogDetail line={line} />
                      </td>
                    </tr>
                  )}
                </Fragment>
              ))}
            </DataTable>
          )}
          <Pager label="Pages des journaux" page={page} pages={pages} onPage={(p) => update({ page: p })} />
        </>
      )}
    </section>
  );
}
