/**
 * The audit trail's input (docs/api-audit.md): the client's event batches, and the filters, paging, scope and
 * export format of the reading routes, with their French messages.
 */
import { AUDIT_SEVERITIES, type AuditSeverity } from '../db/schema.ts';
import { ApiError, FieldErrors } from '../domain/errors.ts';
import { charCount, clipText } from '../../../contract/text.ts';
import type { AuditFilters } from '../repositories/audit-events.ts';
import { FilterQuery } from './common.ts';
import { parseDateRange, parseSizePaging, parseText, type RawQuery } from './query.ts';
import { isUuid } from '../lib/uuid.ts';

export const MAX_EVENTS = 200;
const DEFAULT_SIZE = 10;
const MAX_SIZE = 100;
const SOURCES = ['server', 'frontend'] as const;
const EVENT_TYPE_RE = /^[\w.:-]{1,64}$/;
const MESSAGES = {
  eventType: 'Type d’événement invalide : lettres, chiffres, « _ », « . », « : » ou « - » (64 caractères au plus).',
  severity: `Gravité invalide. Valeurs possibles : ${AUDIT_SEVERITIES.join(', ')}.`,
  user: 'Le nom d’utilisateur ne doit pas dépasser 150 caractères.',
  source: `Source invalide. Valeurs possibles : ${SOURCES.join(', ')}.`,
  tenant: 'Organisation invalide : « all » ou un identifiant (UUID) est attendu.',
  format: 'Format d’export invalide : csv ou json attendu.',
} as const;

const TENANT = {
  tenant: 'Organisation : son UUID, ou « all » (superutilisateurs) ; par défaut l’organisation courante',
};
const FILTERS = {
  event_type: 'Type(s) d’événement, séparés par des virgules',
  severity: `Gravité(s) : ${AUDIT_SEVERITIES.join(', ')}, séparées par des virgules`,
  user: 'Nom d’utilisateur (exact, sans distinction de casse)',
  source: `Source : ${SOURCES.join(', ')}`,
  date_from: 'Depuis (date AAAA-MM-JJ ou date et heure ISO 8601, incluse)',
  date_to: 'Jusqu’à (date AAAA-MM-JJ, tout le jour inclus, ou date et heure ISO 8601)',
  q: 'Recherche dans la description',
  ...TENANT,
};
const FILTER_KEYS = Object.keys(FILTERS) as (keyof typeof FILTERS)[];

export const ResultsQuery = FilterQuery({
  page: 'Numéro de page, à partir de 1',
  size: `Taille de page (défaut ${DEFAULT_SIZE}, au plus ${MAX_SIZE})`,
  ...FILTERS,
});
export const TenantQuery = FilterQuery(TENANT);
export const ExportQuery = FilterQuery(FILTERS);

/** One event as the client wrote it (event_id, timestamp, event_type, severity, details, url): nothing trusted. */
export type ClientEvent = Record<string, unknown>;

/** A batch of client events: JSON from fetch, or a text/plain JSON string from sendBeacon. */
export function readEventBatch(body: unknown): { events: ClientEvent[]; token?: string } {
  let parsed: unknown = body;
  if (typeof body === 'string') {
    try {
      parsed = JSON.parse(body);
    } catch {
      throw new ApiError(400, 'invalid', 'Corps JSON invalide.');
    }
  }
  if (!parsed || typeof parsed !== 'object' || !Array.isArray((parsed as { events?: unknown }).events)) {
    throw new ApiError(400, 'invalid', 'Le champ events (liste) est requis.', {
      fields: { events: ['Liste requise.'] },
    });
  }
  const { events, token } = parsed as { events: unknown[]; token?: unknown };
  if (events.length > MAX_EVENTS) {
    throw new ApiError(413, 'too_many_events', `Au plus ${MAX_EVENTS} événements par envoi.`);
  }
  if (!events.every((e) => e && typeof e === 'object' && !Array.isArray(e))) {
    throw new ApiError(400, 'invalid', 'Chaque événement doit être un objet.');
  }
  return { events: events as ClientEvent[], ...(typeof token === 'string' ? { token } : {}) };
}

/** `a,b`: the distinct non-blank values, undefined when none. */
function list(raw: string | undefined): string[] | undefined {
  const values = raw
    ?.split(',')
    .map((v) => v.trim())
    .filter((v) => v !== '');
  return values?.length ? [...new Set(values)] : undefined;
}

function readFilters(errors: FieldErrors, query: RawQuery): AuditFilters {
  const eventTypes = list(query.event_type);
  if (eventTypes && !eventTypes.every((t) => EVENT_TYPE_RE.test(t))) errors.add('event_type', MESSAGES.eventType);
  const severities = list(query.severity)?.map((s) => s.toUpperCase());
  if (severities && !severities.every((s) => (AUDIT_SEVERITIES as readonly string[]).includes(s))) {
    errors.add('severity', MESSAGES.severity);
  }
  const username = query.user?.trim() || undefined;
  if (username && charCount(username) > 150) errors.add('user', MESSAGES.user);
  const source = query.source?.trim().toLowerCase() || undefined;
  if (source && !(SOURCES as readonly string[]).includes(source)) errors.add('source', MESSAGES.source);
  return {
    eventTypes,
    severities: severities as AuditSeverity[] | undefined,
    username,
    source: source as AuditFilters['source'],
    ...parseDateRange(errors, query),
    text: parseText(errors, query, 'q'),
  };
}

/**
 * `?tenant=`: undefined for the current tenant, 'all', or a lower-case UUID. Called last: it answers the 400 of
 * every field collected so far.
 */
function readTenant(errors: FieldErrors, query: RawQuery): string | undefined {
  const raw = query.tenant?.trim();
  if (raw && raw.toLowerCase() !== 'all' && !isUuid(raw)) errors.add('tenant', MESSAGES.tenant);
  errors.throwIfAny();
  return raw ? raw.toLowerCase() : undefined;
}

/** The filters as the trail records them: the ones given, each cut to 200 characters. */
const filtersOf = (query: RawQuery) =>
  Object.fromEntries(FILTER_KEYS.filter((k) => query[k]).map((k) => [k, clipText(query[k]!, 200)]));

/** The list's paging (`?page=&size=`, 10 by default, at most 100), filters and tenant. */
export function readResultsQuery(query: RawQuery) {
  const errors = new FieldErrors();
  const { page, size } = parseSizePaging(errors, query, DEFAULT_SIZE, MAX_SIZE);
  const filters = readFilters(errors, query);
  return { page, size, filters, tenant: readTenant(errors, query), recorded: filtersOf(query) };
}

/** One event's `?tenant=`. */
export const readEventTenant = (query: RawQuery) => readTenant(new FieldErrors(), query);

/** The export's format (`csv` or `json`), filters and tenant. */
export function readExportQuery(rawFormat: string, query: RawQuery) {
  const errors = new FieldErrors();
  const format = rawFormat.trim().toLowerCase();
  if (format !== 'csv' && format !== 'json') errors.add('format', MESSAGES.format);
  const filters = readFilters(errors, query);
  return { format: format as 'csv' | 'json', filters, tenant: readTenant(errors, query), recorded: filtersOf(query) };
}
