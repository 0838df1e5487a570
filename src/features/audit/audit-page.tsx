import { useEffect, useRef, useState, type FormEvent } from 'react';
import { useSearchParams } from 'wouter';
import { useSignals } from '@preact/signals-react/runtime';
import { ApiError, type DataOrigin } from '../../lib/api-client.ts';
import { DataOriginNote } from '../../components/data-origin-note.tsx';
import { Figure, SampleScope } from '../../components/sample-scope.tsx';
import { ExportControls } from '../../components/export-controls.tsx';
import { FilterSelect } from '../../components/filter-select.tsx';
import { EmptyState } from '../../components/list-state.tsx';
import { Pager } from '../../components/pager.tsx';
import { messageOf } from '../../lib/error-message.ts';
import { currentTenantId, session } from '../../lib/auth/session.ts';
import {
  AUDIT_SEVERITIES,
  auditExportPath,
  fetchAuditEvents,
  filterParams,
  type AuditEvent,
  type AuditExportFormat,
  type AuditFilters,
  type AuditPage as AuditPageData,
} from './audit-api.ts';
import { sampleAuditPage } from './audit-sample.ts';
import './audit.css';

/** §9: the audit trail pages by 10. */
export const AUDIT_PAGE_SIZE = 10;

export const SEVERITY_LABELS: Record<string, string> = {
  INFO: 'Information',
  WARNING: 'Avertissement',
  ERROR: 'Erreur',
  CRITICAL: 'Critique',
};

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

/** §8 export failure. */
export function auditExportErrorMessage(format: AuditExportFormat): string {
  return `Impossible d'exporter les données d'audit en ${format}.`;
}

export function auditExportFilename(format: AuditExportFormat, now = new Date()): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `audit-${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}.${format}`;
}

const DATE_TIME = new Intl.DateTimeFormat('fr-FR', { dateStyle: 'short', timeStyle: 'medium' });
const DATE_TIME_LONG = new Intl.DateTimeFormat('fr-FR', { dateStyle: 'full', timeStyle: 'long' });
const NUMBER = new Intl.NumberFormat('fr-FR');

export function formatDateTime(iso: string | null | undefined, long = false): string {
  if (!iso) return '—';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? '—' : (long ? DATE_TIME_LONG : DATE_TIME).format(d);
}

const labelOf = (labels: Record<string, string>, key: string | null | undefined) => (key ? (labels[key] ?? key) : '—');

function positiveInt(value: string | null, fallback: number): number {
  const n = Number(value);
  return Number.isInteger(n) && n > 0 ? n : fallback;
}

type FilterKey = 'event_type' | 'severity' | 'user' | 'source' | 'date_from' | 'date_to' | 'q' | 'tenant';
const FILTER_KEYS: readonly FilterKey[] = [
  'event_type',
  'severity',
  'user',
  'source',
  'date_from',
  'date_to',
  'q',
  'tenant',
];

/** The filters live in the URL (?page=&event_type=&severity=&user=&source=&date_from=&date_to=&q=&tenant=). */
function useAuditQuery() {
  const [params, setParams] = useSearchParams();
  const filters: Required<AuditFilters> = {
    event_type: params.get('event_type') ?? '',
    severity: params.get('severity') ?? '',
    user: params.get('user') ?? '',
    source: params.get('source') ?? '',
    date_from: params.get('date_from') ?? '',
    date_to: params.get('date_to') ?? '',
    q: params.get('q') ?? '',
    tenant: params.get('tenant') ?? '',
  };
  const page = positiveInt(params.get('page'), 1);
  const update = (changes: Partial<Record<FilterKey | 'page', string | number>>) => {
    setParams(
      (prev) => {
        const next = new URLSearchParams(prev);
        // A new filter starts over at page 1.
        if (!('page' in changes)) next.delete('page');
        for (const [key, value] of Object.entries(changes)) {
          const text = String(value ?? '').trim();
          if (text === '' || (key === 'page' && text === '1')) next.delete(key);
          else next.set(key, text);
        }
        return next;
      },
      { replace: true },
    );
  };
  return { page, filters, update };
}

type ReadState =
  | { kind: 'loading' }
  | { kind: 'ok'; data: AuditPageData; origin: DataOrigin }
  | { kind: 'sample'; data: AuditPageData; error: string }
  | { kind: 'forbidden' }
  | { kind: 'failed'; error: string };

