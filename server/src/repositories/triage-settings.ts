import { and, count, eq, gte, isNotNull, lt, sql } from 'drizzle-orm';
import type { TenantDb } from '../db/tenant-scope.ts';
import { triageSettings, vulnerabilities, type FindingSeverity } from '../db/schema.ts';
import { rowsOf } from '../db/client.ts';
import { DEFAULT_EPSS_THRESHOLD } from '../domain/ssvc.ts';

/** Days to fix a finding by severity (« Non évaluée » included: days to rate and fix it); null: no deadline. */
export type SlaDays = Record<FindingSeverity, number | null>;

/** The SLA while a tenant has set none (migration 0027's trigger holds the same numbers). */
export const DEFAULT_SLA: SlaDays = { critical: 7, high: 30, medium: 90, low: 180, info: null, unrated: null };

export interface SlaReport {
  /** Open findings with a due date, and those of them past it. */
  open_with_due_date: number;
  overdue: number;
  /** Open findings due within the next 7 days (today included). */
  due_soon: number;
  /** Findings resolved in the last `window_days` days that had a due date, and those resolved by it. */
  resolved_in_window: number;
  resolved_on_time: number;
  window_days: number;
}

const current = sql`app_current_tenant()`;

/** The tenant's triage settings and its SLA figures (issue 21). Always inside the tenant's transaction. */
export class TriageSettingsRepository {
  async sla(tx: TenantDb): Promise<SlaDays> {
    const [row] = await tx.select().from(triageSettings).where(eq(triageSettings.tenantId, current));
    if (!row) return { ...DEFAULT_SLA };
    return {
      critical: row.slaCriticalDays,
      high: row.slaHighDays,
      medium: row.slaMediumDays,
      low: row.slaLowDays,
      info: row.slaInfoDays,
      unrated: row.slaUnratedDays,
    };
  }

  /** The EPSS probability from which SSVC takes an exploit as likely (docs/ssvc.md). */
  async epssThreshold(tx: TenantDb): Promise<number> {
    const [row] = await tx
      .select({ t: triageSettings.epssThreshold })
      .from(triageSettings)
      .where(eq(triageSettings.tenantId, current));
    return row?.t ?? DEFAULT_EPSS_THRESHOLD;
  }

  /**
   * Sets the SLA, and the EPSS threshold when given (kept as it is otherwise). A new threshold moves the decisions
   * of the findings it concerns in the same statement (migration 0029's trigger).
   */
  async saveSla(
    tx: TenantDb,
    sla: Omit<SlaDays, 'unrated'> & { unrated?: number | null | undefined },
    userId: number,
    epssThreshold?: number,
  ): Promise<void> {
    const values = {
      slaCriticalDays: sla.critical,
      slaHighDays: sla.high,
      slaMediumDays: sla.medium,
      slaLowDays: sla.low,
      slaInfoDays: sla.info,
      // Left out (a client that predates « Non évaluée »), it stays as it is.
      ...(sla.unrated === undefined ? {} : { slaUnratedDays: sla.unrated }),
      ...(epssThreshold === undefined ? {} : { epssThreshold }),
      updatedAt: new Date(),
      updatedBy: userId,
    };
    await tx
      .insert(triageSettings)
      .values({ tenantId: current, ...values })
      .onConflictDoUpdate({ target: triageSettings.tenantId, set: values });
  }

  /** Counted on the partial indexes of migration 0027: open ones by due date, resolved ones by resolution date. */
  async report(tx: TenantDb, today: string, windowDays = 90): Promise<SlaReport> {
    const v = vulnerabilities;
    const open = and(eq(v.tenantId, current), sql`not ${v.isResolved}`, isNotNull(v.dueDate));
    const [row] = await tx
      .select({
        withDue: count(),
        overdue: sql<string>`count(*) filter (where ${v.dueDate} < ${today}::date)`,
        soon: sql<string>`count(*) filter (where ${v.dueDate} >= ${today}::date and ${v.dueDate} < ${today}::date + 7)`,
      })
      .from(v)
      .where(open);
    const resolved = rowsOf<{ n: string; on_time: string }>(
      await tx.execute(sql`
        select count(*) as n, count(*) filter (where (${v.resolvedAt} at time zone 'UTC')::date <= ${v.dueDate}) as on_time
          from ${v}
         where ${and(
           eq(v.tenantId, current),
           sql`${v.isResolved}`,
           gte(v.resolvedAt, sql`${today}::date - ${windowDays}::int`),
           lt(v.resolvedAt, sql`${today}::date + 1`),
           isNotNull(v.dueDate),
         )}`),
    )[0];
    return {
      open_with_due_date: Number(row?.withDue ?? 0),
      overdue: Number(row?.overdue ?? 0),
      due_soon: Number(row?.soon ?? 0),
      resolved_in_window: Number(resolved?.n ?? 0),
      resolved_on_time: Number(resolved?.on_time ?? 0),
      window_days: windowDays,
    };
  }
}
