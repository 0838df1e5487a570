import { Nullable, Type, type TSchema } from '../schemas/common.ts';
import type { ConnectionHolds } from '../services/connection-holds.ts';

// The status is assembled by services/admin-status.ts (systemStatus); this is its wire shape.

const count = Type.Integer({ minimum: 0 });
/** A probed part: `ok` with its figures, or `down` with a French reason (the details stay in the server's log). */
const probed = (fields: Record<string, TSchema>, extra: Record<string, TSchema> = {}) =>
  Type.Union([
    Type.Object({ ...extra, status: Type.Literal('ok'), ...fields }),
    Type.Object({ ...extra, status: Type.Literal('down'), error: Type.String() }),
  ]);

/** GET /api/admin/status/ (docs/api-admin.md "Health and status"). */
export const SystemStatusSchema = Type.Object(
  {
    status: Type.Union([Type.Literal('ok'), Type.Literal('degraded')]),
    checked_at: Type.String({ format: 'date-time' }),
    version: Type.String(),
    uptime_seconds: count,
    node_version: Type.String(),
    maintenance_mode: Nullable(Type.Boolean()),
    database: probed({ latency_ms: Type.Number(), size_bytes: count }, { kind: Type.String() }),
    job_queue: probed({ queue_depth: count, active: count, failed_last_24h: count }, { workers: Type.Boolean() }),
    disk: probed({ path: Type.String(), free_bytes: count, total_bytes: count }),
    cve_database: probed({
      last_update: Nullable(Type.String({ format: 'date-time' })),
      last_update_task_id: Nullable(Type.String()),
    }),
    counts: probed({ tenants: count, users: count, active_users: count }),
    logs: Type.Object({ buffered: count, written: count, dropped: count }),
  },
  { title: 'SystemStatus' },
);

const ms = Type.Number({ minimum: 0 });

/** GET /api/admin/status/connections/: this process's connection holds per route, the longest total first. */
export const ConnectionHoldsSchema = Type.Object(
  {
    since: Type.String({ format: 'date-time' }),
    routes: Type.Array(Type.Object({ route: Type.String(), count, p50_ms: ms, p99_ms: ms, max_ms: ms, total_ms: ms })),
    /** API requests in progress in this process, its limit, and those answered 503 at once since it started. */
    requests: Type.Object({ in_flight: count, max: count, refused: count }),
  },
  { title: 'ConnectionHolds' },
);

export function presentConnectionHolds(
  holds: ConnectionHolds,
  gate: { inFlight: number; max: number; refused: number },
) {
  const round = (n: number) => Math.round(n * 100) / 100;
  return {
    since: holds.since.toISOString(),
    routes: holds.figures().map((r) => ({
      route: r.route,
      count: r.count,
      p50_ms: round(r.p50Ms),
      p99_ms: round(r.p99Ms),
      max_ms: round(r.maxMs),
      total_ms: round(r.totalMs),
    })),
    requests: { in_flight: gate.inFlight, max: gate.max, refused: gate.refused },
  };
}
