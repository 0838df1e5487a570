/** The tenant administration's input (docs/api-admin.md "Tenants"): body, path id, confirmation, list query. */
import { domainToASCII } from 'node:url';
import { charCount } from '../../../../contract/text.ts';
import { ApiError, FieldErrors } from '../../domain/errors.ts';
import type { NewTenant, TenantChanges } from '../../repositories/tenants.ts';
import { FilterQuery, Type, type Static } from '../common.ts';
import { EMAIL_RE, normaliseEmail, UuidParams } from './common.ts';

/** Subscription plans offered (spec §3 shows Enterprise and Business). */
const TENANT_PLANS = ['Free', 'Business', 'Enterprise'] as const;
/** A suspended tenant is closed to its members like a deleted one, but stays listed for superusers. */
const TENANT_STATUSES = ['active', 'suspended'] as const;

const MAX_NAME = 200;
const MAX_EMAIL = 254;
const MAX_LOGO_URL = 2048;

export const TENANT_MESSAGES = {
  nameRequired: 'Le nom de l’organisation est requis.',
  nameTooLong: `Le nom de l’organisation ne doit pas dépasser ${MAX_NAME} caractères.`,
  domainRequired: 'Le domaine est requis.',
  domainInvalid: 'Domaine invalide : un nom d’hôte est attendu, par exemple « exemple.fr ».',
  domainTaken: 'Une organisation utilise déjà ce domaine.',
  planInvalid: `Offre invalide. Valeurs possibles : ${TENANT_PLANS.join(', ')}.`,
  statusInvalid: `Statut invalide. Valeurs possibles : ${TENANT_STATUSES.join(', ')}.`,
  emailInvalid: 'Adresse email de contact invalide.',
  logoInvalid: 'Adresse du logo invalide : une URL https:// ou un chemin commençant par « / » est attendu.',
  notText: (key: string) => `« ${key} » doit être un texte.`,
  unknown: (key: string) => `Champ inconnu : « ${key} ».`,
  confirm: (domain: string) =>
    `Confirmation requise : saisissez le domaine de l’organisation (« ${domain} ») dans « confirm » pour la supprimer.`,
} as const;

// Labels of letters, digits and inner hyphens, at least two, the last starting with a letter.
const HOSTNAME_RE = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

// Fields of the answer a client may send back with an edit; they are not the client's to set.
const READ_ONLY = new Set(['id', 'created_at', 'user_count', 'deleted_at']);
const WRITABLE = new Set(['name', 'domain', 'subscription_plan', 'status', 'contact_email', 'logo_url']);

/** A hostname in lower-case ASCII (an accented domain becomes its punycode form), or undefined when it is not one. */
function normaliseDomain(raw: string): string | undefined {
  const ascii = domainToASCII(raw.trim().replace(/\.$/, '').toLowerCase());
  return ascii !== '' && HOSTNAME_RE.test(ascii) ? ascii : undefined;
}

/** An https URL, or a same-origin path ("/…" but not "//…", which would name another host). */
function isLogoUrl(value: string): boolean {
  if (charCount(value) > MAX_LOGO_URL || /[\s\\]/.test(value)) return false;
  if (value.startsWith('/')) return !value.startsWith('//');
  try {
    return new URL(value).protocol === 'https:';
  } catch {
    return false;
  }
}

const textOrNull = (key: string, description: string) =>
  Type.Optional(
    Type.Unsafe<string | null>({ type: ['string', 'null'], description, errorMessage: TENANT_MESSAGES.notText(key) }),
  );

/**
 * A tenant body: each writable field a text (or null); the rules and the French messages are `validateTenant`'s.
 * Other keys pass the schema so that `validateTenant` names each unknown one (the read-only ones are ignored).
 */
export const TenantBody = Type.Object(
  {
    name: textOrNull('name', `Nom (${MAX_NAME} caractères au plus)`),
    domain: textOrNull('domain', 'Nom d’hôte, par exemple « exemple.fr »'),
    subscription_plan: textOrNull('subscription_plan', `Offre : ${TENANT_PLANS.join(', ')}`),
    status: textOrNull('status', `Statut : ${TENANT_STATUSES.join(', ')}`),
    contact_email: textOrNull('contact_email', 'Adresse email de contact'),
    logo_url: textOrNull('logo_url', 'URL https:// ou chemin commençant par « / »'),
  },
  { errorMessage: 'Un objet JSON décrivant l’organisation est attendu.' },
);
type TenantBody = Static<typeof TenantBody>;

