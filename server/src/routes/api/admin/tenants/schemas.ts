import { domainToASCII } from 'node:url';
import type { NewTenant, TenantChanges } from '../../../../repositories/tenants.ts';
import { FieldErrors } from '../../../../domain/errors.ts';

/** Subscription plans offered (§3 shows Enterprise and Business). */
export const TENANT_PLANS = ['Free', 'Business', 'Enterprise'] as const;
/** A suspended tenant is closed to its members like a deleted one, but stays listed for superusers. */
export const TENANT_STATUSES = ['active', 'suspended'] as const;

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

// Deliberately loose: one @, no spaces, a dot in the domain. Deliverability is the mail server's job.
const EMAIL_RE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
// Labels of letters, digits and inner hyphens, at least two, the last starting with a letter.
const HOSTNAME_RE = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

// Fields of the answer a client may send back with an edit; they are not the client's to set.
const READ_ONLY = new Set(['id', 'created_at', 'user_count', 'deleted_at']);
const WRITABLE = new Set(['name', 'domain', 'subscription_plan', 'status', 'contact_email', 'logo_url']);

export function isTenantId(raw: string): boolean {
  return UUID_RE.test(raw);
}

/** A hostname in lower-case ASCII (an accented domain becomes its punycode form), or undefined when it is not one. */
export function normaliseDomain(raw: string): string | undefined {
  const ascii = domainToASCII(raw.trim().replace(/\.$/, '').toLowerCase());
  return ascii !== '' && HOSTNAME_RE.test(ascii) ? ascii : undefined;
}

/** An https URL, or a same-origin path ("/…" but not "//…", which would name another host). */
function isLogoUrl(value: string): boolean {
  if (value.length > MAX_LOGO_URL || /[\s\\]/.test(value)) return false;
  if (value.startsWith('/')) return !value.startsWith('//');
  try {
    return new URL(value).protocol === 'https:';
  } catch {
    return false;
  }
}

/**
 * Checks a tenant body. On creation name and domain are required and the plan and status take their defaults;
 * on an edit only the fields given change. Throws 400 {detail, code:'invalid', fields} with French messages.
 */
export function validateTenant(body: unknown, mode: 'create'): NewTenant;
export function validateTenant(body: unknown, mode: 'patch'): TenantChanges;
export function validateTenant(body: unknown, mode: 'create' | 'patch'): NewTenant | TenantChanges {
  const errors = new FieldErrors();
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    errors.add('non_field_errors', 'Un objet JSON décrivant l’organisation est attendu.');
    errors.throwIfAny();
  }
  const input = body as Record<string, unknown>;
  const out: TenantChanges = {};
  const text = (key: string): string | null | undefined => {
    const value = input[key];
    if (value === undefined || value === null) return value;
    if (typeof value === 'string') return value.trim();
    errors.add(key, TENANT_MESSAGES.notText(key));
    return undefined;
  };

  for (const key of Object.keys(input)) {
    if (!WRITABLE.has(key) && !READ_ONLY.has(key)) errors.add(key, TENANT_MESSAGES.unknown(key));
  }

  // A required field is checked when given, and on creation also when absent (null and '' never pass).
  const required = (key: string) => {
    const value = text(key);
    return value !== undefined || (mode === 'create' && !(key in input)) ? (value ?? '') : undefined;
  };

  const name = required('name');
  if (name === '') errors.add('name', TENANT_MESSAGES.nameRequired);
  else if (name !== undefined) {
    if ([...name].length > MAX_NAME) errors.add('name', TENANT_MESSAGES.nameTooLong);
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
    const at = email.lastIndexOf('@');
    const normalised = at < 0 ? email : email.slice(0, at) + email.slice(at).toLowerCase();
    if (normalised.length <= MAX_EMAIL && EMAIL_RE.test(normalised)) out.contactEmail = normalised;
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

/** The typed confirmation of a deletion, from the body (`confirm`) or, for clients that send none, the query. */
export function confirmationOf(body: unknown, query: unknown): string {
  for (const source of [body, query]) {
    const value = (source as { confirm?: unknown } | null | undefined)?.confirm;
    if (typeof value === 'string') return value.trim().toLowerCase();
  }
  return '';
}

export interface ListQuery {
  include_deleted?: string;
}

// No additionalProperties:false: clients add cache-busting parameters to GETs.
export const listQuery = {
  type: 'object',
  properties: { include_deleted: { type: 'string', maxLength: 8 } },
} as const;

export interface IdParams {
  id: string;
}

export const idParams = {
  type: 'object',
  required: ['id'],
  properties: { id: { type: 'string' } },
} as const;
