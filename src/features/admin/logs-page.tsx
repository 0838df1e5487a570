import { Fragment, useEffect, useRef, useState, type FormEvent } from 'react';
import { useSearchParams } from 'wouter';
import { DataOriginNote } from '../../components/data-origin-note.tsx';
import { ExportControls, type ExportFormat } from '../../components/export-controls.tsx';
import { FilterSelect } from '../../components/filter-select.tsx';
import { EmptyState } from '../../components/list-state.tsx';
import { Pager } from '../../components/pager.tsx';
import {
  fetchLogs,
  LOG_EXPORT_PATH,
  LOG_LEVELS,
  LOG_PAGE_SIZE,
  type AdminRead,
  type LogLine,
  type LogPage,
} from './admin-api.ts';
import { formatDateTime, NUMBER } from './format.ts';

export const LEVEL_LABELS: Record<string, string> = {
  debug: 'Débogage',
  info: 'Information',
  warning: 'Avertissement',
  error: 'Erreur',
  critical: 'Critique',
};
const LEVEL_BADGES: Record<string, string> = {
  debug: 'info',
  info: 'low',
  warning: 'medium',
  error: 'high',
  critical: 'critical',
};

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

function useLogQuery() {
  const [params, setParams] = useSearchParams();
  const filters = Object.fromEntries(LOG_FILTER_KEYS.map((k) => [k, params.get(k) ?? ''])) as Filters;
  const n = Number(params.get('page'));
  const page = Number.isInteger(n) && n > 0 ? n : 1;
  const update = (changes: Partial<Record<FilterKey | 'page', string | number>>) =>
    setParams(
      (prev) => {
        const next = new URLSearchParams(prev);
        // A new filter starts over at page 1.
        if (!('page' in changes)) next.delete('page');
        for (const [key, value] of Object.entries(changes)) {
          const v = String(value ?? '').trim();
          if (v === '' || (key === 'page' && v === '1')) next.delete(key);
          else next.set(key, v);
        }
        return next;
      },
      { replace: true },
    );
  return { filters, page, update };
}

const LABELS: Record<(typeof TEXT_KEYS)[number], string> = {
  q: 'Texte',
  status: 'Statut HTTP',
  method: 'Méthode',
  request_id: 'Requête',
  user_id: 'Utilisateur (id)',
  tenant_id: 'Organisation (id)',
  date_from: 'Du',
  date_to: 'Au',
};

