import type { Tenant } from '../../../src/features/admin/admin-api.ts';

/** A live tenant as the tenant administration lists it. */
export const TENANT: Tenant = {
  id: '0b5c6a7e-0000-4000-8000-000000000001',
  name: 'Acme',
  domain: 'acme.fr',
  subscription_plan: 'Enterprise',
  status: 'active',
  created_at: '2025-05-01T10:00:00.000Z',
  user_count: 7,
  contact_email: null,
  logo_url: null,
  deleted_at: null,
};
