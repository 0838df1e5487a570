import { useEffect, useRef, useState } from 'react';
import { useSignals } from '@preact/signals-react/runtime';
import { ApiError } from '../../lib/api-client.ts';
import { DataOriginNote } from '../../components/data-origin-note.tsx';
import { DataTable } from '../../components/data-table.tsx';
import { Figure, SampleScope } from '../../components/sample-scope.tsx';
import { ExportControls } from '../../components/export-controls.tsx';
import { FilterBar } from '../../components/filter-bar.tsx';
import { EmptyState } from '../../components/list-state.tsx';
import { Pager } from '../../components/pager.tsx';
import { optionsOf } from '../../components/select.tsx';
import { SearchFilters, type SearchFilterField } from '../../components/search-filters.tsx';
import { messageOf } from '../../lib/error-message.ts';
import { usePagedList } from '../../lib/use-paged-list.ts';
import { currentTenantId, session } from '../../lib/auth/session.ts';
import { AUDIT_SEVERITIES, AUDIT_SEVERITY_LABELS } from '../../../contract/levels.ts';
import {
  auditExportPath,
  fetchAuditEvents,
  filterParams,
  type AuditEvent,
  type AuditExportFormat,
  type AuditFilters,
} from './audit-api.ts';
import { sampleAuditPage } from './audit-sample.ts';
import './audit.css';
import { dateFormat } from '../../lib/format.ts';

/** spec §9: the audit trail pages by 10. */
export const AUDIT_PAGE_SIZE = 10;

export const SEVERITY_LABELS: Record<string, string> = AUDIT_SEVERITY_LABELS;

export const EVENT_TYPE_LABELS: Record<string, string> = {
  user_login: 'Connexion',
  user_logout: 'Déconnexion',
  login_failed: 'Échec de connexion',
  configuration_change: 'Modification de configuration',
  vulnerability_scan: 'Scan de vulnérabilités',
  sensitive_data_access: 'Accès à des données sensibles',
  permission_denied: 'Permission refusée',
  access_denied: 'Accès refusé',
  data_change: 'Modification de données',
  password_change: 'Changement de mot de passe',
  password_reset: 'Réinitialisation du mot de passe',
  two_factor_change: 'Authentification à deux facteurs',
  user_created: 'Utilisateur créé',
  user_updated: 'Utilisateur modifié',
  user_deleted: 'Utilisateur supprimé',
  refresh_token_reuse: 'Réutilisation d’un jeton',
  token_expired: 'Token expiré',
  // Events sent by the application's audit buffer (source « Application »).
  login: 'Connexion (application)',
  logout: 'Déconnexion (application)',
  token_refresh: 'Renouvellement du jeton',
  permission_check: 'Vérification de droits',
  tenant_switch: 'Changement d’organisation',
  route_change: 'Navigation',
  api_request: 'Appel API',
  api_error: 'Erreur d’appel API',
  ui_action: 'Action dans l’interface',
  ui_event: 'Événement de l’interface',
};

const SOURCE_LABELS: Record<string, string> = { server: 'Serveur', frontend: 'Application' };

/** docs/api-audit.md: the French message of a 403. */
export const FORBIDDEN_MESSAGE = "Vous n'avez pas les autorisations nécessaires pour accéder à cette ressource";

/** spec §8 export failure. */
export function auditExportErrorMessage(format: AuditExportFormat): string {
  return `Impossible d'exporter les données d'audit en ${format}.`;
}

export function auditExportFilename(format: AuditExportFormat, now = new Date()): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `audit-${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}.${format}`;
}

const DATE_TIME = dateFormat({ dateStyle: 'short', timeStyle: 'medium' });
const DATE_TIME_LONG = dateFormat({ dateStyle: 'full', timeStyle: 'long' });
const NUMBER = new Intl.NumberFormat('fr-FR');

export function formatDateTime(iso: string | null | undefined, long = false): string {
  if (!iso) return '—';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? '—' : (long ? DATE_TIME_LONG : DATE_TIME).format(d);
}

const labelOf = (labels: Record<string, string>, key: string | null | undefined) => (key ? (labels[key] ?? key) : '—');

const NO_FILTERS: Required<AuditFilters> = {
  event_type: '',
  severity: '',
  user: '',
  source: '',
  date_from: '',
  date_to: '',
  q: '',
  tenant: '',
};
const FILTER_KEYS = Object.keys(NO_FILTERS) as (keyof AuditFilters)[];

/** The text filters, applied together with one button; the selects apply at once. */
const TEXT_FIELDS: readonly SearchFilterField<'user' | 'date_from' | 'date_to' | 'q'>[] = [
  { key: 'user', label: 'Utilisateur', autoComplete: 'off' },
  { key: 'date_from', label: 'Du', type: 'date' },
  { key: 'date_to', label: 'Au', type: 'date' },
  { key: 'q', label: 'Texte', type: 'search', className: 'audit-search-text' },
];

