import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Db } from '../../../db/client.ts';
import { AUDIT_SEVERITIES, type AuditSeverity } from '../../../db/schema.ts';
import { FieldErrors, notFound } from '../../../domain/errors.ts';
import { signedIn } from '../../../plugins/app/authorization.ts';
import { canReadAudit } from '../../../policies/index.ts';
import {
  AUDIT_CSV_COLUMNS,
  auditCsvLine,
  AuditEventSchema,
  presentAuditEvent,
} from '../../../presenters/audit-event.ts';
import {
  AuditEventsRepository,
  type AuditExportRow,
  type AuditFilters,
  type AuditScope,
} from '../../../repositories/audit-events.ts';
import { FilterQuery, IdParams, replies, Type } from '../../../schemas/common.ts';
import { sendExport, type ExportFormat } from '../export-stream.ts';
import { parseDateRange } from './date-range.ts';
import { parsePaging, parseText, type RawQuery } from '../../../schemas/query.ts';

const DEFAULT_SIZE = 10;
const MAX_SIZE = 100;
const EXPORT_BATCH = 2000;
const SOURCES = ['server', 'frontend'] as const;
const EVENT_TYPE_RE = /^[\w.:-]{1,64}$/;
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const REFUSAL = 'journal d’audit';

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
const ResultsQuery = FilterQuery({
  page: 'Numéro de page, à partir de 1',
  size: `Taille de page (défaut ${DEFAULT_SIZE}, au plus ${MAX_SIZE})`,
  ...FILTERS,
});
const AuditPage = Type.Object(
  {
    results: Type.Array(AuditEventSchema),
    total: Type.Integer({ minimum: 0 }),
    page: Type.Integer({ minimum: 1 }),
    size: Type.Integer({ minimum: 1 }),
    pages: Type.Integer({ minimum: 0 }),
  },
  { description: 'Une page du journal d’audit, les plus récents d’abord' },
);

/** Forwards to `errors`, under this API's name for the page size: `size`, not `page_size`. */
class SizeErrors extends FieldErrors {
  constructor(private readonly errors: FieldErrors) {
    super();
  }
  override add(field: string, message: string): void {
    this.errors.add(field === 'page_size' ? 'size' : field, message);
  }
}

/** `?page=&size=`: the shared paging rules and messages, 10 by default and at most 100. */
function parseAuditPaging(errors: FieldErrors, query: RawQuery): { page: number; size: number } {
  const size = query.size?.trim() ? query.size : String(DEFAULT_SIZE);
  const { page, pageSize } = parsePaging(new SizeErrors(errors), { page: query.page, page_size: size }, MAX_SIZE);
  return { page, size: pageSize };
}

function list(raw: string | undefined): string[] | undefined {
  const values = raw
    ?.split(',')
    .map((v) => v.trim())
    .filter((v) => v !== '');
  return values?.length ? [...new Set(values)] : undefined;
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
  return {
    eventTypes,
    severities: severities as AuditSeverity[] | undefined,
    username,
    source: source as AuditFilters['source'],
    ...parseDateRange(errors, query),
    text: parseText(errors, query, 'q'),
  };
}

/** The audit trail: paged reading, one event, and the CSV/JSON export (docs/api-audit.md). */
const auditResultsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const repo = new AuditEventsRepository();
  // Readers without a tenant (a superuser reading `all`) are let through: the scope decides.
  const guard = app.guard((auth) => canReadAudit(auth.actor), { refusal: REFUSAL, tenant: false });
  const tags = ['Journal d’audit'];

  /**
   * Whose trail the request reads: the current tenant's; a superuser may name `all` or any tenant. Call after the
   * field checks (a malformed tenant is a 400).
   */
  const scopeOf = async (request: FastifyRequest, errors: FieldErrors): Promise<AuditScope> => {
    const raw = (request.query as RawQuery).tenant?.trim();
    const auth = signedIn(request);
    const current = auth.tenant?.id;
    if (raw && raw.toLowerCase() !== 'all' && !UUID_RE.test(raw)) errors.add('tenant', MESSAGES.tenant);
    errors.throwIfAny();
    const wanted = !raw ? current : raw.toLowerCase() === 'all' ? 'all' : raw.toLowerCase();
    await app.authorize(request, wanted !== undefined && (wanted === current || auth.actor.isSuperuser), REFUSAL);
    return wanted === 'all' ? 'all' : { tenantId: wanted! };
  };

  /** The current tenant's trail through its own transaction (row-level security); other scopes are superusers'. */
  const read = <T>(request: FastifyRequest, scope: AuditScope, fn: (db: Db) => Promise<T>): Promise<T> =>
    scope !== 'all' && scope.tenantId === signedIn(request).tenant?.id ? request.tenantDb(fn) : fn(app.database.db);

  /** Reading the trail is itself audited, in the trail that was read (the platform's for `all`). */
  const recordRead = (request: FastifyRequest, scope: AuditScope, description: string, extra: object) =>
    app.audit.record(request, {
      eventType: 'sensitive_data_access',
      description,
      tenantId: scope === 'all' ? null : scope.tenantId,
      extra: { ...extra, scope: scope === 'all' ? 'all' : scope.tenantId },
    });

  const filtersOf = (query: RawQuery) =>
    Object.fromEntries(FILTER_KEYS.filter((k) => query[k]).map((k) => [k, query[k]!.slice(0, 200)]));

  app.get(
    '/api/audit/results/',
    {
      ...guard,
      schema: { tags, querystring: ResultsQuery, response: replies.signedIn({ 200: AuditPage }, 400) },
    },
    async (request) => {
      const errors = new FieldErrors();
      const { page, size } = parseAuditPaging(errors, request.query);
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

  app.get(
    '/api/audit/results/:id/',
    {
      ...guard,
      schema: {
        tags,
        params: IdParams,
        querystring: FilterQuery(TENANT),
        response: replies.signedIn({ 200: AuditEventSchema }, 400, 404),
      },
    },
    async (request) => {
      const scope = await scopeOf(request, new FieldErrors());
      const row = await read(request, scope, (db) => repo.find(db, scope, Number(request.params.id)));
      if (!row) throw notFound();
      await recordRead(request, scope, 'Consultation d’un événement du journal d’audit', { event_id: row.id });
      return presentAuditEvent(row);
    },
  );

  app.get(
    '/api/audit/export/:format/',
    {
      ...guard,
      schema: {
        tags,
        params: Type.Object({ format: Type.String({ description: 'csv ou json' }) }),
        querystring: FilterQuery(FILTERS),
        response: replies.signedIn(
          { 200: Type.String({ description: 'Fichier joint : CSV (text/csv) ou liste JSON d’AuditEvent' }) },
          400,
        ),
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
