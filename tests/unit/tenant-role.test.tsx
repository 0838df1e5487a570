import { act } from 'react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { useSignals } from '@preact/signals-react/runtime';
import { useCanWrite } from '../../src/lib/auth/can-write.ts';
import { tenantRoleOf } from '../../src/lib/auth/roles.ts';
import { session, switchTenant } from '../../src/lib/auth/session.ts';
import type { UserProfile } from '../../src/lib/auth/types.ts';
import { canWriteVulnerabilities } from '../../src/features/vulnerabilities/permissions.ts';
import { resetApiClient, setClientEnvironment } from '../../src/lib/api-client.ts';
import { mountEachTest } from './support/mount.tsx';

const ACME = '11111111-1111-4111-8111-111111111111';
const HORIZON = '22222222-2222-4222-8222-222222222222';

/** An analyst who writes in Acme and only reads in Banque Horizon; signed in on Acme. */
const profile: UserProfile = {
  id: 7,
  username: 'analyste',
  email: 'analyste@example.test',
  is_active: true,
  role: 'user',
  is_staff: false,
  is_superuser: false,
  tenants: [
    { id: ACME, name: 'Acme Sécurité' },
    { id: HORIZON, name: 'Banque Horizon' },
  ],
  tenant_memberships: [
    { tenant_id: ACME, tenant_name: 'Acme Sécurité', role: 'user' },
    { tenant_id: HORIZON, tenant_name: 'Banque Horizon', role: 'readonly' },
  ],
  current_tenant: { id: ACME, name: 'Acme Sécurité' },
};

function Gate() {
  useSignals();
  return <p>{useCanWrite() ? 'écriture' : 'lecture seule'}</p>;
}

beforeEach(() => {
  resetApiClient();
  // The profile reload after a switch answers with the same profile, current tenant moved.
  setClientEnvironment({
    fetch: async (_input, init) => {
      const tenant = new Headers(init?.headers).get('X-Tenant-ID') ?? ACME;
      const current = profile.tenants!.find((t) => t.id === tenant)!;
      return new Response(JSON.stringify({ ...profile, current_tenant: current }), {
        status: 200,
        headers: { 'content-type': 'application/json' },
      });
    },
  });
  session.value = {
    tokens: { access_token: 'a.b.c', refresh_token: 'r', expires_at: Date.now() + 3_600_000 },
    profile,
  };
});

afterEach(() => {
  session.value = undefined;
});

const view = mountEachTest();

describe('write rights follow the current tenant, not the sign-in', () => {
  it('reads the role held in the tenant chosen in the switcher', () => {
    expect(tenantRoleOf(profile, ACME)).toBe('user');
    expect(tenantRoleOf(profile, HORIZON)).toBe('readonly');
    // Flags win: a superuser is admin everywhere.
    expect(tenantRoleOf({ ...profile, is_superuser: true }, HORIZON)).toBe('admin');
    // No membership named: the profile's own role.
    expect(tenantRoleOf(profile, undefined)).toBe('user');
  });

  it('hides write actions at once after switching to a tenant where the user only reads, and shows them back', async () => {
    view.render(<Gate />);
    expect(view.container.textContent).toBe('écriture');
    await act(async () => {
      await switchTenant(HORIZON);
    });
    expect(view.container.textContent).toBe('lecture seule');
    expect(canWriteVulnerabilities()).toBe(false);
    // The profile was read again as seen in the new tenant.
    expect(session.value?.profile.current_tenant?.id).toBe(HORIZON);
    await act(async () => {
      await switchTenant(ACME);
    });
    expect(view.container.textContent).toBe('écriture');
    expect(canWriteVulnerabilities()).toBe(true);
  });
});