function AuditExport({ filters, expectedRows }: { filters: AuditFilters; expectedRows: number | null }) {
  return (
    <ExportControls
      className="audit-export"
      label="Exporter le journal filtré"
      expectedRows={expectedRows}
      target={(format) => ({
        path: auditExportPath(format),
        query: filterParams(filters),
        filename: auditExportFilename(format),
      })}
      errorMessage={auditExportErrorMessage}
    />
  );
}

function SeverityBadge({ severity }: { severity: string }) {
  return (
    <span className={`audit-badge ${severity.toLowerCase()}`} data-severity={severity}>
      {labelOf(SEVERITY_LABELS, severity)}
    </span>
  );
}

function yesNo(value: boolean | null | undefined): string {
  return value === true ? 'Oui' : value === false ? 'Non' : '—';
}

function extraValue(value: unknown): string {
  if (value === null || value === undefined) return '—';
  if (typeof value === 'boolean') return yesNo(value);
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'bigint') return value.toString();
  return JSON.stringify(value) ?? '—';
}

/** Every field of one event, including details and extra, as a definition list. */
function EventDetail({ event, onClose }: { event: AuditEvent; onClose: () => void }) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), [event.id]);
  const extra = event.extra && typeof event.extra === 'object' ? Object.entries(event.extra) : [];
  return (
    <aside className="audit-detail card" aria-labelledby="audit-detail-title">
      <div className="audit-detail-head">
        <h2 id="audit-detail-title" tabIndex={-1} ref={heading}>
          Détail de l’événement
        </h2>
        <button type="button" className="btn secondary small" onClick={onClose}>
          Fermer
        </button>
      </div>
      <dl className="audit-dl">
        <dt>Identifiant</dt>
        <dd>{String(event.id)}</dd>
        <dt>Date</dt>
        <dd>
          <time dateTime={event.timestamp}>{formatDateTime(event.timestamp, true)}</time>
        </dd>
        <dt>Type</dt>
        <dd>
          {labelOf(EVENT_TYPE_LABELS, event.event_type)} <code>{event.event_type}</code>
        </dd>
        <dt>Gravité</dt>
        <dd>
          <SeverityBadge severity={event.severity} />
        </dd>
        <dt>Description</dt>
        <dd>{event.description || '—'}</dd>
        <dt>Utilisateur</dt>
        <dd>{event.user ?? 'Anonyme'}</dd>
        <dt>Adresse IP</dt>
        <dd>{event.ip_address ?? '—'}</dd>
        <dt>Tenant</dt>
        <dd>{event.tenant_id ?? 'Plateforme'}</dd>
        <dt>Origine</dt>
        <dd>{labelOf(SOURCE_LABELS, event.source)}</dd>
        <dt>Navigateur</dt>
        <dd>{event.details?.browser ?? '—'}</dd>
        <dt>Système</dt>
        <dd>{event.details?.os ?? '—'}</dd>
        <dt>Réussite</dt>
        <dd>{yesNo(event.details?.success)}</dd>
      </dl>
      <h3>Informations complémentaires</h3>
      {extra.length === 0 ? (
        <p className="muted">Aucune.</p>
      ) : (
        <dl className="audit-dl audit-extra">
          {extra.map(([key, value]) => (
            <div key={key}>
              <dt>{key}</dt>
              <dd>{extraValue(value)}</dd>
            </div>
          ))}
        </dl>
      )}
    </aside>
  );
}

