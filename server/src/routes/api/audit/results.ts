import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { Db } from '../../../db/client.ts';
import { AUDIT_SEVERITIES, type AuditSeverity } from '../../../db/schema.ts';
import { ApiError } from '../../../domain/errors.ts';
import { canReadAudit, FORBIDDEN_MESSAGE } from '../../../policies/index.ts';
import { sendExport, type ExportFormat } from '../export-stream.ts';
import { AUDIT_CSV_COLUMNS, auditCsvLine, presentAuditEvent } from '../../../presenters/audit-event.ts';
import {
  AuditEventsRepository,
  type AuditExportRow,
  type AuditFilters,
  type AuditScope,
} from '../../../repositories/audit-events.ts';
import { FieldErrors } from '../../../domain/errors.ts';
import { idParams, notFound, parseId, parseText, positiveInt, stringQuery, type RawQuery } from '../shared.ts';

const DEFAULT_SIZE = 10;
const MAX_SIZE = 100;
const EXPORT_BATCH = 2000;
const FILTER_KEYS = ['event_type', 'severity', 'user', 'source', 'date_from', 'date_to', 'q', 'tenant'] as const;
const SOURCES = ['server', 'frontend'] as const;
const EVENT_TYPE_RE = /^[\w.:-]{1,64}$/;
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const DATE_RE = /^\d{4}-\d{2}-\d{2}$/;
const DATE_TIME_RE = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?(Z|[+-]\d{2}:?\d{2})?$/i;

const MESSAGES = {
  page: 'Numéro de page invalide : un entier supérieur ou égal à 1 est attendu.',
  size: `Taille de page invalide : un entier entre 1 et ${MAX_SIZE} est attendu.`,
  eventType: 'Type d’événement invalide : lettres, chiffres, « _ », « . », « : » ou « - » (64 caractères au plus).',
  severity: `Gravité invalide. Valeurs possibles : ${AUDIT_SEVERITIES.join(', ')}.`,
  user: 'Le nom d’utilisateur ne doit pas dépasser 150 caractères.',
  source: `Source invalide. Valeurs possibles : ${SOURCES.join(', ')}.`,
  date: 'Date invalide : une date (AAAA-MM-JJ) ou une date et heure ISO 8601 est attendue.',
  dateOrder: 'La date de fin précède la date de début.',
  tenant: 'Organisation invalide : « all » ou un identifiant (UUID) est attendu.',
  format: 'Format d’export invalide : csv ou json attendu.',
} as const;

