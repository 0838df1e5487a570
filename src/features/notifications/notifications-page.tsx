import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { Link, useSearchParams } from 'wouter';
import { useSignals } from '@preact/signals-react/runtime';
import { ApiError, type DataOrigin } from '../../lib/api-client.ts';
import { DataOriginNote } from '../../components/data-origin-note.tsx';
import { Figure, SampleScope } from '../../components/sample-scope.tsx';
import { FilterSelect } from '../../components/filter-select.tsx';
import { errorAria, FormError, FormField } from '../../components/form-field.tsx';
import { ActionMessages, EmptyState } from '../../components/list-state.tsx';
import { Pager } from '../../components/pager.tsx';
import { messageOf } from '../../lib/error-message.ts';
import { currentTenantId, session } from '../../lib/auth/session.ts';
import {
  createNotification,
  listNotifications,
  listRecipients,
  markAllAsRead,
  markAsRead,
  NOTIFICATION_LEVELS,
  safeLink,
  type AppNotification,
  type NotificationInput,
  type NotificationLevel,
  type NotificationPage,
  type Recipient,
} from './notifications-api.ts';
import { adjustUnreadCount, arrivedSince, onNotificationArrival, setUnreadCount } from './notifications-state.ts';
import {
  absoluteDate,
  FIELD_MESSAGES,
  LEVEL_BADGES,
  LEVEL_LABELS,
  maySendNotifications,
  relativeDate,
} from './notification-rules.ts';
import './notifications.css';

export const NOTIFICATIONS_PAGE_SIZE = 20;
const NUMBER = new Intl.NumberFormat('fr-FR');

function positiveInt(value: string | null, fallback: number): number {
  const n = Number(value);
  return Number.isInteger(n) && n > 0 ? n : fallback;
}

/** The view lives in the URL (?unread=true&tenant=&page=), so it survives a reload and can be shared. */
function useNotificationQuery() {
  const [params, setParams] = useSearchParams();
  const query = {
    unread: params.get('unread') === 'true',
    tenant: params.get('tenant') ?? '',
    page: positiveInt(params.get('page'), 1),
  };
  const update = (changes: Partial<Record<'unread' | 'tenant' | 'page', string | number>>) => {
    setParams(
      (prev) => {
        const next = new URLSearchParams(prev);
        // Another filter starts over at page 1.
        if (!('page' in changes)) next.delete('page');
        for (const [key, value] of Object.entries(changes)) {
          const text = String(value ?? '');
          if (text === '' || (key === 'page' && text === '1')) next.delete(key);
          else next.set(key, text);
        }
        return next;
      },
      { replace: true },
    );
  };
  return [query, update] as const;
}

type ReadState =
  { kind: 'loading' } | { kind: 'ok'; data: NotificationPage; origin: DataOrigin } | { kind: 'failed'; error: string };

/**
 * A copy (the service worker's 60 s cache, the local copy) may predate what the stream brought since: those join
 * the first page, so the toast's « Voir » never leads to a list without the notification.
 */
function withArrivals(
  answer: { data: NotificationPage; origin: DataOrigin },
  tenant: string,
  page: number,
): { data: NotificationPage; origin: DataOrigin } {
  if (answer.origin.source !== 'cache' || page !== 1) return answer;
  const known = new Set(answer.data.results.map((n) => n.id));
  const added = arrivedSince(answer.origin.storedAt ?? 0).filter(
    (n) => !known.has(n.id) && (!tenant || n.tenant_id === tenant),
  );
  if (added.length === 0) return answer;
  return {
    ...answer,
    data: {
      results: [...added, ...answer.data.results],
      count: answer.data.count + added.length,
      unread: answer.data.unread + added.filter((n) => !n.read).length,
    },
  };
}

function readOne(state: ReadState, id: number): ReadState {
  if (state.kind !== 'ok') return state;
  const target = state.data.results.find((n) => n.id === id);
  if (!target || target.read) return state;
  return {
    ...state,
    data: {
      ...state.data,
      results: state.data.results.map((n) => (n.id === id ? { ...n, read: true } : n)),
      unread: Math.max(0, state.data.unread - 1),
    },
  };
}

function readAll(state: ReadState): ReadState {
  if (state.kind !== 'ok') return state;
  return {
    ...state,
    data: { ...state.data, results: state.data.results.map((n) => ({ ...n, read: true })), unread: 0 },
  };
}

