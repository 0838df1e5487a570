/**
 * The server-sent events of GET /api/notifications/stream/ (docs/api-notifications.md § Paths): `unread` on
 * connect and after every change, `notification` for each new one, a comment every 25 s; the stream ends when the
 * access token expires (the client reconnects with a fresh one). Fed by the notifier's bus, which every process
 * on the database hears (PostgreSQL LISTEN/NOTIFY).
 */
import { PassThrough } from 'node:stream';
import type { TenantId } from '../db/tenant-scope.ts';
import type { NotificationInbox, ScopeTenant } from './notification-inbox.ts';
import type { BusEvent, Log, NotificationBus } from './notifier.ts';

export const HEARTBEAT_MS = 25_000;

export class NotificationStreams {
  private readonly streams = new Set<PassThrough>();

  constructor(
    private readonly inbox: NotificationInbox,
    private readonly bus: NotificationBus,
  ) {}

  /** Open streams never go idle: end them, or closing the server would wait for them forever. */
  endAll(): void {
    for (const stream of this.streams) stream.end();
  }

  /**
   * A user's stream over `scope` until `expiresAt` (ms). `release` is for the client going away: the stream is let
   * go at once and destroyed.
   */
  open(opts: { userId: number; scope: readonly ScopeTenant[]; expiresAt: number; log: Log }) {
    const { userId, scope, log } = opts;
    const tenantIds = new Set(scope.map((s) => s.tenantId));
    const stream = new PassThrough();
    this.streams.add(stream);
    let closed = false;

    const write = (chunk: string) => {
      if (!closed) stream.write(chunk);
    };
    const send = (event: string, data: unknown) => write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);

    // One count at a time; changes that arrive meanwhile are folded into one more count.
    let counting = false;
    let again = false;
    const sendUnread = async (): Promise<void> => {
      if (counting) {
        again = true;
        return;
      }
      counting = true;
      try {
        do {
          again = false;
          send('unread', { count: await this.inbox.unreadCount(scope, userId) });
        } while (again && !closed);
      } catch (err) {
        log.warn({ err }, 'notification stream: unread count failed');
      } finally {
        counting = false;
      }
    };

    const unsubscribe = this.bus.subscribe(userId, (event: BusEvent) => {
      if (event.type === 'notification') {
        if (!tenantIds.has(event.notification.tenant_id as TenantId)) return;
        send('notification', event.notification);
      }
      void sendUnread();
    });
    const heartbeat = setInterval(() => write(': ping\n\n'), HEARTBEAT_MS);
    const expiry = setTimeout(() => stream.end(), Math.max(0, opts.expiresAt - Date.now()));

    const cleanup = () => {
      if (closed) return;
      closed = true;
      clearInterval(heartbeat);
      clearTimeout(expiry);
      unsubscribe();
      this.streams.delete(stream);
    };
    stream.once('close', cleanup);
    stream.once('finish', cleanup);

    write('retry: 5000\n\n');
    void sendUnread();
    const release = () => {
      cleanup();
      stream.destroy();
    };
    return { stream, release };
  }
}
