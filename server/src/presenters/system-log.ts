import type { ServerLogRow } from '../repositories/server-logs.ts';
import { Nullable, Type, type Static } from '../schemas/common.ts';
import { isoTime } from './stored.ts';

/**
 * A line of GET /api/system/logs/: what happened, when and how bad, and the request it belongs to. Who made the
 * request, in which tenant, and the line's context stay in the logs console (GET /api/admin/logs/).
 */
export const SystemLogSchema = Type.Object(
  {
    id: Type.Integer(),
    time: Type.String({ format: 'date-time' }),
    level: Type.String(),
    message: Type.String(),
    request_id: Nullable(Type.String()),
    method: Nullable(Type.String()),
    url: Nullable(Type.String()),
    status_code: Nullable(Type.Integer()),
  },
  { title: 'SystemLog' },
);
export type SystemLog = Static<typeof SystemLogSchema>;

/** Exactly these fields leave the server. */
export function presentSystemLog(r: ServerLogRow): SystemLog {
  return {
    id: r.id,
    time: isoTime(r.time),
    level: r.level,
    message: r.message,
    request_id: r.requestId,
    method: r.method,
    url: r.url,
    status_code: r.statusCode,
  };
}