/** Notifications: the caller's own, newest first, read/unread, marked read here, and sent by managers. */
export default function NotificationsPage() {
  useSignals();
  const profile = session.value?.profile;
  const tenantKey = currentTenantId() ?? '';
  const canSend = maySendNotifications(profile, currentTenantId());
  const tenants = profile?.tenants ?? [];
  const [query, update] = useNotificationQuery();
  const { unread, tenant, page } = query;
  const [state, setState] = useState<ReadState>({ kind: 'loading' });
  const [reloads, setReloads] = useState(0);
  const [sending, setSending] = useState(false);
  const [notice, setNotice] = useState<string | null>(null);
  const seq = useRef(0);

  useEffect(() => {
    const mine = ++seq.current;
    listNotifications({ unread, tenant, page, size: NOTIFICATIONS_PAGE_SIZE }).then(
      (answer) => mine === seq.current && setState({ kind: 'ok', ...withArrivals(answer, tenant, page) }),
      (err: unknown) => mine === seq.current && setState({ kind: 'failed', error: messageOf(err) }),
    );
  }, [unread, tenant, page, tenantKey, reloads]);

  // What the stream brings joins the first page at once, without a reload.
  useEffect(
    () =>
      onNotificationArrival((item) =>
        setState((s) => {
          if (s.kind !== 'ok' || (tenant && item.tenant_id !== tenant)) return s;
          if (s.data.results.some((n) => n.id === item.id)) return s;
          return {
            ...s,
            data: {
              results: page === 1 ? [item, ...s.data.results] : s.data.results,
              count: s.data.count + 1,
              unread: s.data.unread + (item.read ? 0 : 1),
            },
          };
        }),
      ),
    [tenant, page],
  );

  function markOne(item: AppNotification) {
    if (item.read) return;
    // §8: shown read at once; the request is queued or kept for later when it cannot be sent now.
    setState((s) => readOne(s, item.id));
    adjustUnreadCount(-1);
    void markAsRead(item.id);
  }

  function markEverything() {
    const scopeUnread = state.kind === 'ok' ? state.data.unread : 0;
    setState(readAll);
    if (tenant) adjustUnreadCount(-scopeUnread);
    else setUnreadCount(0);
    setNotice('Toutes les notifications sont marquées comme lues.');
    void markAllAsRead(tenant);
  }

  const data = state.kind === 'ok' ? state.data : null;
  const pages = data ? Math.max(1, Math.ceil(data.count / NOTIFICATIONS_PAGE_SIZE)) : 1;

  return (
    <section className="page nt-page">
      <div className="vm-head">
        <h1>Notifications</h1>
        <div className="vm-actions">
          {canSend && !sending && (
            <button type="button" className="btn secondary" onClick={() => setSending(true)}>
              Envoyer une notification
            </button>
          )}
          <button type="button" className="btn primary" disabled={!data || data.unread === 0} onClick={markEverything}>
            Tout marquer comme lu
          </button>
        </div>
      </div>

      {canSend && sending && (
        <SendForm
          onClose={() => setSending(false)}
          onSent={(message, queued) => {
            setSending(false);
            setNotice(message);
            if (!queued) setReloads((n) => n + 1);
          }}
        />
      )}

      <div className="vm-toolbar nt-toolbar" role="group" aria-label="Filtrer les notifications">
        <div className="nt-switch" role="group" aria-label="Afficher">
          <button
            type="button"
            className={unread ? 'btn small primary' : 'btn small secondary'}
            aria-pressed={unread}
            onClick={() => update({ unread: 'true' })}
          >
            Non lues
          </button>
          <button
            type="button"
            className={unread ? 'btn small secondary' : 'btn small primary'}
            aria-pressed={!unread}
            onClick={() => update({ unread: '' })}
          >
            Toutes
          </button>
        </div>
        {tenants.length > 1 && (
          <FilterSelect
            label="Organisation"
            value={tenant}
            allLabel="Toutes"
            options={tenants.map((t) => [t.id, t.name] as const)}
            onChange={(value) => update({ tenant: value })}
          />
        )}
      </div>

      <ActionMessages notice={notice} />
      {state.kind === 'loading' && <p role="status">Chargement des notifications…</p>}
      {state.kind === 'failed' && (
        <p className="error" role="alert">
          Impossible de charger les notifications : {state.error}
        </p>
      )}
      {data && state.kind === 'ok' && (
        <>
          <DataOriginNote origin={state.origin} />
          <SampleScope origin={state.origin}>
            <p className="muted nt-count">
              <Figure>{NUMBER.format(data.count)}</Figure> {data.count === 1 ? 'notification' : 'notifications'}
              {data.unread > 0 && ` · ${data.unread === 1 ? '1 non lue' : `${NUMBER.format(data.unread)} non lues`}`}
            </p>
          </SampleScope>
          {data.results.length === 0 ? (
            <EmptyState>{unread ? 'Aucune notification non lue.' : 'Aucune notification.'}</EmptyState>
          ) : (
            <ul className="nt-list" aria-label="Notifications">
              {data.results.map((n) => (
                <NotificationItem key={n.id} item={n} onRead={() => markOne(n)} />
              ))}
            </ul>
          )}
          <Pager label="Pages des notifications" page={page} pages={pages} onPage={(p) => update({ page: p })} />
        </>
      )}
    </section>
  );
}

