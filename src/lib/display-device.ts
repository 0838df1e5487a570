import { kvDelete, kvGet, kvSet } from './storage.ts';

/** docs/displays.md: what a paired wall screen shows, set per device from « Écrans ». */
export const DISPLAY_PANELS = ['vulnerabilities', 'act', 'kev', 'threats', 'tasks', 'overdue', 'overview'] as const;
export type DisplayPanel = (typeof DISPLAY_PANELS)[number];

/** Each panel's French name: the wall's titles and the « Écrans » choices say the same words. */
export const DISPLAY_PANEL_TITLES: Record<DisplayPanel, string> = {
  vulnerabilities: 'Vulnérabilités',
  act: 'À traiter maintenant',
  kev: 'Exploitées (KEV)',
  threats: 'Menaces',
  tasks: 'Tâches de fond',
  overdue: 'Actions en retard',
  overview: 'Vue d’ensemble',
};
export type DisplayTheme = 'dark' | 'light';
export type DisplayTextSize = 'normal' | 'large' | 'xlarge';

/** `Display` (docs/displays.md), as the server sends it. */
export interface Display {
  id: string | number;
  name: string;
  tenants: { id: string; name: string }[];
  panels: DisplayPanel[];
  rotation_s: number;
  theme: DisplayTheme;
  text_size: DisplayTextSize;
  created_at?: string;
  created_by?: string | null;
  last_seen_at?: string | null;
  last_ip?: string | null;
  version?: string | null;
  revoked_at?: string | null;
}

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
