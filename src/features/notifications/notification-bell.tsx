import { useEffect } from 'react';
import { Link } from 'wouter';
import { useSignals } from '@preact/signals-react/runtime';
import { notificationToast, refusedNotification, unreadCount } from './notifications-store.ts';

const NUMBER = new Intl.NumberFormat('fr-FR');
/** How long the arrival toast stays before it goes by itself. */
export const TOAST_MS = 8_000;

/** « Notifications : 3 non lues » (singular for 0 and 1, as French says). */
export function bellLabel(count: number): string {
  return `Notifications : ${NUMBER.format(count)} ${count > 1 ? 'non lues' : 'non lue'}`;
}

/** The header's bell: the unread count as a badge, a link to the list, its name saying the count. */
export function NotificationBell() {
  useSignals();
  const count = unreadCount.value;
  const label = bellLabel(count);
  return (
    <Link href="/notifications" className={count > 0 ? 'nt-bell unread' : 'nt-bell'} aria-label={label} title={label}>
      <svg aria-hidden="true" focusable="false" viewBox="0 0 24 24" width="22" height="22">
        <path
          fill="currentColor"
          d="M12 22a2.5 2.5 0 0 0 2.45-2h-4.9A2.5 2.5 0 0 0 12 22Zm7-6v-5a7 7 0 0 0-5.5-6.84V3.5a1.5 1.5 0 0 0-3 0v.66A7 7 0 0 0 5 11v5l-2 2v1h18v-1l-2-2Z"
        />
      </svg>
      {count > 0 && (
        <span className="nt-bell-badge" aria-hidden="true">
          {count > 99 ? '99+' : NUMBER.format(count)}
        </span>
      )}
    </Link>
  );
}

/**
 * A discreet note when the stream brings a notification (or when a queued one was refused): polite, dismissable,
 * gone by itself after a few seconds. The live region stays in place so screen readers hear what appears in it.
 */
export function NotificationToast() {
  useSignals();
  const arrived = notificationToast.value;
  const refused = refusedNotification.value;

  useEffect(() => {
    if (!arrived) return;
    const timer = setTimeout(() => {
      if (notificationToast.peek() === arrived) notificationToast.value = null;
    }, TOAST_MS);
    return () => clearTimeout(timer);
  }, [arrived]);

  return (
    <div className="nt-toasts" aria-live="polite">
      {arrived && (
        <div className={`nt-toast ${arrived.level}`}>
          <span>
            Nouvelle notification : <strong>{arrived.title}</strong>
          </span>
          <Link href={arrived.link ?? '/notifications'} onClick={() => (notificationToast.value = null)}>
            Voir
          </Link>
          <button type="button" className="link" onClick={() => (notificationToast.value = null)}>
            Fermer
          </button>
        </div>
      )}
      {refused && (
        <div className="nt-toast critical">
          <span>{refused}</span>
          <button type="button" className="link" onClick={() => (refusedNotification.value = null)}>
            Fermer
          </button>
        </div>
      )}
    </div>
  );
}
