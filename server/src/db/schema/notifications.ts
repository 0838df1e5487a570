import { sql } from 'drizzle-orm';
import { boolean, check, index, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import type { NotificationLevel } from '../../../../contract/levels.ts';
import { bigId, createdAt, tenantRef, userOwner, userRef } from './columns.ts';

// Notifications (issue 8, docs/api-notifications.md).

// The levels are the client's vocabulary too (contract/levels.ts); re-exported for the server's imports.
export { NOTIFICATION_LEVELS, type NotificationLevel } from '../../../../contract/levels.ts';

/** What made a notification: a product event, or a manager's message (manual). */
export const NOTIFICATION_KINDS = [
  'manual',
  'kev_match',
  'critical_vulnerability',
  'task_assigned',
  'action_assigned',
  'task_overdue',
  'action_overdue',
  'finding_overdue',
  'task_failed',
  'project_member_added',
] as const;
export type NotificationKind = (typeof NOTIFICATION_KINDS)[number];

/** One notification for one recipient in one tenant. The app role may read, add and mark read; never delete. */
export const notifications = pgTable(
  'notifications',
  {
    id: bigId(),
    tenantId: tenantRef(),
    userId: userOwner(),
    kind: text('kind').$type<NotificationKind>().notNull().default('manual'),
    level: text('level').$type<NotificationLevel>().notNull().default('info'),
    title: text('title').notNull(),
    body: text('body').notNull().default(''),
    /** An app path (starts with one slash) to the object concerned, or null. */
    link: text('link'),
    /** Same event, same recipient, once: e.g. 'overdue:task:12:2026-11-20'. Null for manual messages. */
    dedupeKey: text('dedupe_key'),
    read: boolean('read').notNull().default(false),
    readAt: timestamp('read_at', { withTimezone: true }),
    createdBy: userRef('created_by'),
    createdAt: createdAt(),
  },
  (t) => [
    index('notifications_tenant_user_created_idx').on(t.tenantId, t.userId, t.createdAt),
    index('notifications_unread_idx')
      .on(t.tenantId, t.userId)
      .where(sql`not ${t.read}`),
    uniqueIndex('notifications_dedupe_idx').on(t.tenantId, t.userId, t.dedupeKey),
    check('notifications_link', sql`${t.link} is null or ${t.link} like '/%'`),
  ],
);