function NotificationItem({ item, onRead }: { item: AppNotification; onRead: () => void }) {
  const link = safeLink(item.link);
  return (
    <li className={item.read ? 'nt-item read' : 'nt-item unread'} data-notification-id={item.id}>
      <div className="nt-item-head">
        <span className={`vm-badge ${LEVEL_BADGES[item.level]}`}>{LEVEL_LABELS[item.level]}</span>
        {item.read ? <strong>{item.title}</strong> : <strong className="nt-title">{item.title}</strong>}
        {!item.read && <span className="nt-sr">(non lue)</span>}
      </div>
      {item.body && <p className="nt-body">{item.body}</p>}
      <div className="nt-meta">
        <time dateTime={item.created_at} title={absoluteDate(item.created_at)}>
          {relativeDate(item.created_at)}
        </time>
        {item.tenant_name && <span>{item.tenant_name}</span>}
        <span className="vm-actions">
          {link && (
            <Link href={link} aria-label={`Ouvrir « ${item.title} »`} onClick={onRead}>
              Ouvrir
            </Link>
          )}
          {!item.read && (
            <button type="button" className="btn secondary small" onClick={onRead}>
              Marquer comme lue
            </button>
          )}
        </span>
      </div>
    </li>
  );
}

type SendField = 'title' | 'body' | 'level' | 'link' | 'user';
type SendErrors = Partial<Record<SendField, string>>;

function recipientName(r: Recipient): string {
  const full = [r.first_name, r.last_name].filter(Boolean).join(' ').trim();
  return full ? `${full} (${r.username})` : r.username;
}

/** A user typed as an id, a username or a full name; matched against the tenant's users when they are readable. */
function resolveRecipient(text: string, users: Recipient[] | null): number | string | null {
  const t = text.trim();
  if (t === '') return null;
  if (users) {
    const lower = t.toLowerCase();
    const found = users.find(
      (u) =>
        String(u.id) === t ||
        u.username.toLowerCase() === lower ||
        recipientName(u).toLowerCase() === lower ||
        [u.first_name, u.last_name].filter(Boolean).join(' ').toLowerCase() === lower,
    );
    if (found) return found.id;
  }
  return /^\d+$/.test(t) ? Number(t) : users ? null : t;
}

