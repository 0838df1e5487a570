import fp from 'fastify-plugin';
import cookie from '@fastify/cookie';
import { timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { TokenError, type AccessClaims, type TokenService } from '../../lib/tokens.ts';
import { UsersRepository, type MembershipView, type UserRow } from '../../repositories/users.ts';
import { ConnectionHolds } from '../../services/connection-holds.ts';
import { withTenant, type TenantDb, type TenantId } from '../../db/tenant-scope.ts';
import type { Actor } from '../../policies/index.ts';
import { DISPLAY_FORBIDDEN_MESSAGE, FORBIDDEN_MESSAGE } from '../../policies/index.ts';
import { ApiError, ClientGone } from '../../domain/errors.ts';
import { twoFactorGate } from './security-policies.ts';
import { isUuid } from '../../lib/uuid.ts';
import { keptSignInOf, type KeptSignIn, type KeptSignInMode } from '../../services/kept-sign-in.ts';
import { INBOX_CHANNEL, SIGNED_IN_CHANNEL, WRITES_CHANNEL } from '../../domain/change-channels.ts';

export const ACCESS_COOKIE = 'vigie_access';
export const CSRF_COOKIE = 'csrftoken';
export const CSRF_HEADER = 'x-csrftoken';

export interface AuthContext {
  user: UserRow;
  claims: AccessClaims;
  memberships: MembershipView[];
  /** The current tenant (X-Tenant-ID, else the default tenant), or null for an account with none. */
  tenant: { id: TenantId; name: string } | null;
  actor: Actor;
  via: 'header' | 'cookie';
  /**
   * The data versions read at authentication (migration 0019): the current tenant's (undefined when the tenant is
   * not one of the user's memberships: a superuser elsewhere) and the platform's.
   */
  versions: { tenant: number | undefined; platform: number };
}

/**
 * A paired wall screen presenting its credential (`Authorization: Display …`, plugins/app/display-devices.ts). Never
 * a person: `request.auth` stays null for it, so every route that asks `signedIn` refuses it; the few kiosk reads it
 * may call read its tenant through `currentTenant` and `request.tenantDb`.
 */
export interface DisplayContext {
  id: string;
  /** The digest of the credential presented, and whether it is the one a renewal replaced (still in its grace). */
  credential: { digest: string; viaPrevious: boolean; issuedAt: Date | null };
  /** Its tenants that are live, in its order. */
  tenants: { id: TenantId; name: string }[];
  /** This request's tenant: X-Tenant-ID when it is one of them, else the first; null when none is live. */
  tenant: { id: TenantId; name: string } | null;
}

/** The one refusal of a display outside its reads. */
export const displayRefused = () => new ApiError(403, 'display_forbidden', DISPLAY_FORBIDDEN_MESSAGE);

/** Which statement timeout a route's tenant transactions get (config.ts StatementTimeouts). */
export type StatementClass = 'read' | 'write' | 'export' | 'import';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Default: read for GET and HEAD, write otherwise; streamed exports say 'export', bulk changes 'import'. */
    statementClass?: StatementClass;
  }
  interface FastifyInstance {
    tokens: TokenService;
    /** How long each route held a connection in its tenant transactions (services/connection-holds.ts). */
    connectionHolds: ConnectionHolds;
    /** Signed-in states and data versions kept in this process (services/kept-sign-in.ts). */
    keptSignIn: KeptSignIn;
    /** preHandler: 401 unless a valid access token is presented; sets request.auth. */
    authenticate: (request: FastifyRequest) => Promise<void>;
  }
  interface FastifyRequest {
    auth: AuthContext | null;
    /** The wall screen making this request, if one is (then `auth` is null). */
    display: DisplayContext | null;
    /**
     * Runs fn in a transaction confined to the current tenant by row-level security, its statements bounded by the
     * route's statement class.
     */
    tenantDb<T>(fn: (tx: TenantDb) => Promise<T>): Promise<T>;
  }
}

/** Accepts the two authorization styles the clients use: "Bearer <jwt>" and "Token <jwt>". */
export function readAuthorization(header: string | undefined): string | undefined {
  const match = /^(?:Bearer|Token)\s+(\S+)$/i.exec(header ?? '');
  return match?.[1];
}

const UNSAFE = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

const isRead = (request: FastifyRequest) => request.method === 'GET' || request.method === 'HEAD';

export function statementClassOf(request: FastifyRequest): StatementClass {
  return request.routeOptions.config.statementClass ?? (isRead(request) ? 'read' : 'write');
}

/**
 * A read whose client closed its connection before the answer: nobody will see it, so it stops before any database
 * work. After a burst, the requests the crowd left behind then cost almost nothing and full service comes back at
 * once. Writes go on: their client may retry, but what it sent is kept.
 */
function abandoned(request: FastifyRequest): boolean {
  return isRead(request) && request.raw.socket?.destroyed === true;
}

/** A cookie-authenticated write must echo the csrftoken cookie in X-CSRFToken (double submit). */
export function assertCsrf(request: FastifyRequest): void {
  if (!UNSAFE.has(request.method)) return;
  const header = request.headers[CSRF_HEADER];
  const cookieValue = request.cookies[CSRF_COOKIE];
  if (typeof header !== 'string' || !cookieValue || !sameSecret(header, cookieValue)) {
    throw new ApiError(403, 'csrf_failed', 'Jeton CSRF manquant ou invalide.');
  }
}

