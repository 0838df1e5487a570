import { useSignals } from '@preact/signals-react/runtime';
import { may } from '../../lib/auth/can-write.ts';
import { hasRole } from '../../lib/auth/roles.ts';
import { session } from '../../lib/auth/session.ts';

export interface TaskPermissions {
  /** Platform tasks (CVE updates, indexing): staff and superusers, i.e. managers and administrators. */
  platform: boolean;
  /** Tenant tasks (scan processing): every member who writes. */
  tenant: boolean;
}

export function useTaskPermissions(): TaskPermissions {
  useSignals();
  // Platform tasks are the staff's (spec §6: staff is manager; admin has every role), whatever the tenant.
  return { platform: hasRole(session.value?.profile, 'manager'), tenant: may('change_content') };
}
