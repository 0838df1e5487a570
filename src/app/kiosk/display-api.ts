import { apiRequest, ApiError, type DeviceCredentials } from '../../lib/api-client.ts';
// Only `version` is bundled: Vite's JSON imports are tree-shaken by name.
import { version } from '../../../package.json';
import type { Display } from '../../lib/display-device.ts';

/** POST /api/displays/pairings/ (docs/displays.md): a code to show, and the secret to poll it with. */
export interface Pairing {
  id: string | number;
  code: string;
  poll_secret: string;
  expires_at: string;
}

export type PairingStatus = 'pending' | 'approved' | 'expired' | 'consumed';

/** GET /api/displays/pairings/{id}/: the first read after approval carries the device credential. */
export interface PairingPoll {
  status: PairingStatus;
  expires_at?: string;
  token?: string;
  display?: Display;
}

/** GET /api/displays/me/ */
export interface DisplayMe {
  display: Display;
  renewed_token?: string;
}

const unexpected = () => new ApiError(0, 'Réponse inattendue du serveur.');

/** Asks for a pairing code, without any authentication. */
export async function createPairing(): Promise<Pairing> {
  const data = await apiRequest<Partial<Pairing> | null>('/displays/pairings/', {
    method: 'POST',
    body: {},
    anonymous: true,
  });
  if (!data || typeof data.code !== 'string' || typeof data.poll_secret !== 'string' || data.id === undefined)
    throw unexpected();
  return data as Pairing;
}

/** Where the pairing stands, read with its secret. */
export async function pollPairing(pairing: Pairing): Promise<PairingPoll> {
  const data = await apiRequest<Partial<PairingPoll> | null>(
    `/displays/pairings/${encodeURIComponent(String(pairing.id))}/`,
    { anonymous: true, headers: { 'X-Display-Pairing': pairing.poll_secret } },
  );
  if (!data || typeof data.status !== 'string') throw unexpected();
  return data as PairingPoll;
}

/** The screen's own record (its configuration), and a renewed credential when the old one is 30 days old. */
export async function fetchDisplayMe(device: DeviceCredentials): Promise<DisplayMe> {
  // The version goes with it: « Écrans » lists which screens run an older build.
  const data = await apiRequest<Partial<DisplayMe> | null>('/displays/me/', {
    device,
    headers: { 'X-Vigie-Version': version },
  });
  if (!data?.display || typeof data.display !== 'object') throw unexpected();
  return data as DisplayMe;
}

/** `K7QH4MZP`, `k7qh-4mzp` → `K7QH-4MZP`: as the « Écrans » screen asks for it. */
export function formatPairingCode(code: string): string {
  const clean = code.replace(/[^0-9A-Za-z]/g, '').toUpperCase();
  return clean.length === 8 ? `${clean.slice(0, 4)}-${clean.slice(4)}` : clean;
}
