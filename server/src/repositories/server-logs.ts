import { and, count, desc, eq, gte, ilike, inArray, lt, lte, or, sql, type SQL } from 'drizzle-orm';
import { rowsOf, type Db } from '../db/client.ts';
import { serverLogs, users } from '../db/schema.ts';
import type { LogLevel } from '../domain/log-levels.ts';

/** A stored line with the username of its user (null when none or since deleted). */
export type ServerLogRow = typeof serverLogs.$inferSelect & { username: string | null };
/** A row of an export batch, with the exact timestamp (text, microseconds) the next batch starts after. */
export type ServerLogExportRow = ServerLogRow & { cursor: string };

export interface ServerLogFilters {
  levels?: LogLevel[] | undefined;
  /** Status codes in [min, max] (one code, or a class such as 4xx). */
  status?: { min: number; max: number } | undefined;
  method?: string | undefined;
  requestId?: string | undefined;
  tenantId?: string | undefined;
  userId?: number | undefined;
  /** Inclusive lower bound. */
  from?: Date | undefined;
  /** Upper bound: inclusive, or exclusive when `toExclusive` (a date alone ends at the next UTC midnight). */
  to?: Date | undefined;
  toExclusive?: boolean | undefined;
  /** Found in the message or the URL. */
  text?: string | undefined;
}

/** LIKE wildcards in user text are literal. */
const escapeLike = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

const columns = {
  id: serverLogs.id,
  time: serverLogs.time,
  level: serverLogs.level,
  message: serverLogs.message,
  requestId: serverLogs.requestId,
  method: serverLogs.method,
  url: serverLogs.url,
  statusCode: serverLogs.statusCode,
  responseTimeMs: serverLogs.responseTimeMs,
  tenantId: serverLogs.tenantId,
  userId: serverLogs.userId,
  context: serverLogs.context,
  username: users.username,
};

function where(f: ServerLogFilters): SQL | undefined {
  const parts: SQL[] = [];
  // An empty list (exact levels all below min_level) matches nothing.
  if (f.levels) parts.push(f.levels.length > 0 ? inArray(serverLogs.level, f.levels) : sql`false`);
  if (f.status) parts.push(gte(serverLogs.statusCode, f.status.min), lte(serverLogs.statusCode, f.status.max));
  if (f.method) parts.push(eq(serverLogs.method, f.method));
  if (f.requestId) parts.push(eq(serverLogs.requestId, f.requestId));
  if (f.tenantId) parts.push(eq(serverLogs.tenantId, f.tenantId));
  if (f.userId !== undefined) parts.push(eq(serverLogs.userId, f.userId));
  if (f.from) parts.push(gte(serverLogs.time, f.from));
  if (f.to) parts.push(f.toExclusive ? lt(serverLogs.time, f.to) : lte(serverLogs.time, f.to));
  if (f.text) {
    const pattern = `%${escapeLike(f.text)}%`;
    parts.push(or(ilike(serverLogs.message, pattern), ilike(serverLogs.url, pattern))!);
  }
  return parts.length > 0 ? and(...parts) : undefined;
}

/** The platform log store (server_logs), read and purged with the owner connection: superusers only. */
export const serverLogReads = {
  /** One page, newest first (ties by id), with the total of matching lines. */
  async page(
    db: Db,
    filters: ServerLogFilters,
    limit: number,
    offset: number,
  ): Promise<{ total: number; rows: ServerLogRow[] }> {
    const condition = where(filters);
    const [total] = await db.select({ n: count() }).from(serverLogs).where(condition);
    const n = total?.n ?? 0;
    if (n === 0 || offset >= n) return { total: n, rows: [] };
    const rows = await db
      .select(columns)
      .from(serverLogs)
      .leftJoin(users, eq(users.id, serverLogs.userId))
      .where(condition)
      .orderBy(desc(serverLogs.time), desc(serverLogs.id))
      .limit(limit)
      .offset(offset);
    return { total: n, rows };
  },

  /** One keyset batch of the export, newest first: rows strictly after the previous batch's last (time, id). */
  exportBatch(
    db: Db,
    filters: ServerLogFilters,
    after: { cursor: string; id: number } | undefined,
    limit: number,
  ): Promise<ServerLogExportRow[]> {
    const keyset = after
      ? sql`(${serverLogs.time}, ${serverLogs.id}) < (${after.cursor}::timestamptz, ${after.id})`
      : undefined;
    return db
      .select({ ...columns, cursor: sql<string>`${serverLogs.time}::text` })
      .from(serverLogs)
      .leftJoin(users, eq(users.id, serverLogs.userId))
      .where(and(where(filters), keyset))
      .orderBy(desc(serverLogs.time), desc(serverLogs.id))
      .limit(limit);
  },
};

/** The retention purge: deletes the lines older than `days` days; returns how many went. */
export async function purgeServerLogs(db: Db, days: number): Promise<number> {
  // Counted in the database: a first purge may remove millions of lines.
  const result = await db.execute(
    sql`with gone as (delete from ${serverLogs} where ${serverLogs.time} < now() - make_interval(days => ${days}::int) returning 1)
        select count(*)::int as removed from gone`,
  );
  return Number(rowsOf<{ removed: number | string }>(result)[0]?.removed ?? 0);
}