/** The send form (managers and admins): title, text, level, optional link, everyone or one member. */
function SendForm({ onSent, onClose }: { onSent: (message: string, queued: boolean) => void; onClose: () => void }) {
  const id = useId();
  const [title, setTitle] = useState('');
  const [body, setBody] = useState('');
  const [level, setLevel] = useState<NotificationLevel>('info');
  const [link, setLink] = useState('');
  const [everyone, setEveryone] = useState(true);
  const [user, setUser] = useState('');
  const [users, setUsers] = useState<Recipient[] | null>(null);
  const [errors, setErrors] = useState<SendErrors>({});
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  // Administrators can pick from the tenant's users; the others type an id.
  useEffect(() => {
    if (everyone) return;
    let live = true;
    void listRecipients().then((list) => live && setUsers(list));
    return () => {
      live = false;
    };
  }, [everyone]);

  async function submit(e: FormEvent) {
    e.preventDefault();
    const found: SendErrors = {};
    const t = title.trim();
    if (t === '' || t.length > 200) found.title = FIELD_MESSAGES.title;
    if (body.length > 2000) found.body = FIELD_MESSAGES.body;
    if (link.trim() && !safeLink(link.trim())) found.link = FIELD_MESSAGES.link;
    const recipient = everyone ? null : resolveRecipient(user, users);
    if (!everyone && recipient === null) found.user = FIELD_MESSAGES.user;
    setErrors(found);
    setError(null);
    if (Object.keys(found).length > 0) return;
    const input: NotificationInput = {
      title: t,
      level,
      ...(body.trim() ? { body: body.trim() } : {}),
      ...(link.trim() ? { link: link.trim() } : {}),
      ...(recipient !== null ? { user: recipient } : {}),
    };
    setBusy(true);
    try {
      const result = await createNotification(input);
      const n = result.data?.count ?? 0;
      onSent(
        result.queued
          ? result.message
          : n > 1
            ? `Notification envoyée à ${NUMBER.format(n)} destinataires.`
            : result.message,
        result.queued,
      );
    } catch (err) {
      if (err instanceof ApiError) {
        const mapped: SendErrors = {};
        for (const key of ['title', 'body', 'level', 'link', 'user'] as const) {
          const first = err.fields[key]?.[0];
          if (first) mapped[key] = first;
        }
        setErrors(mapped);
        setError(err.message);
      } else setError('Erreur inattendue.');
    } finally {
      setBusy(false);
    }
  }

  const aria = (field: SendField) => errorAria(`${id}-${field}-error`, errors[field]);
  const field = (name: SendField) => ({ id: `${id}-${name}`, errorId: `${id}-${name}-error`, error: errors[name] });

  return (
    <form className="card nt-form" onSubmit={(e) => void submit(e)} noValidate aria-labelledby={`${id}-heading`}>
      <h2 id={`${id}-heading`}>Envoyer une notification</h2>
      <div className="vm-form">
        <FormField {...field('title')} label="Titre *" wide>
          <input
            id={`${id}-title`}
            value={title}
            maxLength={200}
            required
            onChange={(e) => setTitle(e.target.value)}
            {...aria('title')}
          />
        </FormField>
        <FormField {...field('body')} label="Texte" wide>
          <textarea
            id={`${id}-body`}
            value={body}
            maxLength={2000}
            onChange={(e) => setBody(e.target.value)}
            {...aria('body')}
          />
        </FormField>
        <FormField {...field('level')} label="Niveau">
          <select
            id={`${id}-level`}
            value={level}
            onChange={(e) => setLevel(e.target.value as NotificationLevel)}
            {...aria('level')}
          >
            {NOTIFICATION_LEVELS.map((l) => (
              <option key={l} value={l}>
                {LEVEL_LABELS[l]}
              </option>
            ))}
          </select>
        </FormField>
        <FormField {...field('link')} label="Lien dans l’application (facultatif)">
          <input
            id={`${id}-link`}
            value={link}
            placeholder="/projects/4?tab=tasks"
            onChange={(e) => setLink(e.target.value)}
            {...aria('link')}
          />
        </FormField>
        <fieldset className="nt-recipients vm-wide">
          <legend>Destinataires</legend>
          <label className="vm-check">
            <input type="radio" name={`${id}-to`} checked={everyone} onChange={() => setEveryone(true)} />
            Tous les membres de l’organisation
          </label>
          <label className="vm-check">
            <input type="radio" name={`${id}-to`} checked={!everyone} onChange={() => setEveryone(false)} />
            Un utilisateur
          </label>
        </fieldset>
        {!everyone && (
          <FormField {...field('user')} label="Utilisateur (identifiant ou nom) *" wide>
            <input
              id={`${id}-user`}
              value={user}
              list={users ? `${id}-users` : undefined}
              autoComplete="off"
              onChange={(e) => setUser(e.target.value)}
              {...aria('user')}
            />
          </FormField>
        )}
        {!everyone && users && (
          <datalist id={`${id}-users`}>
            {users.map((u) => (
              <option key={u.id} value={recipientName(u)} />
            ))}
          </datalist>
        )}
        <FormError error={error} />
        <div className="vm-form-actions">
          <button type="submit" className="btn primary" disabled={busy}>
            Envoyer
          </button>
          <button type="button" className="btn secondary" onClick={onClose}>
            Annuler
          </button>
        </div>
      </div>
    </form>
  );
}
