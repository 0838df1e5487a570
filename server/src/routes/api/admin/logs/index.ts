import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { ApiError } from '../../../../domain/errors.ts';
import { canReadServerLogs, FORBIDDEN_MESSAGE } from '../../../../policies/index.ts';
import { presentServerLog, SERVER_LOG_CSV_COLUMNS, serverLogCsvLine } from '../../../../presenters/server-log.ts';
import { sendExport } from '../../export-stream.ts';
import {
  serverLogReads,
  type ServerLogExportRow,
  type ServerLogFilters,
} from '../../../../repositories/server-logs.ts';
import { levelsFrom, LOG_LEVELS, type LogLevel } from '../../../../services/server-logs.ts';
import { FieldErrors } from '../../../../domain/errors.ts';
import { parsePaging, parseQueryId, parseText, stringQuery, type RawQuery } from '../../shared.ts';

const EXPORT_BATCH = 2000;
const FILTER_KEYS = [
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
const FORMATS = ['csv', 'json'] as const;
const LEVEL_ALIASES: Record<string, LogLevel> = { warn: 'warning', fatal: 'critical', trace: 'debug' };
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const DATE_RE = /^\d{4}-\d{2}-\d{2}$/;
const DATE_TIME_RE = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?(Z|[+-]\d{2}:?\d{2})?$/i;
const STATUS_RE = /^([1-5])(\d\d|xx)$/i;
const METHOD_RE = /^[A-Z]{3,7}$/;
const REQUEST_ID_RE = /^[\w.:-]{1,100}$/;

const MESSAGES = {
  level: `Niveau invalide. Valeurs possibles : ${LOG_LEVELS.join(', ')}.`,
  date: 'Date invalide : une date (AAAA-MM-JJ) ou une date et heure ISO 8601 est attendue.',
  dateOrder: 'La date de fin précède la date de début.',
  status: 'Statut HTTP invalide : un code (par exemple 404) ou une classe (par exemple 5xx) est attendu.',
  method: 'Méthode HTTP invalide (GET, POST, PUT, PATCH, DELETE…).',
  requestId: 'Identifiant de requête invalide : lettres, chiffres, « _ », « . », « : » ou « - » (100 au plus).',
  tenant: 'Organisation invalide : un identifiant (UUID) est attendu.',
  format: 'Format d’export invalide : csv ou json attendu.',
} as const;

function parseLevel(errors: FieldErrors, raw: string, key: string): LogLevel | undefined {
  const value = raw.trim().toLowerCase();
  const level = LEVEL_ALIASES[value] ?? ((LOG_LEVELS as readonly string[]).includes(value) ? value : undefined);
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

/** An ISO date or time; a date alone is a whole UTC day, a time without an offset is UTC. */
function parseMoment(errors: FieldErrors, query: RawQuery, key: string): { at: Date; dateOnly: boolean } | undefined {
  const raw = query[key]?.trim();
  if (!raw) return undefined;
  const dateOnly = DATE_RE.test(raw);
  let at: Date | undefined;
  if (dateOnly) at = new Date(`${raw}T00:00:00Z`);
  else if (DATE_TIME_RE.test(raw)) at = new Date(/(Z|[+-]\d{2}:?\d{2})$/i.test(raw) ? raw : `${raw}Z`);
  // new Date() rolls 2026-02-31 over to March: the date part must read back unchanged.
  if (!at || Number.isNaN(at.getTime()) || (dateOnly && at.toISOString().slice(0, 10) !== raw)) {
    errors.add(key, MESSAGES.date);
    return undefined;
  }
  return { at, dateOnly };
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
  const from = parseMoment(errors, query, 'date_from');
  const to = parseMoment(errors, query, 'date_to');
  // A date alone as the upper bound covers its whole day: up to the next UTC midnight, excluded.
  const end = to && (to.dateOnly ? new Date(to.at.getTime() + 86_400_000) : to.at);
  if (from && end && (to.dateOnly ? end <= from.at : end < from.at)) errors.add('date_to', MESSAGES.dateOrder);
  const method = query.method?.trim().toUpperCase() || undefined;
  if (method && !METHOD_RE.test(method)) errors.add('method', MESSAGES.method);
  const requestId = query.request_id?.trim() || undefined;
  if (requestId && !REQUEST_ID_RE.test(requestId)) errors.add('request_id', MESSAGES.requestId);
  const tenantId = query.tenant_id?.trim().toLowerCase() || undefined;
  if (tenantId && !UUID_RE.test(tenantId)) errors.add('tenant_id', MESSAGES.tenant);
  return {
    levels: parseLevels(errors, query),
    status: parseStatus(errors, query),
    method,
    requestId,
    tenantId,
    userId: parseQueryId(errors, query, 'user_id'),
    from: from?.at,
    to: end,
    toExclusive: to?.dateOnly,
    text: parseText(errors, query, 'q'),
  };
}

/** GET /api/admin/logs/ and its export (docs/api-admin.md "Logs"): the platform's log store, superusers only. */
const adminLogRoutes: FastifyPluginAsync = async (app) => {
  const requireReader = async (request: FastifyRequest) => {
    if (canReadServerLogs(request.auth!.actor)) return;
    await app.audit.record(request, {
      eventType: 'permission_denied',
      description: 'Accès refusé : journaux du serveur',
      severity: 'WARNING',
      success: false,
      extra: { method: request.method, path: request.routeOptions.url },
    });
    throw new ApiError(403, 'permission_denied', FORBIDDEN_MESSAGE);
  };
  const guard = { preValidation: [app.authenticate, requireReader] };

  app.get<{ Querystring: RawQuery }>(
    '/api/admin/logs/',
    { ...guard, schema: { querystring: stringQuery(['page', 'page_size', ...FILTER_KEYS]) } },
    async (request) => {
      const errors = new FieldErrors();
      const { page, pageSize } = parsePaging(errors, request.query);
      const filters = parseFilters(errors, request.query);
      errors.throwIfAny();
      const { total, rows } = await serverLogReads.page(app.database.db, filters, pageSize, (page - 1) * pageSize);
      return { logs: rows.map(presentServerLog), total, page, page_size: pageSize };
    },
  );

  app.get<{ Querystring: RawQuery }>(
    '/api/admin/logs/export/',
    { ...guard, schema: { querystring: stringQuery(['format', ...FILTER_KEYS]) } },
    async (request, reply) => {
      const errors = new FieldErrors();
      const format = (request.query.format?.trim().toLowerCase() || 'csv') as (typeof FORMATS)[number];
      if (!FORMATS.includes(format)) errors.add('format', MESSAGES.format);
      const filters = parseFilters(errors, request.query);
      errors.throwIfAny();

      // The lines hold every tenant's requests and addresses: taking them away is recorded.
      await app.audit.record(request, {
        eventType: 'sensitive_data_access',
        description: `Export des journaux du serveur (${format.toUpperCase()})`,
        tenantId: null,
        extra: {
          format,
          filters: Object.fromEntries(
            FILTER_KEYS.filter((k) => request.query[k]).map((k) => [k, request.query[k]!.slice(0, 200)]),
          ),
        },
      });

      return sendExport(reply, 'vigie-logs', {
        format: format,
        csvColumns: SERVER_LOG_CSV_COLUMNS,
        batchSize: EXPORT_BATCH,
        batchAfter: (last: ServerLogExportRow | undefined) =>
          serverLogReads.exportBatch(
            app.database.db,
            filters,
            last && { cursor: last.cursor, id: last.id },
            EXPORT_BATCH,
          ),
        csvRow: (row) => serverLogCsvLine(presentServerLog(row)),
        jsonRow: presentServerLog,
      });
    },
  );
};

export default adminLogRoutes;
