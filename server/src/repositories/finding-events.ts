import { and, asc, desc, eq, getTableColumns, sql } from 'drizzle-orm';
import type { TenantDb } from '../db/tenant-scope.ts';
import { findingEvents, users, vulnerabilities, type FindingEventKind } from '../db/schema.ts';

export interface FindingEventInput {
  vulnerabilityId: number;
  userId: number | null;
  kind: FindingEventKind;
  fromValue?: string | null | undefined;
  toValue?: string | null | undefined;
  comment?: string | undefined;
  /** The scan whose reconciliation made the move. */
  scanId?: number | null | undefined;
}

export type FindingEventRow = typeof findingEvents.$inferSelect & { username: string | null };

export interface FindingChangeRow {
  id: number;
  vulnerabilityId: number;
  fromValue: string | null;
  toValue: string | null;
  createdAt: Date;
  title: string;
  cveId: string | null;
}

const inCurrentTenant = eq(findingEvents.tenantId, sql`app_current_tenant()`);
/** A history line with its author's name (null: the platform, or an account since deleted). */
/** A history line's finding (same tenant, by the composite key). */
const itsFinding = and(
  eq(vulnerabilities.tenantId, findingEvents.tenantId),
  eq(vulnerabilities.id, findingEvents.vulnerabilityId),
);
const eventColumns = { ...getTableColumns(findingEvents), username: users.username };

/** A finding's history (issue 21): appended to, read oldest first. Always inside the tenant's transaction. */
export class FindingEventsRepository {
  async add(tx: TenantDb, events: FindingEventInput[]): Promise<void> {
    if (events.length === 0) return;
    await tx.insert(findingEvents).values(
      events.map((e) => ({
        tenantId: sql`app_current_tenant()`,
        vulnerabilityId: e.vulnerabilityId,
        userId: e.userId,
        kind: e.kind,
        fromValue: e.fromValue ?? null,
        toValue: e.toValue ?? null,
        comment: e.comment ?? '',
        scanId: e.scanId ?? null,
      })),
    );
  }

  async list(tx: TenantDb, vulnerabilityId: number): Promise<FindingEventRow[]> {
    return tx
      .select(eventColumns)
      .from(findingEvents)
      .leftJoin(users, eq(users.id, findingEvents.userId))
      .where(and(inCurrentTenant, eq(findingEvents.vulnerabilityId, vulnerabilityId)))
      .orderBy(asc(findingEvents.id));
  }

  /** The moves a scan's reconciliation made, with each finding's title and CVE, at most `limit`. */
  async byScan(tx: TenantDb, scanId: number, limit: number): Promise<FindingChangeRow[]> {
    return tx
      .select({
        id: findingEvents.id,
        vulnerabilityId: findingEvents.vulnerabilityId,
        fromValue: findingEvents.fromValue,
        toValue: findingEvents.toValue,
        createdAt: findingEvents.createdAt,
        title: vulnerabilities.title,
        cveId: vulnerabilities.cveId,
      })
      .from(findingEvents)
      .innerJoin(vulnerabilities, itsFinding)
      .where(and(inCurrentTenant, eq(findingEvents.scanId, scanId)))
      .orderBy(asc(findingEvents.id))
      .limit(limit);
  }

  /** The latest lines of the history of an asset's findings, newest first. */
  async byAsset(tx: TenantDb, assetId: number, limit: number): Promise<(FindingEventRow & { title: string })[]> {
    return tx
      .select({ ...eventColumns, title: vulnerabilities.title })
      .from(findingEvents)
      .innerJoin(vulnerabilities, itsFinding)
      .leftJoin(users, eq(users.id, findingEvents.userId))
      .where(and(inCurrentTenant, eq(vulnerabilities.assetId, assetId)))
      .orderBy(desc(findingEvents.id))
      .limit(limit);
  }
}
