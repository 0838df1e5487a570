import type { ServerLogRow } from '../repositories/server-logs.ts';
import { redactContext } from '../services/server-logs.ts';
import { AnyObject, Nullable, Type, type Static } from '../schemas/common.ts';
import { storedObject } from './stored.ts';
import { presentSystemLog, SystemLogSchema } from './system-log.ts';
import { csvLine } from './vulnerability.ts';

/** A log line (docs/api-admin.md "Logs") on the wire. */
export const ServerLogSchema = Type.Object(
  {
    // The system's short line (GET /api/system/logs/), then who, where and the context, for the console only.
    ...SystemLogSchema.properties,
    response_time_ms: Nullable(Type.Number()),
    tenant_id: Nullable(Type.String()),
    user_id: Nullable(Type.Integer()),
    username: Nullable(Type.String()),
    context: AnyObject,
  },
  { title: 'ServerLog' },
);
export type ServerLog = Static<typeof ServerLogSchema>;

/** Exactly these fields leave the server. */
export function presentServerLog(r: ServerLogRow): ServerLog {
  return {
    ...presentSystemLog(r),
    response_time_ms: r.responseTimeMs,
    tenant_id: r.tenantId,
    user_id: r.userId,
    username: r.username,
    // Stored redacted already; redacted again so a line written by an older version cannot leak.
    context: redactContext(storedObject(r.context)) as Record<string, unknown>,
  };
}

/** The CSV export's columns, in order; `context` is its JSON text. */
export const SERVER_LOG_CSV_COLUMNS = [
  'id',
  'time',
  'level',
  'message',
  'request_id',
  'method',
  'url',
  'status_code',
  'response_time_ms',
  'tenant_id',
  'user_id',
  'username',
  'context',
] as const;

export const SERVER_LOG_CSV_HEADERS: Record<(typeof SERVER_LOG_CSV_COLUMNS)[number], string> = {
  id: 'Identifiant',
  time: 'Date',
  level: 'Niveau',
  message: 'Message',
  request_id: 'Requête',
  method: 'Méthode',
  url: 'URL',
  status_code: 'Code HTTP',
  response_time_ms: 'Durée (ms)',
  tenant_id: 'Organisation',
  user_id: 'Identifiant utilisateur',
  username: 'Utilisateur',
  context: 'Contexte (JSON)',
};

export function serverLogCsvLine(log: ServerLog): string {
  return csvLine([
    log.id,
    log.time,
    log.level,
    log.message,
    log.request_id,
    log.method,
    log.url,
    log.status_code,
    log.response_time_ms,
    log.tenant_id,
    log.user_id,
    log.username,
    JSON.stringify(log.context),
  ]);
}
