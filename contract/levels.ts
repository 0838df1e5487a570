/**
 * Levels with the same French words on every screen: the server's log levels, the notification levels (three of
 * them) and the audit trail's severities (the same four, upper case as the API spells them).
 */
export const LOG_LEVELS = ['debug', 'info', 'warning', 'error', 'critical'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export const LOG_LEVEL_LABELS: Record<LogLevel, string> = {
  debug: 'Débogage',
  info: 'Information',
  warning: 'Avertissement',
  error: 'Erreur',
  critical: 'Critique',
};

export const NOTIFICATION_LEVELS = ['info', 'warning', 'critical'] as const;
export type NotificationLevel = (typeof NOTIFICATION_LEVELS)[number];

export const NOTIFICATION_LEVEL_LABELS: Record<NotificationLevel, string> = {
  info: LOG_LEVEL_LABELS.info,
  warning: LOG_LEVEL_LABELS.warning,
  critical: LOG_LEVEL_LABELS.critical,
};

export const AUDIT_SEVERITIES = ['INFO', 'WARNING', 'ERROR', 'CRITICAL'] as const;
export type AuditSeverity = (typeof AUDIT_SEVERITIES)[number];

export const AUDIT_SEVERITY_LABELS: Record<AuditSeverity, string> = {
  INFO: LOG_LEVEL_LABELS.info,
  WARNING: LOG_LEVEL_LABELS.warning,
  ERROR: LOG_LEVEL_LABELS.error,
  CRITICAL: LOG_LEVEL_LABELS.critical,
};
