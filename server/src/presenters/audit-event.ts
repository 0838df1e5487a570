import type { AuditEventRow } from '../repositories/audit-events.ts';
import { AUDIT_SEVERITIES } from '../../../contract/levels.ts';
import { AnyObject, Choice, Nullable, Type, type Static } from '../schemas/common.ts';
import { isoTime, storedObject } from './stored.ts';
import { csvLine } from './vulnerability.ts';

// Keys whose values never leave the server, even if a client put them into an event's details.
const SECRET_KEY = /pass(word)?|secret|token|otp|authorization|cookie|api[_-]?key|private[_-]?key|credential/i;
const MAX_DEPTH = 8;

function redact(value: unknown, depth = 0): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_DEPTH) return '[…]';
  if (Array.isArray(value)) return value.map((v) => redact(v, depth + 1));
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [k, SECRET_KEY.test(k) ? '[masqué]' : redact(v, depth + 1)]),
  );
}

/** AuditEvent (docs/api-audit.md § Event) on the wire: the reply schema and the presenter list the same fields. */
export const AuditEventSchema = Type.Object(
  {
    id: Type.Integer(),
    timestamp: Type.String({ format: 'date-time' }),
    event_type: Type.String(),
    user: Nullable(Type.String()),
    ip_address: Nullable(Type.String()),
    description: Type.String(),
    severity: Choice(AUDIT_SEVERITIES),
    tenant_id: Nullable(Type.String()),
    details: Type.Object({
      browser: Nullable(Type.String()),
      os: Nullable(Type.String()),
      success: Type.Boolean(),
    }),
    source: Choice(['server', 'frontend']),
    extra: AnyObject,
  },
  { title: 'AuditEvent', description: 'Un événement du journal d’audit' },
);
export type AuditEvent = Static<typeof AuditEventSchema>;

/** AuditEvent (docs/api-audit.md § Event): exactly these fields leave the server. */
export function presentAuditEvent(e: AuditEventRow): AuditEvent {
  const { browser, os, success, ...extra } = storedObject(e.details);
  return {
    id: e.id,
    timestamp: isoTime(e.timestamp),
    event_type: e.eventType,
    user: e.username,
    ip_address: e.ipAddress,
    description: e.description,
    severity: e.severity,
    tenant_id: e.tenantId,
    details: {
      browser: typeof browser === 'string' ? browser : null,
      os: typeof os === 'string' ? os : null,
      success: success !== false,
    },
    source: e.source === 'frontend' ? ('frontend' as const) : ('server' as const),
    extra: redact(extra) as Record<string, unknown>,
  };
}

/** The CSV export's columns, in order; `extra` is its JSON text. */
export const AUDIT_CSV_COLUMNS = [
  'id',
  'timestamp',
  'event_type',
  'user',
  'ip_address',
  'severity',
  'source',
  'tenant_id',
  'browser',
  'os',
  'success',
  'description',
  'extra',
] as const;

export const AUDIT_CSV_HEADERS: Record<(typeof AUDIT_CSV_COLUMNS)[number], string> = {
  id: 'Identifiant',
  timestamp: 'Date',
  event_type: 'Type d’événement',
  user: 'Utilisateur',
  ip_address: 'Adresse IP',
  severity: 'Gravité',
  source: 'Origine',
  tenant_id: 'Organisation',
  browser: 'Navigateur',
  os: 'Système',
  success: 'Réussi',
  description: 'Description',
  extra: 'Détails (JSON)',
};

export function auditCsvLine(event: AuditEvent): string {
  return csvLine([
    event.id,
    event.timestamp,
    event.event_type,
    event.user,
    event.ip_address,
    event.severity,
    event.source,
    event.tenant_id,
    event.details.browser,
    event.details.os,
    event.details.success,
    event.description,
    JSON.stringify(event.extra),
  ]);
}
