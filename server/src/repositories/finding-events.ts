import { and, asc, eq, sql } from 'drizzle-orm';
import type { TenantDb } from '../db/tenant-scope.ts';
import { findingEvents, users, type FindingEventKind } from '../db/schema.ts';

export interface FindingEventInput {
  vulnerabilityId: number;
  userId: number | null;
  kind: FindingEventKind;
  fromValue?: string | null | undefined;
  toValue?: string | null | undefined;
  comment?: string | undefined;
}

export type FindingEventRow = typeof findingEvents.$inferSelect & { username: string | null };

const inCurrentTenant = eq(findingEvents.tenantId, sql`app_current_tenant()`);

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
      })),
    );
  }

  async list(tx: TenantDb, vulnerabilityId: number): Promise<FindingEventRow[]> {
    return tx
      .select({
        id: findingEvents.id,
        tenantId: findingEvents.tenantId,
        vulnerabilityId: findingEvents.vulnerabilityId,
        userId: findingEvents.userId,
        kind: findingEvents.kind,
        fromValue: findingEvents.fromValue,
        toValue: findingEvents.toValue,
        comment: findingEvents.comment,
        createdAt: findingEvents.createdAt,
        username: users.username,
      })
      .from(findingEvents)
      .leftJoin(users, eq(users.id, findingEvents.userId))
      .where(and(inCurrentTenant, eq(findingEvents.vulnerabilityId, vulnerabilityId)))
      .orderBy(asc(findingEvents.id));
  }
}
