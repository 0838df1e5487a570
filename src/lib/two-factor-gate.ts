import { signal } from '@preact/signals-react';
import { isErrorOf } from '../../contract/api-error.ts';

/**
 * The server's "set up two-factor authentication first" gate (docs/api-admin.md "Security policies"): set when an
 * answer says so, cleared by the next successful answer of a gated path (the gate has lifted). The app shows it and
 * takes the user to the two-factor setup.
 */
export const twoFactorSetupNotice = signal<string | null>(null);

export function isTwoFactorSetupAnswer(
  status: number,
  data: unknown,
): data is { detail: string; code: 'two_factor_setup_required' } {
  return status === 403 && isErrorOf(data, 'two_factor_setup_required');
}

/** The paths the server keeps open behind the gate (profile, 2FA, password, sign-in and out, audit buffer). */
const OPEN_PATHS = [
  /^\/api\/(users\/me|current-user|tenants\/user-data|accounts\/me)(\/|$)/,
  /^\/api\/accounts\/(2fa|password)(\/|$)/,
  /^\/api\/(token|auth|logout)(\/|$)/,
  /^\/api\/audit\/events(\/|$)/,
  /^\/api\/(system\/)?health(\/|$)/,
];

/** Whether a success on this (normalised) path proves the gate has lifted. */
export function isGatedPath(path: string): boolean {
  return !OPEN_PATHS.some((re) => re.test(path.split('?')[0] ?? path));
}