/** The text filters, applied together with one button; the selects apply at once. */
function FilterForm({
  filters,
  onApply,
}: {
  filters: Required<AuditFilters>;
  onApply: (changes: Pick<AuditFilters, 'user' | 'date_from' | 'date_to' | 'q'>) => void;
}) {
  const [user, setUser] = useState(filters.user);
  const [from, setFrom] = useState(filters.date_from);
  const [to, setTo] = useState(filters.date_to);
  const [q, setQ] = useState(filters.q);
  const [error, setError] = useState<string | null>(null);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (from && to && from > to) {
      setError('La date de début doit précéder la date de fin.');
      return;
    }
    setError(null);
    onApply({ user: user.trim(), date_from: from, date_to: to, q: q.trim() });
  };
  return (
    <form role="search" className="audit-search" aria-label="Rechercher dans le journal" onSubmit={submit}>
      <label>
        Utilisateur
        <input name="user" value={user} autoComplete="off" onChange={(e) => setUser(e.target.value)} />
      </label>
      <label>
        Du
        <input name="date_from" type="date" value={from} onChange={(e) => setFrom(e.target.value)} />
      </label>
      <label>
        Au
        <input name="date_to" type="date" value={to} onChange={(e) => setTo(e.target.value)} />
      </label>
      <label className="audit-search-text">
        Texte
        <input name="q" type="search" value={q} onChange={(e) => setQ(e.target.value)} />
      </label>
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
  const tenantKey = currentTenantId() ?? '';
  const { page, filters, update } = useAuditQuery();
  const [state, setState] = useState<ReadState>({ kind: 'loading' });
  const [selected, setSelected] = useState<AuditEvent['id'] | null>(null);
  const seq = useRef(0);

  // Only superusers may widen the scope; anyone else reads the current tenant.
  const scope: AuditFilters = { ...filters, tenant: superuser ? filters.tenant : '' };
  const scopeKey = FILTER_KEYS.map((k) => scope[k] ?? '').join('\u0000');

  useEffect(() => {
    const mine = ++seq.current;
    const [event_type, severity, user, source, date_from, date_to, q, tenant] = scopeKey.split('\u0000');
    const query = { page, size: AUDIT_PAGE_SIZE, event_type, severity, user, source, date_from, date_to, q, tenant };
    fetchAuditEvents(query).then(
      (answer) => mine === seq.current && setState({ kind: 'ok', ...answer }),
      (err: unknown) => {
        if (mine !== seq.current) return;
        if (err instanceof ApiError && err.status === 403) setState({ kind: 'forbidden' });
        else if (err instanceof ApiError && err.status === 401) setState({ kind: 'failed', error: err.message });
        // §8: any other read failure shows the generated sample, clearly marked.
        else setState({ kind: 'sample', data: sampleAuditPage(page), error: messageOf(err) });
      },
    );
  }, [page, scopeKey, tenantKey]);

  const data = state.kind === 'ok' || state.kind === 'sample' ? state.data : null;
  const origin: DataOrigin | undefined =
    state.kind === 'ok' ? state.origin : state.kind === 'sample' ? { source: 'sample' } : undefined;
  const event = data?.results.find((e) => e.id === selected) ?? null;
  const filtered = FILTER_KEYS.some((k) => k !== 'tenant' && filters[k]);
  const allTenants = superuser && filters.tenant === 'all';

  return (
    <section className="page audit-page">
      <div className="vm-head">
        <h1>Journal d’audit</h1>
      </div>

      {state.kind === 'forbidden' ? (
        <div className="card audit-forbidden">
          <p className="error" role="alert">
            {FORBIDDEN_MESSAGE}
          </p>
          <p className="muted">Le journal d’audit est réservé aux administrateurs et responsables du tenant.</p>
        </div>
      ) : (
        <>
          <div className="vm-toolbar audit-toolbar" role="group" aria-label="Filtrer le journal d’audit">
            <FilterSelect
              label="Type d’événement"
              value={filters.event_type}
              allLabel="Tous"
              options={Object.entries(EVENT_TYPE_LABELS)}
              onChange={(value) => update({ event_type: value })}
            />
            <FilterSelect
              label="Gravité"
              value={filters.severity}
              allLabel="Toutes"
              options={AUDIT_SEVERITIES.map((s) => [s, SEVERITY_LABELS[s]!] as const)}
              onChange={(value) => update({ severity: value })}
            />
            <FilterSelect
              label="Origine"
              value={filters.source}
              allLabel="Toutes"
              options={Object.entries(SOURCE_LABELS)}
              onChange={(value) => update({ source: value })}
            />
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
          </div>
          <FilterForm
            key={`${filters.user}|${filters.date_from}|${filters.date_to}|${filters.q}`}
            filters={filters}
            onApply={(changes) => update(changes)}
          />
          <AuditExport filters={scope} expectedRows={state.kind === 'ok' ? state.data.total : null} />

          {state.kind === 'loading' && <p role="status">Chargement du journal…</p>}
          {state.kind === 'failed' && (
            <p className="error" role="alert">
              Impossible de charger le journal d’audit : {state.error}
            </p>
          )}
          {state.kind === 'sample' && (
            <p className="error" role="alert">
              Impossible de charger le journal d’audit : {state.error} — des événements d’exemple sont affichés.
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
                  <div
                    className="table-wrap audit-table-wrap"
                    role="region"
                    tabIndex={0}
                    aria-label="Événements d’audit"
                  >
                    <table className={`table audit-table${state.kind === 'sample' ? ' sample' : ''}`}>
                      {state.kind === 'sample' && <caption>Exemple — ces événements ne sont pas réels</caption>}
                      <thead>
                        <tr>
                          <th scope="col">Date</th>
                          <th scope="col">Gravité</th>
                          <th scope="col">Type</th>
                          <th scope="col">Utilisateur</th>
                          <th scope="col">Description</th>
                          <th scope="col">Adresse IP</th>
                          {allTenants && <th scope="col">Tenant</th>}
                          <th scope="col">
                            <span className="audit-sr">Détail</span>
                          </th>
                        </tr>
                      </thead>
                      <tbody>
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
                      </tbody>
                    </table>
                  </div>
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
