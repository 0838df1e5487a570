/** The server-log list's and export's querystrings (docs/api-admin.md "Logs"), read into repository filters. */
import { levelsFrom, LOG_LEVELS, type LogLevel } from '../../domain/log-levels.ts';
import { FieldErrors } from '../../domain/errors.ts';
import type { ServerLogFilters } from '../../repositories/server-logs.ts';
import { FilterQuery, ListQuery } from '../common.ts';
import { parseDateRange, parsePaging, parseQueryId, parseText, type RawQuery } from '../query.ts';
import { isUuid } from './common.ts';
import { clipText } from '../../../../contract/text.ts';

/** The filters of the list and of the export. */
const FILTERS = {
  level: `Niveaux exacts, séparés par des virgules (${LOG_LEVELS.join(', ')})`,
  min_level: 'Ce niveau et les plus graves',
  q: 'Recherche dans le message',
  date_from: 'Depuis : AAAA-MM-JJ ou date et heure ISO 8601 (UTC sans décalage)',
  date_to: 'Jusqu’à : AAAA-MM-JJ (journée entière) ou date et heure ISO 8601',
  status: 'Statut HTTP : un code (404) ou une classe (5xx)',
  method: 'Méthode HTTP',
  request_id: 'Identifiant de requête',
  tenant_id: 'Organisation (UUID)',
  user_id: 'Utilisateur (identifiant)',
};
const FILTER_KEYS = Object.keys(FILTERS) as (keyof typeof FILTERS)[];
export const LogsQuery = ListQuery(FILTERS);
export const LogsExportQuery = FilterQuery({ format: 'csv (défaut) ou json', ...FILTERS });

const FORMATS = ['csv', 'json'] as const;
const LEVEL_ALIASES: Record<string, LogLevel> = { warn: 'warning', fatal: 'critical', trace: 'debug' };
const STATUS_RE = /^([1-5])(\d\d|xx)$/i;
const METHOD_RE = /^[A-Z]{3,7}$/;
const REQUEST_ID_RE = /^[\w.:-]{1,100}$/;

const MESSAGES = {
  level: `Niveau invalide. Valeurs possibles : ${LOG_LEVELS.join(', ')}.`,
  status: 'Statut HTTP invalide : un code (par exemple 404) ou une classe (par exemple 5xx) est attendu.',
  method: 'Méthode HTTP invalide (GET, POST, PUT, PATCH, DELETE…).',
  requestId: 'Identifiant de requête invalide : lettres, chiffres, « _ », « . », « : » ou « - » (100 au plus).',
  tenant: 'Organisation invalide : un identifiant (UUID) est attendu.',
  format: 'Format d’export invalide : csv ou json attendu.',
} as const;

function parseLevel(errors: FieldErrors, raw: string, key: string): LogLevel | undefined {
  const value = raw.trim().toLowerCase();
  // Own keys only: `__proto__` or `constructor` must not find Object's.
  const alias = Object.hasOwn(LEVEL_ALIASES, value) ? LEVEL_ALIASES[value] : undefined;
  const level = alias ?? ((LOG_LEVELS as readonly string[]).includes(value) ? value : undefined);
  if (!level) errors.add(key, MESSAGES.level);
  return level as LogLevel | undefined;
}

/** `level` names exact levels (a comma list); `min_level` keeps that level and the ones above. */
function parseLevels(errors: FieldErrors, query: RawQuery): LogLevel[] | undefined {
  const exact = query.level
    ?.split(',')
    .filter((v) => v.trim() !== '')
    .map((v) => parseLevel(errors, v, 'level'));
  const min = query.min_level?.trim() ? parseLevel(errors, query.min_level, 'min_level') : undefined;
  let levels = exact?.length ? [...new Set(exact.filter((l): l is LogLevel => l !== undefined))] : undefined;
  if (min) levels = (levels ?? [...LOG_LEVELS]).filter((l) => levelsFrom(min).includes(l));
  return levels;
}

function parseStatus(errors: FieldErrors, query: RawQuery): ServerLogFilters['status'] {
  const raw = query.status?.trim();
  if (!raw) return undefined;
  const match = STATUS_RE.exec(raw);
  if (!match) {
    errors.add('status', MESSAGES.status);
    return undefined;
  }
  if (match[2]!.toLowerCase() === 'xx') return { min: Number(match[1]) * 100, max: Number(match[1]) * 100 + 99 };
  return { min: Number(raw), max: Number(raw) };
}

function parseFilters(errors: FieldErrors, query: RawQuery): ServerLogFilters {
  const range = parseDateRange(errors, query);
  const method = query.method?.trim().toUpperCase() || undefined;
  if (method && !METHOD_RE.test(method)) errors.add('method', MESSAGES.method);
  const requestId = query.request_id?.trim() || undefined;
  if (requestId && !REQUEST_ID_RE.test(requestId)) errors.add('request_id', MESSAGES.requestId);
  const tenantId = query.tenant_id?.trim().toLowerCase() || undefined;
  if (tenantId && !isUuid(tenantId)) errors.add('tenant_id', MESSAGES.tenant);
  return {
    levels: parseLevels(errors, query),
    status: parseStatus(errors, query),
    method,
    requestId,
    tenantId,
    userId: parseQueryId(errors, query, 'user_id'),
    ...range,
    text: parseText(errors, query, 'q'),
  };
}

/** The list's page and filters, or 400 with every field's French message. */
export function parseLogList(query: RawQuery) {
  const errors = new FieldErrors();
  const { page, pageSize } = parsePaging(errors, query);
  const filters = parseFilters(errors, query);
  errors.throwIfAny();
  return { page, pageSize, filters };
}

/** The export's format and filters, and the filters as asked (cut to 200 characters) for its audit line. */
export function parseLogExport(query: RawQuery) {
  const errors = new FieldErrors();
  const format = (query.format?.trim().toLowerCase() || 'csv') as (typeof FORMATS)[number];
  if (!FORMATS.includes(format)) errors.add('format', MESSAGES.format);
  const filters = parseFilters(errors, query);
  errors.throwIfAny();
  const asked = Object.fromEntries(FILTER_KEYS.filter((k) => query[k]).map((k) => [k, clipText(query[k]!, 200)]));
  return { format, filters, asked };
}
