import { useSignals } from '@preact/signals-react/runtime';
import { session } from './session.ts';
import { roleOf } from './roles.ts';

/** Read-only members (and guests) see no write action; the server refuses them anyway (403). */
export function useCanWrite(): boolean {
  useSignals();
  const role = roleOf(session.value?.profile);
  return role !== 'readonly' && role !== 'guest';
}
