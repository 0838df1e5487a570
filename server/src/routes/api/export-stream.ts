import { Readable } from 'node:stream';
import type { FastifyReply } from 'fastify';
import { exportChunks, type ExportSpec } from '../../services/export-stream.ts';

export type { ExportFormat } from '../../services/export-stream.ts';

/** Sends an export as a dated attachment, `{stem}-YYYY-MM-DD.{format}`. */
export function sendExport<Row>(reply: FastifyReply, stem: string, spec: ExportSpec<Row>): FastifyReply {
  const day = new Date().toISOString().slice(0, 10);
  return reply
    .header('content-type', spec.format === 'csv' ? 'text/csv; charset=utf-8' : 'application/json; charset=utf-8')
    .header('content-disposition', `attachment; filename="${stem}-${day}.${spec.format}"`)
    .send(Readable.from(exportChunks(spec)));
}