function list(raw: string | undefined): string[] | undefined {
  const values = raw
    ?.split(',')
    .map((v) => v.trim())
    .filter((v) => v !== '');
  return values?.length ? [...new Set(values)] : undefined;
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

function parseFilters(errors: FieldErrors, query: RawQuery): AuditFilters {
  const eventTypes = list(query.event_type);
  if (eventTypes && !eventTypes.every((t) => EVENT_TYPE_RE.test(t))) errors.add('event_type', MESSAGES.eventType);
  const severities = list(query.severity)?.map((s) => s.toUpperCase());
  if (severities && !severities.every((s) => (AUDIT_SEVERITIES as readonly string[]).includes(s))) {
    errors.add('severity', MESSAGES.severity);
  }
  const username = query.user?.trim() || undefined;
  if (username && username.length > 150) errors.add('user', MESSAGES.user);
  const source = query.source?.trim().toLowerCase() || undefined;
  if (source && !(SOURCES as readonly string[]).includes(source)) errors.add('source', MESSAGES.source);
  const from = parseMoment(errors, query, 'date_from');
  const to = parseMoment(errors, query, 'date_to');
  // A date alone as the upper bound covers its whole day: up to the next UTC midnight, excluded.
  const end = to && (to.dateOnly ? new Date(to.at.getTime() + 86_400_000) : to.at);
  if (from && end && (to.dateOnly ? end <= from.at : end < from.at)) errors.add('date_to', MESSAGES.dateOrder);
  return {
    eventTypes,
    severities: severities as AuditSeverity[] | undefined,
    username,
    source: source as AuditFilters['source'],
    from: from?.at,
    to: end,
    toExclusive: to?.dateOnly,
    text: parseText(errors, query, 'q'),
  };
}

function parsePaging(errors: FieldErrors, query: RawQuery): { page: number; size: number } {
  const page = positiveInt(query.page);
  if (page === null) errors.add('page', MESSAGES.page);
  const size = positiveInt(query.size);
  if (size === null || (size !== undefined && size > MAX_SIZE)) errors.add('size', MESSAGES.size);
  return { page: page ?? 1, size: size ?? DEFAULT_SIZE };
}

const auditResultsRoutes: FastifyPluginAsync = async (app) => {
  const repo = new AuditEventsRepository();

  const deny = async (request: FastifyRequest): Promise<never> => {
    await app.audit.record(request, {
      eventType: 'permission_denied',
      description: 'Accès refusé : journal d’audit',
      severity: 'WARNING',
      success: false,
      extra: { method: request.method, path: request.routeOptions.url },
    });
    throw new ApiError(403, 'permission_denied', FORBIDDEN_MESSAGE);
  };

  const requireReader = async (request: FastifyRequest) => {
    if (!canReadAudit(request.auth!.actor)) await deny(request);
  };
  const guard = { preValidation: [app.authenticate, requireReader] };

  /**
   * Whose trail the request reads: the current tenant's; a superuser may name `all` or any tenant. Call after the
   * field checks (a malformed tenant is a 400).
   */
  const scopeOf = async (request: FastifyRequest, errors: FieldErrors): Promise<AuditScope> => {
    const raw = (request.query as RawQuery).tenant?.trim();
    const current = request.auth!.tenant?.id;
    if (raw && raw.toLowerCase() !== 'all' && !UUID_RE.test(raw)) errors.add('tenant', MESSAGES.tenant);
    errors.throwIfAny();
    const wanted = !raw ? current : raw.toLowerCase() === 'all' ? 'all' : raw.toLowerCase();
    if (wanted === undefined) return deny(request);
    if (wanted !== current && !request.auth!.actor.isSuperuser) return deny(request);
    return wanted === 'all' ? 'all' : { tenantId: wanted };
  };

  /** The current tenant's trail through its own transaction (row-level security); other scopes are superusers'. */
  const read = <T>(request: FastifyRequest, scope: AuditScope, fn: (db: Db) => Promise<T>): Promise<T> =>
    scope !== 'all' && scope.tenantId === request.auth!.tenant?.id ? request.tenantDb(fn) : fn(app.database.db);

  /** Reading the trail is itself audited, in the trail that was read (the platform's for `all`). */
  const recordRead = (
    request: FastifyRequest,
    scope: AuditScope,
    description: string,
    extra: Record<string, unknown>,
  ) =>
    app.audit.record(request, {
      eventType: 'sensitive_data_access',
      description,
      tenantId: scope === 'all' ? null : scope.tenantId,
      extra: { ...extra, scope: scope === 'all' ? 'all' : scope.tenantId },
    });

  const filtersOf = (query: RawQuery) =>
    Object.fromEntries(FILTER_KEYS.filter((k) => query[k]).map((k) => [k, query[k]!.slice(0, 200)]));

  app.get<{ Querystring: RawQuery }>(
    '/api/audit/results/',
    { ...guard, schema: { querystring: stringQuery(['page', 'size', ...FILTER_KEYS]) } },
    async (request) => {
      const errors = new FieldErrors();
      const { page, size } = parsePaging(errors, request.query);
      const filters = parseFilters(errors, request.query);
      const scope = await scopeOf(request, errors);
      const { total, rows } = await read(request, scope, (db) =>
        repo.page(db, scope, filters, size, (page - 1) * size),
      );
      await recordRead(request, scope, 'Consultation du journal d’audit', {
        page,
        size,
        filters: filtersOf(request.query),
      });
      return { results: rows.map(presentAuditEvent), total, page, size, pages: Math.ceil(total / size) };
    },
  );

  app.get<{ Params: { id: string }; Querystring: RawQuery }>(
    '/api/audit/results/:id/',
    { ...guard, schema: { params: idParams, querystring: stringQuery(['tenant']) } },
    async (request) => {
      const scope = await scopeOf(request, new FieldErrors());
      const id = parseId(request.params.id);
      const row = id === undefined ? undefined : await read(request, scope, (db) => repo.find(db, scope, id));
      if (!row) throw notFound();
      await recordRead(request, scope, 'Consultation d’un événement du journal d’audit', { event_id: row.id });
      return presentAuditEvent(row);
    },
  );

  app.get<{ Params: { format: string }; Querystring: RawQuery }>(
    '/api/audit/export/:format/',
    {
      ...guard,
      schema: {
        params: { type: 'object', required: ['format'], properties: { format: { type: 'string' } } },
        querystring: stringQuery(FILTER_KEYS),
      },
    },
    async (request, reply) => {
      const errors = new FieldErrors();
      const format = request.params.format.trim().toLowerCase();
      if (format !== 'csv' && format !== 'json') errors.add('format', MESSAGES.format);
      const filters = parseFilters(errors, request.query);
      const scope = await scopeOf(request, errors);

      await recordRead(request, scope, `Export du journal d’audit (${format.toUpperCase()})`, {
        format,
        filters: filtersOf(request.query),
      });

      return sendExport(reply, 'audit', {
        format: format as ExportFormat,
        csvColumns: AUDIT_CSV_COLUMNS,
        batchSize: EXPORT_BATCH,
        batchAfter: (last: AuditExportRow | undefined) =>
          read(request, scope, (db) =>
            repo.exportBatch(db, scope, filters, last && { cursor: last.cursor, id: last.id }, EXPORT_BATCH),
          ),
        csvRow: (row) => auditCsvLine(presentAuditEvent(row)),
        jsonRow: presentAuditEvent,
      });
    },
  );
};

export default auditResultsRoutes;
