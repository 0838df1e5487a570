import type { Paged } from '../../../contract/paged.ts';
import { apiRequest, apiRequestWithOrigin } from '../../lib/api-client.ts';
import type { Sourced } from '../../lib/use-resource.ts';
import type { Display, DisplayTextSize, DisplayTheme } from '../../../contract/displays.ts';

export type { Display };

/** What a screen shows and how: the PATCH body, and the POST body without its code. */
export interface DisplaySettingsBody {
  name: string;
  tenants: string[];
  panels: string[];
  rotation_s: number;
  theme: DisplayTheme;
  text_size: DisplayTextSize;
}

const BASE = '/displays/';

// A refusal (403: the user manages no screen here, or a tenant chosen is not theirs) is an answer the screen shows
// in its own words: no redirect to the sign-in page.
const EXPECTED_REFUSAL = { allowForbidden: true } as const;

/** The screens paired in the current tenant, newest first, and where the list came from (a kept copy offline). */
export async function fetchDisplays(): Promise<Sourced<Display[]>> {
  const { data, origin } = await apiRequestWithOrigin<Display[] | Paged<Display>>(BASE, EXPECTED_REFUSAL);
  return { data: Array.isArray(data) ? data : (data?.results ?? []), origin };
}

/**
 * Approves the pairing whose code the screen shows (docs/displays.md « Pairing » step 3). Not queued offline: a
 * code lives ten minutes, and an unknown or expired one is refused with one message.
 */
export function approveDisplay(body: DisplaySettingsBody & { code: string }): Promise<Display> {
  return apiRequest<Display>(BASE, { method: 'POST', body: { ...body }, ...EXPECTED_REFUSAL });
}

/** Changes a screen's settings; the screen applies them at its next refresh. */
export function updateDisplay(id: Display['id'], body: Partial<DisplaySettingsBody>): Promise<Display> {
  return apiRequest<Display>(`${BASE}${encodeURIComponent(String(id))}/`, {
    method: 'PATCH',
    body: { ...body },
    ...EXPECTED_REFUSAL,
  });
}

/** Revokes a screen's credential at once: it blanks and asks for a new pairing within one refresh. */
export function revokeDisplay(id: Display['id']): Promise<Display> {
  return apiRequest<Display>(`${BASE}${encodeURIComponent(String(id))}/revoke/`, {
    method: 'POST',
    ...EXPECTED_REFUSAL,
  });
}

/** Takes a revoked screen off the list (the server refuses an active one: revoke it first). */
export function removeDisplay(id: Display['id']): Promise<void> {
  return apiRequest<void>(`${BASE}${encodeURIComponent(String(id))}/`, {
    method: 'DELETE',
    ...EXPECTED_REFUSAL,
  });
}
