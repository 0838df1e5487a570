import { currentTenantId } from '../../lib/auth/session.ts';
import { may } from '../../lib/auth/can-write.ts';

/** Readers (role readonly, in the current tenant or overall) cannot resolve or reopen; the server decides anyway. */
export function canWriteVulnerabilities(): boolean {
  return may('change_content');
}

/** The current tenant, read reactively (call inside a component using useSignals): data reloads on a switch. */
export function tenantKey(): string {
  return currentTenantId() ?? '';
}
