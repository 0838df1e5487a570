/**
 * The client audit trail as features see it (spec §3): a few recording functions and no dependency. The app connects
 * them to the audit buffer (`src/app/audit.ts`), so features never import the app or the audit feature.
 */

/** The spec §3 event types features and the app record through this module. */
export type AuditLogEventType = 'route_change' | 'permission_check' | 'api_error' | 'ui_action' | 'login_failed';

/** spec §3 levels. spec §9: the buffer drops anything below info, so nothing here records at debug. */
export type AuditLogSeverity = 'info' | 'warning' | 'error' | 'critical';

export type AuditLogSink = (
  eventType: AuditLogEventType,
  details: Record<string, unknown>,
  severity: AuditLogSeverity,
) => void;

interface PendingEvent {
  eventType: AuditLogEventType;
  details: Record<string, unknown>;
  severity: AuditLogSeverity;
}

/** Events recorded before the app connected the buffer wait here (the oldest go first past this many). */
export const MAX_PENDING_EVENTS = 50;

let sink: AuditLogSink | null = null;
let pending: PendingEvent[] = [];

/**
 * Connects the trail to the audit buffer; the events recorded while nothing was connected are handed over first.
 * `null` disconnects (and forgets what waits). Returns the disconnector.
 */
export function setAuditLogSink(next: AuditLogSink | null): () => void {
  sink = next;
  if (!next) {
    pending = [];
    return () => {};
  }
  const waiting = pending;
  pending = [];
  for (const e of waiting) deliver(next, e);
  return () => {
    if (sink === next) sink = null;
  };
}

function deliver(target: AuditLogSink, event: PendingEvent): void {
  try {
    target(event.eventType, event.details, event.severity);
  } catch (err) {
    // Auditing must never break the action it records.
    console.warn('[audit] event not recorded', err);
  }
}

/** Records one event; never throws. */
export function recordAuditEvent(
  eventType: AuditLogEventType,
  details: Record<string, unknown> = {},
  severity: AuditLogSeverity = 'info',
): void {
  const event = { eventType, details, severity };
  if (sink) {
    deliver(sink, event);
    return;
  }
  pending.push(event);
  if (pending.length > MAX_PENDING_EVENTS) pending.shift();
}

/** A meaningful user action (spec §3 UI event): `action` names it, `details` says on what. */
export function recordUiAction(action: string, details: Record<string, unknown> = {}): void {
  recordAuditEvent('ui_action', { action, ...details }, 'info');
}

/** A refused sign-in (warning): the account name and why, never the password nor the code. */
export function recordLoginFailed(username: string, details: { reason: string; status?: number }): void {
  recordAuditEvent('login_failed', { username, ...details }, 'warning');
}

/** A path without its query string or fragment, which may carry secrets (a reset token, a code). */
export function pathOnly(url: string): string {
  const cut = url.search(/[?#]/);
  return cut === -1 ? url : url.slice(0, cut);
}

function currentPath(): string {
  return typeof location === 'undefined' ? '' : location.pathname;
}

/** The screen being visited and the permission checks already recorded during this visit. */
let visit: { path: string; seen: Set<string> } = { path: '', seen: new Set() };

/**
 * A new screen visit starts at `path` (the route watcher calls this on each navigation). A permission check
 * records at most once per visit; coming back to a screen later is a new visit.
 */
export function startScreenVisit(path: string = currentPath()): void {
  const clean = pathOnly(path);
  if (clean !== visit.path) visit = { path: clean, seen: new Set() };
}

/**
 * A screen hides or refuses something because of a role: records `permission_check` (info) with the permission
 * and its result, at most once per screen visit for each permission and result.
 */
export function recordPermissionCheck(
  permission: string,
  granted: boolean,
  details: Record<string, unknown> = {},
): void {
  // A check made while rendering the next screen, before the route watcher ran, belongs to that screen.
  startScreenVisit();
  const key = `${permission}\u0000${granted ? 1 : 0}`;
  if (visit.seen.has(key)) return;
  visit.seen.add(key);
  recordAuditEvent(
    'permission_check',
    { permission, result: granted ? 'granted' : 'denied', ...details, path: visit.path },
    'info',
  );
}
