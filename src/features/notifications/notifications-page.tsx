import { useEffect, useState } from 'react';
import { apiRequestWithOrigin, type DataOrigin } from '../../lib/api-client.ts';
import { DataOriginNote } from '../../components/data-origin-note.tsx';

interface Notification {
  id: number | string;
  title: string;
  created_at: string;
  read: boolean;
  body?: string;
}

const DATE = new Intl.DateTimeFormat('fr-FR', { dateStyle: 'medium', timeStyle: 'short' });

/**
 * The notifications list. §8: a failing read falls back to empty results (the service worker substitutes a
 * marked empty page when the backend has none); marking as read arrives with the notifications issue.
 */
export function NotificationsPage() {
  const [state, setState] = useState<{ items: Notification[]; origin?: DataOrigin } | null>(null);

  useEffect(() => {
    let live = true;
    apiRequestWithOrigin<{ results?: Notification[] }>('/notifications/notifications/').then(
      ({ data, origin }) => live && setState({ items: data.results ?? [], origin }),
      () => live && setState({ items: [] }),
    );
    return () => {
      live = false;
    };
  }, []);

  return (
    <section className="page">
      <h1>Notifications</h1>
      {!state && <p>Chargement…</p>}
      {state && (
        <>
          <DataOriginNote origin={state.origin} />
          {state.items.length === 0 ? (
            <p className="muted">Aucune notification.</p>
          ) : (
            <ul className="list">
              {state.items.map((n) => (
                <li key={n.id} className={n.read ? 'read' : 'unread'}>
                  <strong>{n.title}</strong>
                  <time dateTime={n.created_at}>{DATE.format(new Date(n.created_at))}</time>
                </li>
              ))}
            </ul>
          )}
        </>
      )}
    </section>
  );
}
