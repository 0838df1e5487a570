/** spec §3 client audit levels, lowest to highest. */
export const AUDIT_LEVELS = ['debug', 'info', 'warning', 'error', 'critical'] as const;
export type AuditSeverity = (typeof AUDIT_LEVELS)[number];

/** spec §9: events below this level are not recorded. */
export const DEFAULT_MIN_LEVEL: AuditSeverity = 'info';

export function levelRank(level: AuditSeverity): number {
  return AUDIT_LEVELS.indexOf(level);
}

/** spec §3 event types: login, logout, token refresh, permission, tenant switch, route, API and UI events. */
export const AUDIT_EVENT = {
  LOGIN: 'login',
  LOGIN_FAILED: 'login_failed',
  LOGOUT: 'logout',
  TOKEN_REFRESH: 'token_refresh',
  TOKEN_EXPIRED: 'token_expired',
  PERMISSION_CHECK: 'permission_check',
  ACCESS_DENIED: 'access_denied',
  TENANT_SWITCH: 'tenant_switch',
  ROUTE_CHANGE: 'route_change',
  API_REQUEST: 'api_request',
  API_ERROR: 'api_error',
  UI_ACTION: 'ui_action',
} as const;
export type AuditEventType = (typeof AUDIT_EVENT)[keyof typeof AUDIT_EVENT];

/** spec §8: the French descriptions that go with these two types. */
export const AUDIT_DESCRIPTIONS = {
  access_denied: 'Accès refusé à la ressource',
  token_expired: 'Token expiré ou invalide',
} as const satisfies Partial<Record<AuditEventType, string>>;

export type AuditDetails = Record<string, unknown>;

/** The signed-in person and tenant, supplied by the app (null when signed out). */
export interface AuditContext {
  user_id?: number | string;
  username?: string;
  tenant_id?: number | string;
  tenant_name?: string;
}

/** spec §3 client audit event, as stored in IndexedDB and sent to the server. */
export interface AuditEvent {
  /** Random id so the server can drop a duplicate (a beacon whose deletion the dying page could not commit). */
  event_id: string;
  timestamp: string;
  event_type: AuditEventType;
  severity: AuditSeverity;
  details: AuditDetails;
  source: 'frontend';
  url: string;
  user_agent: string;
  user_id?: number | string;
  username?: string;
  tenant_id?: number | string;
  tenant_name?: string;
}
