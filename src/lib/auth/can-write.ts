import { useEffect } from 'react';
import { useSignals } from '@preact/signals-react/runtime';
import { recordPermissionCheck } from '../audit-log.ts';
import { currentTenantId, session } from './session.ts';
import { tenantRoleOf } from './roles.ts';

/**
 * Read-only members of the current tenant (and guests) see no write action; the server refuses them anyway (403). The screen's check is
 * recorded (`permission_check` « write », granted or denied) at most once per screen visit.
 */
export function useCanWrite(): boolean {
  useSignals();
  const role = tenantRoleOf(session.value?.profile, currentTenantId());
  const allowed = role !== 'readonly' && role !== 'guest';
  const signedIn = !!session.value;
  useEffect(() => {
    if (signedIn) recordPermissionCheck('write', allowed, { role });
  }, [signedIn, allowed, role]);
  return allowed;
}
