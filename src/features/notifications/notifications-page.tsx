import { charCount } from '../../../contract/text.ts';
import { useEffect, useState } from 'react';
import { Link } from 'wouter';
import { useSignals } from '@preact/signals-react/runtime';
import type { DataOrigin } from '../../lib/api-client.ts';
import { DataOriginNote } from '../../components/data-origin-note.tsx';
import { Figure, SampleScope } from '../../components/sample-scope.tsx';
import { FilterSelect } from '../../components/filter-select.tsx';
import { FormError, SelectField, TextField } from '../../components/form-field.tsx';
import { ActionMessages, EmptyState, ReadStatus } from '../../components/list-state.tsx';
import { Pager } from '../../components/pager.tsx';
import { pageCount, usePagedList } from '../../lib/use-paged-list.ts';
import { useForm } from '../../lib/use-form.ts';
import { useResource } from '../../lib/use-resource.ts';
import { optionsOf } from '../../components/select.tsx';
import { NOTIFICATION_LEVEL_LABELS, NOTIFICATION_LEVELS } from '../../../contract/levels.ts';
import { currentTenantId, session } from '../../lib/auth/session.ts';
import {
  createNotification,
  listNotifications,
  listRecipients,
  markAllAsRead,
  markAsRead,
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

function readOne(page: NotificationPage, id: number): NotificationPage {
  const target = page.results.find((n) => n.id === id);
  if (!target || target.read) return page;
  return {
    ...page,
    results: page.results.map((n) => (n.id === id ? { ...n, read: true } : n)),
    unread: Math.max(0, page.unread - 1),
  };
}

function readAll(page: NotificationPage): NotificationPage {
  return { ...page, results: page.results.map((n) => ({ ...n, read: true })), unread: 0 };
}

/** Notifications: the caller's own, newest first, read/unread, marked read here, and sent by managers. */
export default function NotificationsPage() {
  useSignals();
  const profile = session.value?.profile;
  const tenantKey = currentTenantId() ?? '';
  const canSend = maySendNotifications(profile, currentTenantId());
  const tenants = profile?.tenants ?? [];
  // The view lives in the URL (?unread=true&tenant=&page=), so it survives a reload and can be shared.
  const { query, update, list, pages } = usePagedList({
    filters: { unread: '', tenant: '' },
    load: async ({ unread, tenant, page }) =>
      withArrivals(
        await listNotifications({ unread: unread === 'true', tenant, page, size: NOTIFICATIONS_PAGE_SIZE }),
        tenant,
        page,
      ),
    pages: (data) => pageCount(data.count, NOTIFICATIONS_PAGE_SIZE),
    deps: [tenantKey],
  });
  const { tenant, page } = query;
  const unread = query.unread === 'true';
  const [sending, setSending] = useState(false);
  const [notice, setNotice] = useState<string | null>(null);

  // What the stream brings joins the first page at once, without a reload.
  const { update: change } = list;
  useEffect(
    () =>
      onNotificationArrival((item) =>
        change((data) => {
          if ((tenant && item.tenant_id !== tenant) || data.results.some((n) => n.id === item.id)) return data;
          return {
            results: page === 1 ? [item, ...data.results] : data.results,
            count: data.count + 1,
            unread: data.unread + (item.read ? 0 : 1),
          };
        }),
      ),
    // `change` writes through a state setter: the subscription only follows the view.
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [tenant, page],
  );

  function markOne(item: AppNotification) {
    if (item.read) return;
    // spec §8: shown read at once; the request is queued or kept for later when it cannot be sent now.
    list.update((data) => readOne(data, item.id));
    adjustUnreadCount(-1);
    void markAsRead(item.id);
  }

  function markEverything() {
    const scopeUnread = list.state.status === 'ready' ? list.state.data.unread : 0;
    list.update(readAll);
    if (tenant) adjustUnreadCount(-scopeUnread);
    else setUnreadCount(0);
    setNotice('Toutes les notifications sont marquées comme lues.');
    void markAllAsRead(tenant);
  }

  const data = list.data ?? null;

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
            if (!queued) void list.refresh();
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
      <ReadStatus
        pending={!data && list.loading}
        loading="Chargement des notifications…"
        error={list.error}
        failure="Impossible de charger les notifications"
      />
      {data && !list.error && (
        <>
          <DataOriginNote origin={list.origin} />
          <SampleScope origin={list.origin}>
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
        {!item.read && <span className="sr-only">(non lue)</span>}
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
  const form = useForm({ title: '', body: '', level: 'info' as NotificationLevel, link: '', user: '' });
  const { values } = form;
  const [everyone, setEveryone] = useState(true);
  // Administrators can pick from the tenant's users; the others type an id.
  const users = useResource(async () => ({ data: everyone ? null : await listRecipients() }), [everyone]).data ?? null;
  const recipient = everyone ? null : resolveRecipient(values.user, users);

  const validate = ({ title, body, link }: typeof values) => {
    const found: SendErrors = {};
    const t = title.trim();
    if (t === '' || charCount(t) > 200) found.title = FIELD_MESSAGES.title;
    if (charCount(body) > 2000) found.body = FIELD_MESSAGES.body;
    if (link.trim() && !safeLink(link.trim())) found.link = FIELD_MESSAGES.link;
    if (!everyone && recipient === null) found.user = FIELD_MESSAGES.user;
    return found;
  };
  const send = async ({ title, body, level, link }: typeof values) => {
    const input: NotificationInput = {
      title: title.trim(),
      level,
      ...(body.trim() ? { body: body.trim() } : {}),
      ...(link.trim() ? { link: link.trim() } : {}),
      ...(recipient !== null ? { user: recipient } : {}),
    };
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
  };

  return (
    <form
      className="card nt-form"
      onSubmit={form.onSubmit(send, { validate })}
      noValidate
      aria-labelledby={`${form.id}-heading`}
    >
      <h2 id={`${form.id}-heading`}>Envoyer une notification</h2>
      <div className="vm-form">
        <TextField form={form} name="title" label="Titre *" maxLength={200} required wide />
        <TextField form={form} name="body" label="Texte" maxLength={2000} multiline wide />
        <SelectField
          form={form}
          name="level"
          label="Niveau"
          options={optionsOf(NOTIFICATION_LEVEL_LABELS, NOTIFICATION_LEVELS)}
        />
        <TextField
          form={form}
          name="link"
          label="Lien dans l’application (facultatif)"
          placeholder="/projects/4?tab=tasks"
        />
        <fieldset className="nt-recipients vm-wide">
          <legend>Destinataires</legend>
          <label className="vm-check">
            <input type="radio" name={`${form.id}-to`} checked={everyone} onChange={() => setEveryone(true)} />
            Tous les membres de l’organisation
          </label>
          <label className="vm-check">
            <input type="radio" name={`${form.id}-to`} checked={!everyone} onChange={() => setEveryone(false)} />
            Un utilisateur
          </label>
        </fieldset>
        {!everyone && (
          <TextField
            form={form}
            name="user"
            label="Utilisateur (identifiant ou nom) *"
            list={users ? `${form.id}-users` : undefined}
            autoComplete="off"
            wide
          />
        )}
        {!everyone && users && (
          <datalist id={`${form.id}-users`}>
            {users.map((u) => (
              <option key={u.id} value={recipientName(u)} />
            ))}
          </datalist>
        )}
        <FormError error={form.error} />
        <div className="vm-form-actions">
          <button type="submit" className="btn primary" disabled={form.submitting}>
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
