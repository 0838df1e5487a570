import { signal } from '@preact/signals-react';
import type { AppNotification } from './notifications-api.ts';

/**
 * What the header shows on every screen, kept apart from the engine (notifications-state.ts: polling, stream,
 * local copies), which loads in a chunk of its own after the first paint.
 */

/** The bell's number: unread notifications over every tenant of the signed-in user. */
export const unreadCount = signal(0);
/** The last notification the stream brought, for the discreet toast (null once dismissed). */
export const notificationToast = signal<AppNotification | null>(null);
/** A queued notification the server refused when it was finally sent: said, never silently dropped. */
export const refusedNotification = signal<string | null>(null);
