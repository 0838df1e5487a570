import type { TenantView } from '../repositories/tenants.ts';
import { Nullable, Type, type Static } from '../schemas/common.ts';

/** The spec §3 tenant, plus deleted_at for the administrators' restore list, on the wire. */
export const TenantSchema = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    name: Type.String(),
    domain: Type.String(),
    subscription_plan: Type.String(),
    status: Type.String(),
    created_at: Type.String({ format: 'date-time' }),
    user_count: Type.Integer({ minimum: 0 }),
    contact_email: Nullable(Type.String()),
    logo_url: Nullable(Type.String()),
    deleted_at: Nullable(Type.String({ format: 'date-time' })),
  },
  { title: 'Tenant' },
);
export type TenantOut = Static<typeof TenantSchema>;

/** Exactly these fields leave the server. */
export function presentTenant(tenant: TenantView): TenantOut {
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
