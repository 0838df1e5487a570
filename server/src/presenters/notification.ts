import { NOTIFICATION_LEVELS } from '../../../contract/levels.ts';
import { NOTIFICATION_KINDS } from '../db/schema.ts';
import type { NotificationView } from '../repositories/notifications.ts';
import { Choice, Nullable, Type, type Static } from '../schemas/common.ts';

/** Notification (docs/api-notifications.md § Model): the reply schema and the presenter list the same fields. */
export const NotificationSchema = Type.Object(
  {
    id: Type.Integer(),
    title: Type.String(),
    created_at: Type.String({ format: 'date-time' }),
    read: Type.Boolean(),
    body: Type.String(),
    level: Choice(NOTIFICATION_LEVELS),
    link: Nullable(Type.String()),
    kind: Choice(NOTIFICATION_KINDS),
    tenant_id: Type.String({ format: 'uuid' }),
    tenant_name: Type.String(),
  },
  { title: 'Notification' },
);
export type Notification = Static<typeof NotificationSchema>;

export function presentNotification(n: NotificationView): Notification {
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
