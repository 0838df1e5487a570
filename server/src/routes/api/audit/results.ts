import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Db } from '../../../db/client.ts';
import { notFound } from '../../../domain/errors.ts';
import { signedIn } from '../../../plugins/app/authorization.ts';
import { canReadAudit } from '../../../policies/index.ts';
import {
  AUDIT_CSV_COLUMNS,
  AUDIT_CSV_HEADERS,
  auditCsvLine,
  AuditEventSchema,
  presentAuditEvent,
} from '../../../presenters/audit-event.ts';
import { csvHeaderOf } from '../../../presenters/vulnerability.ts';
import { AuditEventsRepository, type AuditExportRow, type AuditScope } from '../../../repositories/audit-events.ts';
import {
  ExportQuery,
  readEventTenant,
  readExportQuery,
  readResultsQuery,
  ResultsQuery,
  TenantQuery,
} from '../../../schemas/audit.ts';
import { IdParams, replies, Type } from '../../../schemas/common.ts';
import { sendExport } from '../export-stream.ts';

const EXPORT_BATCH = 2000;
const REFUSAL = 'journal d’audit';
const tags = ['Journal d’audit'];
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

/** The audit trail: paged reading, one event, and the CSV/JSON export (docs/api-audit.md). */
const auditResultsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const repo = new AuditEventsRepository();
  // Readers without a tenant (a superuser reading `all`) are let through: the scope decides.
  const guard = app.guard((auth) => canReadAudit(auth.actor), { refusal: REFUSAL, tenant: false });

  /** Whose trail the request reads (`tenant` as read): the current tenant's; a superuser may name `all` or any. */
  const scopeOf = async (request: FastifyRequest, tenant: string | undefined): Promise<AuditScope> => {
    const auth = signedIn(request);
    const current = auth.tenant?.id;
    const wanted = tenant ?? current;
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

  app.get(
    '/api/audit/results/',
    {
      ...guard,
      schema: { tags, querystring: ResultsQuery, response: replies.signedIn({ 200: AuditPage }, 400) },
    },
    async (request) => {
      const { page, size, filters, tenant, recorded } = readResultsQuery(request.query);
      const scope = await scopeOf(request, tenant);
      const { total, rows } = await read(request, scope, (db) =>
        repo.page(db, scope, filters, size, (page - 1) * size),
      );
      await recordRead(request, scope, 'Consultation du journal d’audit', { page, size, filters: recorded });
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
        querystring: TenantQuery,
        response: replies.signedIn({ 200: AuditEventSchema }, 400, 404),
      },
    },
    async (request) => {
      const scope = await scopeOf(request, readEventTenant(request.query));
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
      config: { statementClass: 'export', heavy: true },
      schema: {
        tags,
        params: Type.Object({ format: Type.String({ description: 'csv ou json' }) }),
        querystring: ExportQuery,
        response: replies.signedIn(
          { 200: Type.String({ description: 'Fichier joint : CSV (text/csv) ou liste JSON d’AuditEvent' }) },
          400,
        ),
      },
    },
    async (request, reply) => {
      const { format, filters, tenant, recorded } = readExportQuery(request.params.format, request.query);
      const scope = await scopeOf(request, tenant);
      await recordRead(request, scope, `Export du journal d’audit (${format.toUpperCase()})`, {
        format,
        filters: recorded,
      });
      return sendExport(reply, 'audit', {
        format,
        csvHeader: csvHeaderOf(AUDIT_CSV_COLUMNS, AUDIT_CSV_HEADERS),
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
