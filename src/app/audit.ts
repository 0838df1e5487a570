import { apiRequest, type DeviceCredentials } from '../lib/api-client.ts';
import { setAuditLogSink } from '../lib/audit-log.ts';
import { AuditBuffer, AUDIT_EVENT } from '../features/audit/audit-buffer.ts';
import { currentTenantId, onAuthChange, onBeforeLogout, session, setAuditSink } from '../lib/auth/session.ts';

/** A paired wall screen's credential while its wall runs (docs/displays.md): its events go to its tenant's trail. */
let device: (() => DeviceCredentials) | null = null;

/** The wall screen sends its events with its own credential from now on (null: anonymously again). */
export function auditAsDevice(credentials: (() => DeviceCredentials) | null): void {
  device = credentials;
}

/** The one client audit buffer, wired to the session and the API client. */
export const audit = new AuditBuffer({
  // Configurable for backends that collect client events elsewhere; ours listens on the default.
  ...(import.meta.env.VITE_AUDIT_URL ? { endpoint: import.meta.env.VITE_AUDIT_URL as string } : {}),
  send: (events, { endpoint, token }) =>
    apiRequest(endpoint, {
      method: 'POST',
      body: { events },
      ...(token ? { token } : device ? { device: device() } : { anonymous: true }),
    }),
  getToken: () => session.value?.tokens.access_token,
  getContext: () => {
    const profile = session.value?.profile;
    if (!profile) return null;
    const tenantId = currentTenantId();
    const tenant = profile.tenants?.find((x) => x.id === tenantId) ?? profile.current_tenant ?? undefined;
    return {
      user_id: profile.id,
      username: profile.username,
      ...(tenant ? { tenant_id: tenant.id, tenant_name: tenant.name } : {}),
    };
  },
});

/**
 * Connects the features' audit trail (`src/lib/audit-log.ts`: route, permission, UI, sign-in and API events) to a
 * buffer, the app's own by default. Returns the disconnector.
 */
export function connectAuditLog(buffer: AuditBuffer = audit): () => void {
  return setAuditLogSink((eventType, details, severity) => {
    void buffer.log(eventType, details, severity);
  });
}

export function startAudit(): void {
  setAuditSink((eventType, details, severity) => {
    void audit.log(eventType as Parameters<AuditBuffer['log']>[0], details, severity);
  });
  connectAuditLog();
  onAuthChange((authenticated) => {
    if (authenticated) void audit.log(AUDIT_EVENT.LOGIN, {});
  });
  onBeforeLogout(async () => {
    await audit.log(AUDIT_EVENT.LOGOUT, {});
    await audit.flush();
    // Nothing of this user stays on a shared screen.
    await audit.clear();
  });
  audit.start();
}
