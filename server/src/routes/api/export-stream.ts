import { Readable } from 'node:stream';
import type { FastifyReply } from 'fastify';
import { openExport, type ExportSpec } from '../../services/export-stream.ts';

export type { ExportFormat } from '../../services/export-stream.ts';

/**
 * Sends an export as a dated attachment, `{stem}-YYYY-MM-DD.{format}`. Its first batch is read before the headers
 * go out, so a failing query is answered as an error rather than a 200 cut short.
 */
export async function sendExport<Row>(reply: FastifyReply, stem: string, spec: ExportSpec<Row>): Promise<FastifyReply> {
  const chunks = await openExport(spec, (err) => reply.log.error({ err }, `${stem} export: a row was left out`));
  const day = new Date().toISOString().slice(0, 10);
  return reply
    .header('content-type', spec.format === 'csv' ? 'text/csv; charset=utf-8' : 'application/json; charset=utf-8')
    .header('content-disposition', `attachment; filename="${stem}-${day}.${spec.format}"`)
    .send(Readable.from(chunks));
}
