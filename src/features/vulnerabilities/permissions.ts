import { currentTenantId, session } from '../../lib/auth/session.ts';
import { tenantRoleOf } from '../../lib/auth/roles.ts';

/** Readers (role readonly, in the current tenant or overall) cannot resolve or reopen; the server decides anyway. */
export function canWriteVulnerabilities(): boolean {
  const role = tenantRoleOf(session.value?.profile, currentTenantId());
  return role !== 'readonly' && role !== 'guest';
}

/** The current tenant, read reactively (call inside a component using useSignals): data reloads on a switch. */
export function tenantKey(): string {
  return currentTenantId() ?? '';
}
