import { charCount } from '../../../contract/text.ts';
import { textsOf } from '../../lib/use-form.ts';
import type { Tenant, TenantInput } from './admin-api.ts';

export const PLAN_LABELS: Record<string, string> = { Free: 'Gratuite', Business: 'Business', Enterprise: 'Entreprise' };
export const TENANT_STATUS_LABELS: Record<string, string> = { active: 'Active', suspended: 'Suspendue' };

export interface TenantDraft {
  name: string;
  domain: string;
  subscription_plan: string;
  status: string;
  contact_email: string;
  logo_url: string;
}

export type TenantFieldErrors = Partial<Record<keyof TenantDraft, string>>;

export function draftOf(tenant?: Tenant): TenantDraft {
  return {
    ...textsOf(tenant, ['name', 'domain', 'contact_email', 'logo_url']),
    subscription_plan: tenant?.subscription_plan ?? 'Business',
    status: tenant?.status ?? 'active',
  };
}

// A host name of two labels or more; accented labels are allowed (the server stores them as punycode).
const HOST = /^(?=.{1,253}$)(?:[\p{L}\p{N}](?:[\p{L}\p{N}-]{0,61}[\p{L}\p{N}])?\.)+[\p{L}]{2,63}$/u;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** The server's rules (docs/api-admin.md "Tenants"), checked before sending, with its French messages. */
export function validateTenant(draft: TenantDraft): TenantFieldErrors {
  const errors: TenantFieldErrors = {};
  const name = draft.name.trim();
  if (!name) errors.name = 'Le nom de l’organisation est requis.';
  else if (charCount(name) > 200) errors.name = 'Le nom ne doit pas dépasser 200 caractères.';
  if (!HOST.test(draft.domain.trim().toLowerCase()))
    errors.domain = 'Domaine invalide : un nom d’hôte est attendu, par exemple « exemple.fr ».';
  const email = draft.contact_email.trim();
  if (email && !EMAIL.test(email)) errors.contact_email = 'Adresse e-mail de contact invalide.';
  const logo = draft.logo_url.trim();
  if (
    logo &&
    (charCount(logo) > 2048 || !(logo.startsWith('https://') || (logo.startsWith('/') && !logo.startsWith('//'))))
  )
    errors.logo_url = 'Adresse du logo invalide : une URL https:// ou un chemin commençant par « / » est attendu.';
  return errors;
}

/** The body of a creation: every field, trimmed; the domain lower-cased; empty optional fields as null. */
export function tenantInput(draft: TenantDraft): TenantInput {
  return {
    name: draft.name.trim(),
    domain: draft.domain.trim().toLowerCase(),
    subscription_plan: draft.subscription_plan,
    status: draft.status,
    contact_email: draft.contact_email.trim() || null,
    logo_url: draft.logo_url.trim() || null,
  };
}

/** The body of an edit: only the fields that change. */
export function tenantChanges(draft: TenantDraft, original: Tenant): Partial<TenantInput> {
  const next = tenantInput(draft);
  const before = tenantInput(draftOf(original));
  const out: Partial<TenantInput> = {};
  for (const key of Object.keys(next) as (keyof TenantInput)[]) {
    if (next[key] !== before[key]) Object.assign(out, { [key]: next[key] });
  }
  return out;
}

/** The typed confirmation the server compares with the domain (trimmed, any case). */
export function confirmsDomain(typed: string, domain: string): boolean {
  return typed.trim().toLowerCase() === domain.trim().toLowerCase() && domain.trim() !== '';
}
