import { and, count, desc, eq, gte, ilike, inArray, lt, lte, sql, type SQL } from 'drizzle-orm';
import { rowsOf, type Db } from '../db/client.ts';
import { auditEvents, type AuditSeverity } from '../db/schema.ts';

export type AuditEventRow = typeof auditEvents.$inferSelect;
/** A row of an export batch, with the exact timestamp (text, microseconds) the next batch starts after. */
export type AuditExportRow = AuditEventRow & { cursor: string };

/** Whose trail: one tenant's, or every tenant's plus the platform events (superusers only). */
export type AuditScope = { tenantId: string } | 'all';

export interface AuditFilters {
  eventTypes?: string[] | undefined;
  severities?: AuditSeverity[] | undefined;
  username?: string | undefined;
  source?: 'server' | 'frontend' | undefined;
  /** Inclusive lower bound. */
  from?: Date | undefined;
  /** Upper bound: inclusive, or exclusive when `toExclusive` (a date alone ends at the next UTC midnight). */
  to?: Date | undefined;
  toExclusive?: boolean | undefined;
  text?: string | undefined;
}

/** LIKE wildcards in user text are literal. */
const escapeLike = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

/**
 * The audit trail, read only (the table is append-only). A tenant's trail is read through the tenant's
 * transaction (row-level security); the all-tenant view needs the owner connection and is for superusers only.
 */
export class AuditEventsRepository {
  private where(scope: AuditScope, f: AuditFilters): SQL | undefined {
    const where: SQL[] = [];
    if (scope !== 'all') where.push(eq(auditEvents.tenantId, scope.tenantId));
    if (f.eventTypes?.length) where.push(inArray(auditEvents.eventType, f.eventTypes));
    if (f.severities?.length) where.push(inArray(auditEvents.severity, f.severities));
    if (f.username !== undefined) where.push(sql`lower(${auditEvents.username}) = lower(${f.username})`);
    if (f.source) where.push(eq(auditEvents.source, f.source));
    if (f.from) where.push(gte(auditEvents.timestamp, f.from));
    if (f.to) where.push(f.toExclusive ? lt(auditEvents.timestamp, f.to) : lte(auditEvents.timestamp, f.to));
    if (f.text) where.push(ilike(auditEvents.description, `%${escapeLike(f.text)}%`));
    return where.length > 0 ? and(...where) : undefined;
  }

  /** One page, newest first (ties by id), with the total of matching rows. */
  async page(
    db: Db,
    scope: AuditScope,
    filters: AuditFilters,
    limit: number,
    offset: number,
  ): Promise<{ total: number; rows: AuditEventRow[] }> {
    const condition = this.where(scope, filters);
    const [total] = await db.select({ n: count() }).from(auditEvents).where(condition);
    const n = total?.n ?? 0;
    if (n === 0 || offset >= n) return { total: n, rows: [] };
    const rows = await db
      .select()
      .from(auditEvents)
      .where(condition)
      .orderBy(desc(auditEvents.timestamp), desc(auditEvents.id))
      .limit(limit)
      .offset(offset);
    return { total: n, rows };
  }

  async find(db: Db, scope: AuditScope, id: number): Promise<AuditEventRow | undefined> {
    const [row] = await db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.id, id), scope === 'all' ? undefined : eq(auditEvents.tenantId, scope.tenantId)))
      .limit(1);
    return row;
  }

  /**
   * One keyset batch of the export in the list's order (newest first): rows strictly after `after`, the previous
   * batch's last (exact timestamp, id).
   */
  async exportBatch(
    db: Db,
    scope: AuditScope,
    filters: AuditFilters,
    after: { cursor: string; id: number } | undefined,
    limit: number,
  ): Promise<AuditExportRow[]> {
    const keyset = after
      ? sql`(${auditEvents.timestamp}, ${auditEvents.id}) < (${after.cursor}::timestamptz, ${after.id})`
      : undefined;
    return db
      .select({ ...auditEventColumns, cursor: sql<string>`${auditEvents.timestamp}::text` })
      .from(auditEvents)
      .where(and(this.where(scope, filters), keyset))
      .orderBy(desc(auditEvents.timestamp), desc(auditEvents.id))
      .limit(limit);
  }
}

const auditEventColumns = {
  id: auditEvents.id,
  tenantId: auditEvents.tenantId,
  timestamp: auditEvents.timestamp,
  eventType: auditEvents.eventType,
  userId: auditEvents.userId,
  username: auditEvents.username,
  ipAddress: auditEvents.ipAddress,
  description: auditEvents.description,
  severity: auditEvents.severity,
  source: auditEvents.source,
  details: auditEvents.details,
  clientEventId: auditEvents.clientEventId,
};

/** The retention purge (owner connection): deletes events older than `days` days through the owner-rights function. */
export async function purgeExpiredAuditEvents(db: Db, days: number): Promise<number> {
  const result = await db.execute(sql`select audit_purge_expired(${days}::int) as removed`);
  return Number(rowsOf<{ removed: string | number }>(result)[0]?.removed ?? 0);
}
