import fp from 'fastify-plugin';
import type { FastifyRequest } from 'fastify';
import type { Db } from '../../db/client.ts';
import { SecurityPolicyStore, twoFactorSetupRequired } from '../../services/security-policies.ts';
import { LoginLockout } from '../../services/login-lockout.ts';
import { ApiError } from '../../domain/errors.ts';

declare module 'fastify' {
  interface FastifyInstance {
    securityPolicies: SecurityPolicyStore;
    lockout: LoginLockout;
  }
}

export const TWO_FACTOR_SETUP_MESSAGE = 'Authentification à deux facteurs obligatoire : configurez-la pour continuer.';

// While the policy demands a second factor the account lacks, only these stay open: the profile, setting up
// 2FA, the password and the client audit buffer (sign-out and refresh do not go through authentication).
const OPEN_DURING_TWO_FACTOR_SETUP = [
  /^\/api\/(users\/me|current-user|tenants\/user-data)(\/|$)/,
  /^\/api\/accounts\/(me|2fa|password)(\/|$)/,
  /^\/api\/audit\/events(\/|$)/,
];

/**
 * The per-request 2FA gate, called by authentication once the account and its memberships are known:
 * 403 two_factor_setup_required on every other path. Read at each request, so a policy change (or the
 * account enabling TOTP) applies to existing sessions at once.
 */
export function twoFactorGate(db: Db) {
  const store = SecurityPolicyStore.of(db);
  return async (
    request: FastifyRequest,
    user: { isSuperuser: boolean; isStaff: boolean; totpEnabled: boolean },
    memberships: readonly { role: string }[],
  ): Promise<void> => {
    const path = request.routeOptions.url ?? request.url.split('?')[0] ?? '';
    if (OPEN_DURING_TWO_FACTOR_SETUP.some((re) => re.test(path))) return;
    if (!twoFactorSetupRequired(await store.cached(), user, memberships)) return;
    throw new ApiError(403, 'two_factor_setup_required', TWO_FACTOR_SETUP_MESSAGE, {
      two_factor_setup_required: true,
    });
  };
}

/** The security policy store and the sign-in lock-out counter, shared by the identity routes. */
export default fp(
  async (app) => {
    app.decorate('securityPolicies', SecurityPolicyStore.of(app.database.db));
    app.decorate('lockout', new LoginLockout(app.database.db));
  },
  { name: 'security-policies', dependencies: ['database'] },
);
