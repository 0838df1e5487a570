// The vocabulary of paired wall screens (issue 22, docs/displays.md): what a display may show and how.

export {
  DEFAULT_ROTATION_S,
  DISPLAY_PANELS,
  DISPLAY_TEXT_SIZES,
  DISPLAY_THEMES,
  MAX_DISPLAY_NAME,
  MAX_ROTATION_S,
  MIN_ROTATION_S,
  type DisplayPanel,
  type DisplayTextSize,
  type DisplayTheme,
} from '../../../contract/displays.ts';

/** A pairing code is shown for this long, then the screen asks a new one. */
export const PAIRING_TTL_MS = 10 * 60_000;
/** A device credential older than this comes back renewed from GET /api/displays/me/. */
export const CREDENTIAL_RENEWAL_MS = 30 * 24 * 3600_000;
/** How long the replaced credential is still accepted after a renewal (its answer may have been lost). */
export const RENEWAL_GRACE_MS = 24 * 3600_000;

/** Pairings one client IP may ask, and wrong codes one approver may type, per window. */
export const PAIRINGS_PER_IP = 5;
export const APPROVAL_ATTEMPTS_PER_USER = 10;
export const PAIRING_LIMIT_WINDOW_MS = 10 * 60_000;

/** The most tenants one display may show. */
export const MAX_DISPLAY_TENANTS = 20;