/** The text filters, applied together; the level selects apply at once. */
function FilterForm({ filters, onApply }: { filters: Filters; onApply: (changes: Partial<Filters>) => void }) {
  const [values, setValues] = useState(() => Object.fromEntries(TEXT_KEYS.map((k) => [k, filters[k]])));
  const [error, setError] = useState<string | null>(null);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const status = values.status?.trim() ?? '';
    if (status && !/^[1-5](\d\d|xx)$/i.test(status)) {
      setError('Statut HTTP invalide : un code (par exemple 404) ou une classe (par exemple 5xx) est attendu.');
      return;
    }
    if (values.date_from && values.date_to && values.date_from > values.date_to) {
      setError('La date de fin précède la date de début.');
      return;
    }
    setError(null);
    onApply({ ...values, method: (values.method ?? '').trim().toUpperCase() });
  };
  return (
    <form role="search" className="admin-search" aria-label="Rechercher dans les journaux" onSubmit={submit}>
      {TEXT_KEYS.map((key) => (
        <label key={key} className={key === 'q' ? 'admin-search-text' : undefined}>
          {LABELS[key]}
          <input
            name={key}
            type={key === 'date_from' || key === 'date_to' ? 'date' : key === 'q' ? 'search' : 'text'}
            value={values[key] ?? ''}
            maxLength={200}
            autoComplete="off"
            onChange={(e) => setValues((v) => ({ ...v, [key]: e.target.value }))}
          />
        </label>
      ))}
      <button type="submit" className="btn secondary">
        Rechercher
      </button>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
    </form>
  );
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
  const { filters, page, update } = useLogQuery();
  const [read, setRead] = useState<AdminRead<LogPage> | null>(null);
  const [open, setOpen] = useState<LogLine['id'] | null>(null);
  const seq = useRef(0);
  const filterKey = LOG_FILTER_KEYS.map((k) => filters[k]).join('\u0000');

  useEffect(() => {
    const mine = ++seq.current;
    const values = filterKey.split('\u0000');
    const query: Record<string, string | number> = { page, page_size: LOG_PAGE_SIZE };
    LOG_FILTER_KEYS.forEach((k, i) => {
      if (values[i]) query[k] = values[i];
    });
    void fetchLogs(query).then((answer) => mine === seq.current && setRead(answer));
  }, [page, filterKey]);

  const exportQuery = Object.fromEntries(LOG_FILTER_KEYS.filter((k) => filters[k]).map((k) => [k, filters[k]]));
  const pages = read ? Math.max(1, Math.ceil(read.data.total / LOG_PAGE_SIZE)) : 1;
  const filtered = LOG_FILTER_KEYS.some((k) => filters[k]);

  return (
    <section className="admin-page">
      <h1>Journaux serveur</h1>
      <div className="vm-toolbar" role="group" aria-label="Filtrer par niveau">
        <FilterSelect
          label="Niveau"
          value={filters.level}
          allLabel="Tous"
          options={LOG_LEVELS.map((l) => [l, LEVEL_LABELS[l]!] as const)}
          onChange={(value) => update({ level: value })}
        />
        <FilterSelect
          label="Niveau minimal"
          value={filters.min_level}
          allLabel="Aucun"
          options={LOG_LEVELS.map((l) => [l, LEVEL_LABELS[l]!] as const)}
          onChange={(value) => update({ min_level: value })}
        />
      </div>
      <FilterForm key={TEXT_KEYS.map((k) => filters[k]).join('|')} filters={filters} onApply={update} />
      <ExportControls
        className="admin-export"
        label="Exporter les journaux filtrés"
        expectedRows={read && !read.error ? read.data.total : null}
        target={(format) => ({
          path: LOG_EXPORT_PATH,
          query: { ...exportQuery, format },
          filename: logExportFilename(format),
        })}
        errorMessage={(format) => `Impossible d’exporter les journaux en ${format.toUpperCase()}.`}
      />

      {!read && <p role="status">Chargement des journaux…</p>}
      {read?.error && (
        <p className="error" role="alert">
          Impossible de charger les journaux : {read.error}
        </p>
      )}
      {read && (
        <>
          <DataOriginNote origin={read.origin} />
          <p className="muted">{read.data.total === 1 ? '1 ligne' : `${NUMBER.format(read.data.total)} lignes`}</p>
          {read.data.logs.length === 0 ? (
            <EmptyState>
              {filtered ? 'Aucune ligne ne correspond à ces filtres.' : 'Aucune ligne de journal.'}
            </EmptyState>
          ) : (
            <div className="table-wrap" role="region" tabIndex={0} aria-label="Lignes de journal">
              <table className="table admin-logs">
                <thead>
                  <tr>
                    <th scope="col">Date</th>
                    <th scope="col">Niveau</th>
                    <th scope="col">Message</th>
                    <th scope="col">Statut</th>
                    <th scope="col">Durée</th>
                    <th scope="col">Utilisateur</th>
                    <th scope="col">Détail</th>
                  </tr>
                </thead>
                <tbody>
                  {read.data.logs.map((line) => (
                    <Fragment key={line.id}>
                      <tr data-log-id={line.id}>
                        <td>
                          <time dateTime={line.time}>{formatDateTime(line.time)}</time>
                        </td>
                        <td>
                          <span className={`vm-badge ${LEVEL_BADGES[line.level] ?? ''}`}>
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
                </tbody>
              </table>
            </div>
          )}
          <Pager label="Pages des journaux" page={page} pages={pages} onPage={(p) => update({ page: p })} />
        </>
      )}
    </section>
  );
}