/** Journal d’audit: the server trail with URL filters, paging, event detail and CSV/JSON export. */
export default function AuditPage() {
  useSignals();
  const profile = session.value?.profile;
  const superuser = profile?.is_superuser === true;
  // The filters live in the URL (?page=&event_type=&severity=&user=&source=&date_from=&date_to=&q=&tenant=).
  const { query, update, list } = usePagedList({
    filters: NO_FILTERS,
    load: async ({ page, ...filters }) => {
      // Only superusers may widen the scope; anyone else reads the current tenant.
      const scope = { ...filters, tenant: superuser ? filters.tenant : '' };
      try {
        return await fetchAuditEvents({ page, size: AUDIT_PAGE_SIZE, ...scope });
      } catch (err) {
        if (err instanceof ApiError && (err.status === 403 || err.status === 401)) throw err;
        // spec §8: any other read failure shows the generated sample, clearly marked.
        return { data: sampleAuditPage(page), origin: { source: 'sample' } as const, error: messageOf(err) };
      }
    },
    pages: (data) => data.pages,
    deps: [currentTenantId() ?? '', superuser],
  });
  const { page, ...filters } = query;
  const scope: AuditFilters = { ...filters, tenant: superuser ? filters.tenant : '' };
  const [selected, setSelected] = useState<AuditEvent['id'] | null>(null);

  const forbidden = list.state.status === 'error' && list.state.httpStatus === 403;
  const fallback = list.state.status === 'ready' ? list.state.error : null;
  const data = forbidden ? undefined : list.data;
  const origin = list.origin;
  const event = data?.results.find((e) => e.id === selected) ?? null;
  const filtered = FILTER_KEYS.some((k) => k !== 'tenant' && filters[k]);
  const allTenants = superuser && filters.tenant === 'all';

  return (
    <section className="page audit-page">
      <div className="vm-head">
        <h1>Journal d’audit</h1>
      </div>

      {forbidden ? (
        <div className="card audit-forbidden">
          <p className="error" role="alert">
            {FORBIDDEN_MESSAGE}
          </p>
          <p className="muted">Le journal d’audit est réservé aux administrateurs et responsables du tenant.</p>
        </div>
      ) : (
        <>
          <FilterBar
            label="Filtrer le journal d’audit"
            className="vm-toolbar audit-toolbar"
            filters={[
              {
                key: 'event_type',
                label: 'Type d’événement',
                allLabel: 'Tous',
                options: Object.entries(EVENT_TYPE_LABELS),
              },
              {
                key: 'severity',
                label: 'Gravité',
                allLabel: 'Toutes',
                options: optionsOf(AUDIT_SEVERITY_LABELS, AUDIT_SEVERITIES),
              },
              { key: 'source', label: 'Origine', allLabel: 'Toutes', options: Object.entries(SOURCE_LABELS) },
            ]}
            values={filters}
            onChange={(key, value) => update({ [key]: value })}
          >
            {superuser && (
              <label className="vm-check audit-all-tenants">
                <input
                  type="checkbox"
                  checked={allTenants}
                  onChange={(e) => update({ tenant: e.target.checked ? 'all' : '' })}
                />
                Tous les tenants
              </label>
            )}
          </FilterBar>
          <SearchFilters
            key={`${filters.user}|${filters.date_from}|${filters.date_to}|${filters.q}`}
            label="Rechercher dans le journal"
            className="audit-search"
            fields={TEXT_FIELDS}
            initial={{ user: filters.user, date_from: filters.date_from, date_to: filters.date_to, q: filters.q }}
            reversedDates="La date de début doit précéder la date de fin."
            onApply={(values) => update(values)}
          />
          <AuditExport
            filters={scope}
            expectedRows={list.state.status === 'ready' && !fallback ? list.state.data.total : null}
          />

          {list.loading && !data && <p role="status">Chargement du journal…</p>}
          {list.state.status === 'error' && (
            <p className="error" role="alert">
              Impossible de charger le journal d’audit : {list.state.message}
            </p>
          )}
          {fallback && (
            <p className="error" role="alert">
              Impossible de charger le journal d’audit : {fallback} — des événements d’exemple sont affichés.
            </p>
          )}

          {data && (
            <div className={`audit-body${event ? ' with-detail' : ''}`}>
              <div className="audit-list">
                <DataOriginNote origin={origin} />
                <SampleScope origin={origin}>
                  <p className="muted audit-count">
                    <Figure>{NUMBER.format(data.total)}</Figure> {data.total === 1 ? 'événement' : 'événements'}
                    {allTenants && ' — tous les tenants'}
                  </p>
                </SampleScope>
                {data.results.length === 0 ? (
                  <EmptyState>
                    {filtered ? 'Aucun événement ne correspond à ces filtres.' : 'Aucun événement enregistré.'}
                  </EmptyState>
                ) : (
                  <DataTable
                    region="Événements d’audit"
                    wrapClassName="audit-table-wrap"
                    className={`audit-table${fallback ? ' sample' : ''}`}
                    caption={fallback && 'Exemple — ces événements ne sont pas réels'}
                    captionClass=""
                    headers={[
                      'Date',
                      'Gravité',
                      'Type',
                      'Utilisateur',
                      'Description',
                      'Adresse IP',
                      allTenants && 'Tenant',
                      <span key="detail" className="sr-only">
                        Détail
                      </span>,
                    ]}
                  >
                    {data.results.map((e) => (
                      <tr
                        key={e.id}
                        data-event-id={e.id}
                        className={e.id === selected ? 'selected' : undefined}
                        aria-selected={e.id === selected}
                      >
                        <td>
                          <time dateTime={e.timestamp}>{formatDateTime(e.timestamp)}</time>
                        </td>
                        <td>
                          <SeverityBadge severity={e.severity} />
                        </td>
                        <td>{labelOf(EVENT_TYPE_LABELS, e.event_type)}</td>
                        <td>{e.user ?? <span className="muted">Anonyme</span>}</td>
                        <td className="vm-wrap audit-description">{e.description}</td>
                        <td>{e.ip_address ?? '—'}</td>
                        {allTenants && <td>{e.tenant_id ?? 'Plateforme'}</td>}
                        <td>
                          <button
                            type="button"
                            className="btn secondary small"
                            data-action="detail"
                            aria-label={`Détail de l’événement du ${formatDateTime(e.timestamp)}`}
                            onClick={() => setSelected(e.id === selected ? null : e.id)}
                          >
                            Détail
                          </button>
                        </td>
                      </tr>
                    ))}
                  </DataTable>
                )}
                <Pager
                  label="Pages du journal d’audit"
                  page={data.page || page}
                  pages={Math.max(1, data.pages)}
                  onPage={(p) => update({ page: p })}
                />
              </div>
              {event && <EventDetail event={event} onClose={() => setSelected(null)} />}
            </div>
          )}
        </>
      )}
    </section>
  );
}
