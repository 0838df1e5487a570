import { useSignals } from '@preact/signals-react/runtime';
import { session } from '../auth/session.ts';
import { roleOf } from '../auth/roles.ts';

/** Read-only members (and guests) see no write action; the server refuses them anyway (403). */
export function useCanWrite(): boolean {
  useSignals();
  const role = roleOf(session.value?.profile);
  return role !== 'readonly' && role !== 'guest';
}
