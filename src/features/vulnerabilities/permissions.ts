import { currentTenantId, session } from '../auth/session.ts';
import { roleOf } from '../auth/roles.ts';

/** Readers (role readonly, in the current tenant or overall) cannot resolve or reopen; the server decides anyway. */
export function canWriteVulnerabilities(): boolean {
  const profile = session.value?.profile;
  if (!profile) return false;
  if (profile.is_superuser) return true;
  const tenant = currentTenantId();
  const membership = profile.tenant_memberships?.find((m) => m.tenant_id === tenant);
  const role = membership?.role ?? roleOf(profile);
  return role !== 'readonly' && role !== 'guest';
}

/** The current tenant, read reactively (call inside a component using useSignals): data reloads on a switch. */
export function tenantKey(): string {
  return currentTenantId() ?? '';
}
