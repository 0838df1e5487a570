import type { TenantView } from '../repositories/tenants.ts';

/** The §3 tenant, plus deleted_at for the administrators' restore list: exactly these fields leave the server. */
export function presentTenant(tenant: TenantView) {
  return {
    id: tenant.id,
    name: tenant.name,
    domain: tenant.domain,
    subscription_plan: tenant.subscriptionPlan,
    status: tenant.status,
    created_at: tenant.createdAt.toISOString(),
    user_count: tenant.userCount,
    contact_email: tenant.contactEmail,
    logo_url: tenant.logoUrl,
    deleted_at: tenant.deletedAt?.toISOString() ?? null,
  };
}

export type TenantOut = ReturnType<typeof presentTenant>;
