import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { canReadServerLogs } from '../../../../policies/index.ts';
import {
  presentServerLog,
  SERVER_LOG_CSV_COLUMNS,
  SERVER_LOG_CSV_HEADERS,
  serverLogCsvLine,
  ServerLogSchema,
} from '../../../../presenters/server-log.ts';
import { csvHeaderOf } from '../../../../presenters/vulnerability.ts';
import { serverLogReads, type ServerLogExportRow } from '../../../../repositories/server-logs.ts';
import { LogsExportQuery, LogsQuery, parseLogExport, parseLogList } from '../../../../schemas/admin/logs.ts';
import { replies, Type } from '../../../../schemas/common.ts';
import { sendExport } from '../../export-stream.ts';

const EXPORT_BATCH = 2000;

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
    { ...guard, schema: { tags, querystring: LogsQuery, response: replies.signedIn({ 200: Logs }, 400) } },
    async (request) => {
      const { page, pageSize, filters } = parseLogList(request.query);
      const { total, rows } = await serverLogReads.page(app.database.db, filters, pageSize, (page - 1) * pageSize);
      return { logs: rows.map(presentServerLog), total, page, page_size: pageSize };
    },
  );

  const Export = Type.String({ description: 'CSV (text/csv) ou JSON, en pièce jointe vigie-logs-AAAA-MM-JJ' });
  app.get(
    '/api/admin/logs/export/',
    {
      ...guard,
      config: { statementClass: 'export', heavy: true },
      schema: { tags, querystring: LogsExportQuery, response: replies.signedIn({ 200: Export }, 400) },
    },
    async (request, reply) => {
      const { format, filters, asked } = parseLogExport(request.query);

      // The lines hold every tenant's requests and addresses: taking them away is recorded.
      await app.audit.record(request, {
        eventType: 'sensitive_data_access',
        description: `Export des journaux du serveur (${format.toUpperCase()})`,
        tenantId: null,
        extra: { format, filters: asked },
      });

      return sendExport(reply, 'vigie-logs', {
        format,
        csvHeader: csvHeaderOf(SERVER_LOG_CSV_COLUMNS, SERVER_LOG_CSV_HEADERS),
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
