/**
 * The tenant administration's writes (docs/api-admin.md "Tenants"): a domain names one tenant only, and only a
 * superuser changes a tenant's status or plan.
 */
import { ApiError, notFound } from '../domain/errors.ts';
import { canGovernTenants, type Actor } from '../policies/index.ts';
import {
  tenantUniqueViolation,
  type NewTenant,
  type TenantChanges,
  type TenantsRepository,
  type TenantView,
} from '../repositories/tenants.ts';
import { snakeCase } from '../schemas/admin/common.ts';
import { TENANT_MESSAGES } from '../schemas/admin/tenants.ts';

const duplicateDomain = () =>
  new ApiError(409, 'duplicate_domain', TENANT_MESSAGES.domainTaken, {
    fields: { domain: [TENANT_MESSAGES.domainTaken] },
  });

/** A write that hits the unique domain index (a concurrent creation or edit won the race) is a 409. */
async function unlessDuplicate<T>(write: Promise<T>): Promise<T> {
  try {
    return await write;
  } catch (err) {
    if (tenantUniqueViolation(err)) throw duplicateDomain();
    throw err;
  }
}

export async function createTenant(repo: TenantsRepository, input: NewTenant): Promise<TenantView> {
  if (await repo.domainTaken(input.domain)) throw duplicateDomain();
  return unlessDuplicate(repo.create(input));
}

/**
 * Saves the fields whose value really changes; answers the tenant as saved and, for its audit line, each change
 * by API name. `deny` is the audited 403 of a tenant admin who touches the status or the plan.
 */
export async function updateTenant(
  repo: TenantsRepository,
  target: TenantView,
  input: TenantChanges,
  actor: Actor,
  deny: (description: string) => Promise<never>,
): Promise<{ updated: TenantView; changes: Record<string, { from: unknown; to: unknown }> }> {
  const keys = (Object.keys(input) as (keyof TenantChanges)[]).filter((key) => input[key] !== target[key]);
  const changes: TenantChanges = Object.fromEntries(keys.map((key) => [key, input[key]]));
  if (!canGovernTenants(actor) && (changes.status !== undefined || changes.subscriptionPlan !== undefined)) {
    await deny(`Modification du statut ou de l’offre refusée : ${target.name}`);
  }
  if (changes.domain !== undefined && (await repo.domainTaken(changes.domain, target.id))) throw duplicateDomain();
  const updated = await unlessDuplicate(repo.update(target.id, changes));
  if (!updated) throw notFound();
  return {
    updated,
    changes: Object.fromEntries(keys.map((key) => [snakeCase(key), { from: target[key], to: updated[key] }])),
  };
}
