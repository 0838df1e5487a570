// The vocabulary of paired wall screens (issue 22, docs/displays.md): what a display may show and how.

/** The kiosk's panels, in the order a new display shows them. */
export const DISPLAY_PANELS = ['vulnerabilities', 'act', 'kev', 'threats', 'tasks', 'overdue', 'overview'] as const;
export type DisplayPanel = (typeof DISPLAY_PANELS)[number];

export const DISPLAY_THEMES = ['dark', 'light'] as const;
export type DisplayTheme = (typeof DISPLAY_THEMES)[number];

export const DISPLAY_TEXT_SIZES = ['normal', 'large', 'xlarge'] as const;
export type DisplayTextSize = (typeof DISPLAY_TEXT_SIZES)[number];

/** Seconds each panel stays on screen. */
export const DEFAULT_ROTATION_S = 30;
export const MIN_ROTATION_S = 5;
export const MAX_ROTATION_S = 3600;

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
export const MAX_DISPLAY_NAME = 100;