export default fp<{ tokens: TokenService; keptSignIn: KeptSignInMode | KeptSignIn }>(
  async (app, { tokens, keptSignIn }) => {
    await app.register(cookie);
    const users = new UsersRepository(app.database.db);
    const kept = typeof keptSignIn === 'string' ? keptSignInOf(app.database, keptSignIn) : keptSignIn;
    app.decorate('keptSignIn', kept);
    if (kept.mode !== 'off') {
      const stops = [
        await app.database.listen(SIGNED_IN_CHANNEL, (payload) => kept.heardSignedIn(payload)),
        await app.database.listen(WRITES_CHANNEL, (payload) => kept.heardWrites(payload)),
        await app.database.listen(INBOX_CHANNEL, (payload) => kept.heardInbox(payload)),
      ];
      app.database.onListening((on) => kept.listening(on));
      kept.listening(true);
      app.addHook('onClose', async () => {
        kept.listening(false);
        for (const stop of stops) await stop();
      });
      // A write (a logout, a role change, a finding) answers once this process heard it: the next read here shows
      // it. Another process hears it within milliseconds.
      app.addHook('onSend', async (request) => {
        if (!isRead(request)) await kept.settle((marker) => app.database.notify(SIGNED_IN_CHANNEL, marker));
      });
    }
    const requireTwoFactorReady = twoFactorGate(app.database.db);
    app.decorate('tokens', tokens);
    const holds = new ConnectionHolds();
    app.decorate('connectionHolds', holds);
    app.decorateRequest('auth', null);
    app.decorateRequest('display', null);
    app.decorateRequest('tenantDb', function <T>(this: FastifyRequest, fn: (tx: TenantDb) => Promise<T>): Promise<T> {
      // A person's current tenant, or a wall screen's (one of its tenants, checked at its recognition).
      const tenant = this.auth?.tenant ?? this.display?.tenant;
      if (!tenant) return Promise.reject(new ApiError(403, 'no_tenant', FORBIDDEN_MESSAGE));
      if (abandoned(this)) return Promise.reject(new ClientGone());
      const timeouts = app.database.statementTimeouts;
      const route = `${this.method} ${this.routeOptions.url ?? '?'}`;
      return withTenant(
        app.database.db,
        tenant.id,
        async (tx) => {
          // A read waits its turn for a connection; its client may have left meanwhile (a burst's end).
          if (abandoned(this)) throw new ClientGone();
          // Held from here (BEGIN and the tenant's settings sent) to the COMMIT: what the crowd bench reads per route.
          const t0 = performance.now();
          try {
            return await fn(tx);
          } finally {
            holds.record(route, performance.now() - t0);
          }
        },
        timeouts[statementClassOf(this)],
      );
    });

    app.decorate('authenticate', async (request: FastifyRequest) => {
      // A wall screen was recognised, and held to its reads, before any route hook (display-devices.ts); it is no
      // person, so it gets no `auth`, and a cookie sent along with its credential is not looked at.
      if (request.display) return;
      const headerToken = readAuthorization(request.headers.authorization);
      const cookieToken = request.cookies[ACCESS_COOKIE];
      const token = headerToken ?? cookieToken;
      if (!token) throw new ApiError(401, 'not_authenticated', "Informations d'authentification non fournies.");
      const via = headerToken ? 'header' : 'cookie';
      if (via === 'cookie') assertCsrf(request);

      if (abandoned(request)) throw new ClientGone();
      let claims: AccessClaims;
      try {
        claims = await tokens.verifyAccess(token);
      } catch (err) {
        if (err instanceof TokenError) throw new ApiError(401, 'token_not_valid', 'Token expiré ou invalide');
        throw err;
      }
      // The token only names the user; activity, flags and memberships are read fresh on every call.
      // An access token dies with its session: logout or a password reset take effect at once, not in an hour.
      const state = await kept.state(Number(claims.sub), claims.sid);
      if (!state || !state.user.isActive || state.revoked) {
        throw new ApiError(401, 'token_not_valid', 'Token expiré ou invalide');
      }
      const { user, memberships, versions } = state;
      // Security policy: an account that must use 2FA and has not set it up may only set it up.
      await requireTwoFactorReady(request, user, memberships);

      const requested = request.headers['x-tenant-id'];
      let tenant: AuthContext['tenant'] = null;
      if (typeof requested === 'string' && requested !== '') {
        const member = isUuid(requested) ? memberships.find((m) => m.tenantId === requested) : undefined;
        const other =
          !member && user.isSuperuser && isUuid(requested) ? await users.activeTenant(requested) : undefined;
        if (!member && !other) {
          // Probing other tenants' ids is worth knowing about.
          request.auth = null;
          await app.audit.record(request, {
            eventType: 'permission_denied',
            description: 'Accès refusé à une organisation dont l’utilisateur n’est pas membre',
            severity: 'WARNING',
            success: false,
            tenantId: user.defaultTenantId,
            userId: user.id,
            username: user.username,
            extra: { requested_tenant: requested.slice(0, 64) },
          });
          throw new ApiError(403, 'tenant_forbidden', FORBIDDEN_MESSAGE);
        }
        tenant = member
          ? { id: member.tenantId as TenantId, name: member.tenantName }
          : { id: other!.id as TenantId, name: other!.name };
      } else {
        const m = memberships.find((x) => x.tenantId === user.defaultTenantId) ?? memberships[0];
        if (m) tenant = { id: m.tenantId as TenantId, name: m.tenantName };
      }
      const role = memberships.find((m) => m.tenantId === tenant?.id)?.role ?? null;
      request.auth = {
        user,
        claims,
        memberships,
        tenant,
        via,
        versions: { tenant: tenant ? versions.tenants.get(tenant.id) : undefined, platform: versions.platform },
        actor: {
          userId: user.id,
          username: user.username,
          isSuperuser: user.isSuperuser,
          isStaff: user.isStaff,
          tenantRole: role,
        },
      };
    });
  },
  { name: 'authentication', dependencies: ['database', 'audit'] },
);