/** `/:id` of a tenant: a UUID, anything else is not found. */
export const TenantParams = UuidParams('Identifiant');

/** The typed confirmation of a deletion may come in the query, for clients that send no body with DELETE. */
export const ConfirmQuery = FilterQuery({ confirm: 'Domaine de l’organisation, pour confirmer la suppression' });

/**
 * Checks a tenant body. On creation name and domain are required and the plan and status take their defaults;
 * on an edit only the fields given change. Throws 400 {detail, code:'invalid', fields} with French messages.
 */
export function validateTenant(body: TenantBody, mode: 'create'): NewTenant;
export function validateTenant(body: TenantBody, mode: 'patch'): TenantChanges;
export function validateTenant(body: TenantBody, mode: 'create' | 'patch'): NewTenant | TenantChanges {
  const errors = new FieldErrors();
  const input = body as Record<string, unknown>;
  const out: TenantChanges = {};
  const text = (key: keyof TenantBody) => body[key]?.trim() ?? body[key];

  for (const key of Object.keys(input)) {
    if (!WRITABLE.has(key) && !READ_ONLY.has(key)) errors.add(key, TENANT_MESSAGES.unknown(key));
  }

  // A required field is checked when given, and on creation also when absent (null and '' never pass).
  const required = (key: keyof TenantBody) => {
    const value = text(key);
    return value !== undefined || (mode === 'create' && !(key in input)) ? (value ?? '') : undefined;
  };

  const name = required('name');
  if (name === '') errors.add('name', TENANT_MESSAGES.nameRequired);
  else if (name !== undefined) {
    if (charCount(name) > MAX_NAME) errors.add('name', TENANT_MESSAGES.nameTooLong);
    else out.name = name;
  }

  const domain = required('domain');
  if (domain === '') errors.add('domain', TENANT_MESSAGES.domainRequired);
  else if (domain !== undefined) {
    const normalised = normaliseDomain(domain);
    if (normalised) out.domain = normalised;
    else errors.add('domain', TENANT_MESSAGES.domainInvalid);
  }

  const plan = text('subscription_plan');
  if (plan !== undefined) {
    if (plan !== null && (TENANT_PLANS as readonly string[]).includes(plan)) out.subscriptionPlan = plan;
    else errors.add('subscription_plan', TENANT_MESSAGES.planInvalid);
  }

  const status = text('status');
  if (status !== undefined) {
    if (status !== null && (TENANT_STATUSES as readonly string[]).includes(status)) out.status = status;
    else errors.add('status', TENANT_MESSAGES.statusInvalid);
  }

  const email = text('contact_email');
  if (email === null || email === '') out.contactEmail = null;
  else if (email !== undefined) {
    const normalised = normaliseEmail(email);
    if (charCount(normalised) <= MAX_EMAIL && EMAIL_RE.test(normalised)) out.contactEmail = normalised;
    else errors.add('contact_email', TENANT_MESSAGES.emailInvalid);
  }

  const logo = text('logo_url');
  if (logo === null || logo === '') out.logoUrl = null;
  else if (logo !== undefined) {
    if (isLogoUrl(logo)) out.logoUrl = logo;
    else errors.add('logo_url', TENANT_MESSAGES.logoInvalid);
  }

  errors.throwIfAny();
  if (mode === 'patch') return out;
  return {
    name: out.name!,
    domain: out.domain!,
    subscriptionPlan: out.subscriptionPlan ?? 'Business',
    status: out.status ?? 'active',
    contactEmail: out.contactEmail ?? null,
    logoUrl: out.logoUrl ?? null,
  };
}

/**
 * The typed confirmation of a deletion, from the body (`confirm`) or, for clients that send none, the query: the
 * tenant's domain, or 400.
 */
export function checkConfirmation(body: unknown, query: unknown, domain: string): void {
  const given = [body, query]
    .map((source) => (source as { confirm?: unknown } | null | undefined)?.confirm)
    .find((value) => typeof value === 'string');
  if (typeof given === 'string' && given.trim().toLowerCase() === domain) return;
  const message = TENANT_MESSAGES.confirm(domain);
  throw new ApiError(400, 'confirmation_required', message, { fields: { confirm: [message] } });
}

export const ListTenantsQuery = FilterQuery({ include_deleted: 'true : les organisations supprimées aussi' });
