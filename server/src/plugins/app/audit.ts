import fp from 'fastify-plugin';
import Bowser from 'bowser';
import type { FastifyRequest } from 'fastify';
import { auditEvents, type AuditSeverity } from '../../db/schema.ts';

/** Server audit event types (spec §3), plus the security events the identity layer records. */
export type AuditEventType =
  | 'user_login'
  | 'user_logout'
  | 'login_failed'
  | 'configuration_change'
  // A change to tenant data (projects and their content).
  | 'data_change'
  | 'sensitive_data_access'
  | 'vulnerability_scan'
  | 'refresh_token_reuse'
  | 'permission_denied'
  | 'password_change'
  | 'password_reset'
  | 'two_factor_change'
  | 'user_created'
  | 'user_updated'
  | 'user_deleted';

export interface AuditInput {
  eventType: AuditEventType;
  description: string;
  severity?: AuditSeverity;
  success?: boolean;
  /** Defaults to the request's current tenant; null for platform events that belong to no tenant. */
  tenantId?: string | null;
  userId?: number | null;
  username?: string | null;
  extra?: Record<string, unknown>;
}

export interface AuditLog {
  record(request: FastifyRequest, input: AuditInput): Promise<void>;
}

declare module 'fastify' {
  interface FastifyInstance {
    audit: AuditLog;
  }
}

export function describeUserAgent(ua: string | undefined): { browser: string; os: string } {
  if (!ua) return { browser: 'inconnu', os: 'inconnu' };
  const parsed = Bowser.parse(ua);
  const browser = [parsed.browser.name, parsed.browser.version?.split('.')[0]].filter(Boolean).join(' ');
  const os = [parsed.os.name, parsed.os.versionName ?? parsed.os.version].filter(Boolean).join(' ');
  return { browser: browser || 'inconnu', os: os || 'inconnu' };
}

/**
 * Writes server audit events with the platform connection (they must land even when the request has no
 * tenant yet, e.g. a failed sign-in). Never stores secrets: callers pass descriptions, not payloads.
 */
export default fp(
  async (app) => {
    app.decorate('audit', {
      async record(request, input) {
        const auth = request.auth;
        const tenantId = input.tenantId !== undefined ? input.tenantId : (auth?.tenant?.id ?? null);
        try {
          await app.database.db.insert(auditEvents).values({
            tenantId,
            eventType: input.eventType,
            userId: input.userId !== undefined ? input.userId : (auth?.user.id ?? null),
            username: input.username !== undefined ? input.username : (auth?.user.username ?? null),
            ipAddress: request.ip,
            description: input.description,
            severity: input.severity ?? 'INFO',
            source: 'server',
            details: {
              ...describeUserAgent(request.headers['user-agent']),
              success: input.success ?? true,
              ...input.extra,
            },
          });
        } catch (err) {
          // Losing an audit line must not turn a user's action into a 500; it is logged instead.
          request.log.error({ err, eventType: input.eventType }, 'audit write failed');
        }
      },
    } satisfies AuditLog);
  },
  { name: 'audit', dependencies: ['database'] },
);
