/**
 * A user's notifications across their tenants (docs/api-notifications.md): each tenant is read in its own
 * transaction (row-level security), one after the other (a user belongs to few tenants), and the answers merged.
 */
import { randomUUID } from 'node:crypto';
import type { Db } from '../db/client.ts';
import { withTenant, type TenantDb, type TenantId } from '../db/tenant-scope.ts';
import { BROADCAST_KEY_PREFIX, NotificationsRepository, type NotificationView } from '../repositories/notifications.ts';
import { invalid } from '../schemas/fields.ts';
import { MESSAGES, type CheckedNotice } from '../schemas/notifications.ts';
import type { Created, Notifier } from './notifier.ts';

/** One tenant a request covers. */
export interface ScopeTenant {
  tenantId: TenantId;
  tenantName: string;
}

/** Newest first, then the highest id (two rows written in the same transaction share created_at). */
const newestFirst = (a: NotificationView, b: NotificationView) =>
  b.createdAt.getTime() - a.createdAt.getTime() || b.id - a.id;

const sum = (values: readonly number[]) => values.reduce((a, b) => a + b, 0);

export class NotificationInbox {
  private readonly repo = new NotificationsRepository();

  /** `statementTimeoutMs` bounds each statement of its tenant transactions (reads and marks alike). */
  constructor(
    private readonly db: Db,
    private readonly notifier: Notifier,
    private readonly statementTimeoutMs?: number,
  ) {}

  /** Runs fn in each tenant's own transaction, one after the other. */
  private async eachTenant<T>(scope: readonly ScopeTenant[], fn: (tx: TenantDb) => Promise<T>): Promise<T[]> {
    const out: T[] = [];
    for (const tenant of scope) out.push(await withTenant(this.db, tenant.tenantId, fn, this.statementTimeoutMs));
    return out;
  }

  /** A page of the user's notifications in `scope`, with the totals of every tenant. */
  async list(
    scope: readonly ScopeTenant[],
    userId: number,
    { unreadOnly, page, size }: { unreadOnly: boolean; page: number; size: number },
  ): Promise<{ rows: NotificationView[]; count: number; unread: number }> {
    const offset = (page - 1) * size;
    // One tenant pages in the database; several are merged here from each one's first offset + size rows.
    const single = scope.length === 1;
    const parts = await this.eachTenant(scope, (tx) =>
      this.repo.page(tx, userId, { unreadOnly, limit: single ? size : offset + size, offset: single ? offset : 0 }),
    );
    const rows = single
      ? (parts[0]?.rows ?? [])
      : parts
          .flatMap((p) => p.rows)
          .sort(newestFirst)
          .slice(offset, offset + size);
    return { rows, count: sum(parts.map((p) => p.count)), unread: sum(parts.map((p) => p.unread)) };
  }

  async unreadCount(scope: readonly ScopeTenant[], userId: number): Promise<number> {
    return sum(await this.eachTenant(scope, (tx) => this.repo.unreadCount(tx, userId)));
  }

  /** Marks one notification read; false when none of the user's tenants holds it. */
  async markRead(scope: readonly ScopeTenant[], userId: number, id: number): Promise<boolean> {
    // The id alone does not say which tenant holds it: look in each, stop at the first hit.
    for (const tenant of scope) {
      const [marked] = await this.eachTenant([tenant], (tx) => this.repo.markRead(tx, userId, id));
      if (!marked) continue;
      if (marked.changed) this.notifier.changed(userId);
      return true;
    }
    return false;
  }

  /** Marks every notification of `scope` read; returns how many changed. */
  async markAllRead(scope: readonly ScopeTenant[], userId: number): Promise<number> {
    const updated = sum(await this.eachTenant(scope, (tx) => this.repo.markAllRead(tx, userId)));
    if (updated > 0) this.notifier.changed(userId);
    return updated;
  }

  /**
   * A manager's message to one member or the whole current tenant, written in the caller's transaction; publish
   * what it returns once that transaction committed.
   */
  async send(tx: TenantDb, notice: CheckedNotice, senderId: number): Promise<Created[]> {
    const written = await this.notifier.write(
      tx,
      notice.user !== undefined ? { users: [notice.user] } : { everyone: true },
      {
        kind: 'manual',
        level: notice.level,
        title: notice.title,
        body: notice.body,
        link: notice.link,
        createdBy: senderId,
        // One message to everyone is one event: its rows share a key (a wall shows it once, repositories/notifications.ts).
        ...(notice.user === undefined ? { dedupeKey: `${BROADCAST_KEY_PREFIX}${randomUUID()}` } : {}),
      },
      { strict: true },
    );
    // Only active members of this tenant are recipients: anyone else is unknown here.
    if (notice.user !== undefined && written.length === 0) throw invalid('user', MESSAGES.user);
    return written;
  }
}
