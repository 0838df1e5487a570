/**
 * The notification routes' input (docs/api-notifications.md): the list's paging, the tenant filter, and a
 * manager's message checked field by field with the contract's French messages.
 */
import { NOTIFICATION_LEVELS, type NotificationLevel } from '../../../contract/levels.ts';
import { charCount } from '../../../contract/text.ts';
import { FieldErrors } from '../domain/errors.ts';
import { FilterQuery, Nullable, Type, type Static } from './common.ts';
import { invalid } from './fields.ts';
import { parseBoolean, parseSizePaging, type RawQuery } from './query.ts';
import { isUuid } from '../lib/uuid.ts';

/** A notification's longest title and text: a manager's longer ones are refused, the product's are clipped. */
export const TITLE_MAX = 200;
export const BODY_MAX = 2000;
const DEFAULT_SIZE = 50;
const MAX_SIZE = 200;
const MAX_LINK = 1000;
export const MESSAGES = {
  title: `Le titre est obligatoire (${TITLE_MAX} caractères au plus).`,
  body: `Le texte dépasse ${BODY_MAX} caractères.`,
  level: 'Niveau invalide : info, warning ou critical.',
  link: "Lien invalide : un chemin de l'application commençant par « / » est attendu.",
  user: 'Destinataire inconnu dans cette organisation.',
  tenant: 'Organisation invalide : un identifiant (UUID) est attendu.',
} as const;

const TENANT = 'Organisation (UUID) ; sans elle, toutes celles de l’appelant';
export const TenantQuery = FilterQuery({ tenant: TENANT });
export const ListNotificationsQuery = FilterQuery({
  tenant: TENANT,
  unread: 'true : seulement les non lues',
  page: 'Numéro de page, à partir de 1',
  size: `Taille de page (défaut ${DEFAULT_SIZE}, au plus ${MAX_SIZE})`,
});

/** Types by the schema (each with the contract's message); trimming, lengths and the link rule by readNotice. */
export const CreateBody = Type.Object(
  {
    title: Type.Optional(Type.String({ errorMessage: MESSAGES.title })),
    body: Type.Optional(Nullable(Type.String({ errorMessage: MESSAGES.body }))),
    level: Type.Optional(Nullable(Type.String({ errorMessage: MESSAGES.level }))),
    link: Type.Optional(Nullable(Type.String({ errorMessage: MESSAGES.link }))),
    user: Type.Optional(
      Nullable(Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER, errorMessage: MESSAGES.user })),
    ),
  },
  { additionalProperties: false },
);
type CreateBody = Static<typeof CreateBody>;

/** A manager's message, checked: `user` undefined means everyone in the tenant. */
export interface CheckedNotice {
  title: string;
  body: string;
  level: NotificationLevel;
  link: string | null;
  user: number | undefined;
}

/** `?page=&size=&unread=` of the list. */
export function readListQuery(query: RawQuery) {
  const errors = new FieldErrors();
  const { page, size } = parseSizePaging(errors, query, DEFAULT_SIZE, MAX_SIZE);
  const unreadOnly = parseBoolean(errors, query, 'unread') ?? false;
  errors.throwIfAny();
  return { page, size, unreadOnly };
}

/** `tenant` of a query or body: undefined for « all of the caller's », else the lower-case UUID; 400 otherwise. */
export function readTenant(raw: unknown): string | undefined {
  if (raw === undefined || raw === null || (typeof raw === 'string' && raw.trim() === '')) return undefined;
  const value = typeof raw === 'string' ? raw.trim().toLowerCase() : '';
  if (!isUuid(value)) throw invalid('tenant', MESSAGES.tenant);
  return value;
}

/** mark_all_as_read's tenant: `?tenant=`, else `{"tenant": …}` of the optional body (read, not validated). */
export function markAllTenant(query: { tenant?: string }, body: unknown): unknown {
  const fromBody =
    typeof body === 'object' && body !== null && !Array.isArray(body)
      ? (body as { tenant?: unknown }).tenant
      : undefined;
  return query.tenant ?? fromBody;
}

/** An app path: one leading slash (never '//', which browsers read as another host), no backslash or space. */
function isAppPath(link: string): boolean {
  // eslint-disable-next-line no-control-regex
  return charCount(link) <= MAX_LINK && /^\/(?!\/)/.test(link) && !/[\\\s\u0000-\u001f\u007f]/.test(link);
}

/** The create body checked field by field, with the contract's French messages. */
export function readNotice(body: CreateBody): CheckedNotice {
  const errors = new FieldErrors();
  const title = body.title?.trim() ?? '';
  if (title === '' || charCount(title) > TITLE_MAX || title.includes('\u0000')) errors.add('title', MESSAGES.title);

  let text = '';
  if (typeof body.body === 'string') {
    if (charCount(body.body) <= BODY_MAX && !body.body.includes('\u0000')) text = body.body.trim();
    else errors.add('body', MESSAGES.body);
  }

  let level: NotificationLevel = 'info';
  if (typeof body.level === 'string') {
    const raw = body.level.trim().toLowerCase();
    if ((NOTIFICATION_LEVELS as readonly string[]).includes(raw)) level = raw as NotificationLevel;
    else errors.add('level', MESSAGES.level);
  }

  let link: string | null = null;
  if (typeof body.link === 'string' && body.link !== '') {
    const raw = body.link.trim();
    if (isAppPath(raw)) link = raw;
    else errors.add('link', MESSAGES.link);
  }

  const user = typeof body.user === 'number' ? body.user : undefined;
  errors.throwIfAny();
  return { title, body: text, level, link, user };
}
