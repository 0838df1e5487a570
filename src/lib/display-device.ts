import type { Display } from '../../contract/displays.ts';

export type { Display };
import { kvDelete, kvGet, kvSet } from './storage.ts';

/** The device credential and the last configuration read with it (kept for a start offline). */
export interface DisplayCredential {
  /** `vgd_…`, sent as `Authorization: Display <token>`. */
  token: string;
  display: Display;
}

/** The IndexedDB record (kv) of this device's credential; the service worker reads it to pick the cache partition. */
export const DISPLAY_CREDENTIAL_KEY = 'display-device';

function isCredential(value: unknown): value is DisplayCredential {
  const v = value as Partial<DisplayCredential> | undefined;
  return (
    typeof v?.token === 'string' &&
    v.token !== '' &&
    !!v.display &&
    typeof v.display === 'object' &&
    (typeof v.display.id === 'string' || typeof v.display.id === 'number')
  );
}

/** The stored credential, or null (none, unreadable or malformed). */
export async function loadDisplayCredential(): Promise<DisplayCredential | null> {
  const stored = await kvGet<unknown>(DISPLAY_CREDENTIAL_KEY).catch(() => undefined);
  return isCredential(stored) ? stored : null;
}

export async function saveDisplayCredential(credential: DisplayCredential): Promise<void> {
  await kvSet(DISPLAY_CREDENTIAL_KEY, credential);
}

export async function forgetDisplayCredential(): Promise<void> {
  await kvDelete(DISPLAY_CREDENTIAL_KEY);
}
