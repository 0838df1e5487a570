import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { FieldErrors } from '../../../../domain/errors.ts';
import { canReadServerLogs } from '../../../../policies/index.ts';
import {
  presentServerLog,
  SERVER_LOG_CSV_COLUMNS,
  serverLogCsvLine,
  ServerLogSchema,
} from '../../../../presenters/server-log.ts';
import {
  serverLogReads,
  type ServerLogExportRow,
  type ServerLogFilters,
} from '../../../../repositories/server-logs.ts';
import { FilterQuery, ListQuery, replies, Type } from '../../../../schemas/common.ts';
import { levelsFrom, LOG_LEVELS, type LogLevel } from '../../../../services/server-logs.ts';
import { parseDateRange } from '../../audit/date-range.ts';
import { sendExport } from '../../export-stream.ts';
import { UUID_PATTERN } from '../shared.ts';
import { parsePaging, parseQueryId, parseText, type RawQuery } from '../../../../schemas/query.ts';

const EXPORT_BATCH = 2000;
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
const FORMATS = ['csv', 'json'] as const;
const LEVEL_ALIASES: Record<string, LogLevel> = { warn: 'warning', fatal: 'critical', trace: 'debug' };
const UUID_RE = new RegExp(UUID_PATTERN);
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
  if (tenantId && !UUID_RE.test(tenantId)) errors.add('tenant_id', MESSAGES.tenant);
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

/** GET /api/admin/logs/ and its export (docs/api-admin.md "Logs"): the platform's log store, superusers only. */
const adminLogRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const guard = app.guard((auth) => canReadServerLogs(auth.actor), { refusal: 'journaux du serveur', tenant: false });
  const tags = ['Journaux du serveur'];
  const Logs = Type.Object({
    logs: Type.Array(ServerLogSchema),
    total: Type.Integer({ minimum: 0 }),
    page: Type.Integer({ minimum: 1 }),
    page_size: Type.Integer({ minimum: 1 }),
  });

  app.get(
    '/api/admin/logs/',
    { ...guard, schema: { tags, querystring: ListQuery(FILTERS), response: replies.signedIn({ 200: Logs }, 400) } },
    async (request) => {
      const errors = new FieldErrors();
      const { page, pageSize } = parsePaging(errors, request.query);
      const filters = parseFilters(errors, request.query);
      errors.throwIfAny();
      const { total, rows } = await serverLogReads.page(app.database.db, filters, pageSize, (page - 1) * pageSize);
      return { logs: rows.map(presentServerLog), total, page, page_size: pageSize };
    },
  );

  const ExportQuery = FilterQuery({ format: 'csv (défaut) ou json', ...FILTERS });
  const Export = Type.String({ description: 'CSV (text/csv) ou JSON, en pièce jointe vigie-logs-AAAA-MM-JJ' });
  app.get(
    '/api/admin/logs/export/',
    { ...guard, schema: { tags, querystring: ExportQuery, response: replies.signedIn({ 200: Export }, 400) } },
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
