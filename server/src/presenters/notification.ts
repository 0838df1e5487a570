import type { NotificationView } from '../repositories/notifications.ts';

/** Notification (docs/api-notifications.md § Model): exactly these fields leave the server. */
export function presentNotification(n: NotificationView) {
  return {
    id: n.id,
    title: n.title,
    created_at: n.createdAt.toISOString(),
    read: n.read,
    body: n.body,
    level: n.level,
    link: n.link,
    kind: n.kind,
    tenant_id: n.tenantId,
    tenant_name: n.tenantName,
  };
}

export type Notification = ReturnType<typeof presentNotification>;
