import { useEffect } from 'react';
import { useSignals } from '@preact/signals-react/runtime';
import { recordPermissionCheck } from '../audit-log.ts';
import { currentTenantId, session } from './session.ts';
import type { Permission } from '../../../contract/permissions.ts';
import { hasPermission, rightsIn, tenantRoleOf } from './roles.ts';

/**
 * Read-only members of the current tenant (and guests) see no write action; the server refuses them anyway (403). The screen's check is
 * recorded (`permission_check` « write », granted or denied) at most once per screen visit.
 */
export function useCanWrite(): boolean {
  useSignals();
  const role = tenantRoleOf(session.value?.profile, currentTenantId());
  const allowed = may('change_content');
  const signedIn = !!session.value;
  useEffect(() => {
    if (signedIn) recordPermissionCheck('write', allowed, { role });
  }, [signedIn, allowed, role]);
  return allowed;
}

/**
 * spec §6 `hasPermission` for the signed-in user in the current tenant: the one question screens ask before showing
 * an action (the server decides anyway). Read inside a component that uses signals, it follows a tenant switch.
 */
export function may(permission: Permission): boolean {
  return hasPermission(rightsIn(session.value?.profile, currentTenantId()), permission);
}
