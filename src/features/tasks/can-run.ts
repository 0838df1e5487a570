import { useSignals } from '@preact/signals-react/runtime';
import { session } from '../../lib/auth/session.ts';
import { roleOf } from '../../lib/auth/roles.ts';

export interface TaskPermissions {
  /** Platform tasks (CVE updates, indexing): staff and superusers, i.e. managers and administrators. */
  platform: boolean;
  /** Tenant tasks (scan processing): every member who writes. */
  tenant: boolean;
}

export function useTaskPermissions(): TaskPermissions {
  useSignals();
  const role = roleOf(session.value?.profile);
  return { platform: role === 'admin' || role === 'manager', tenant: role !== 'readonly' && role !== 'guest' };
}
