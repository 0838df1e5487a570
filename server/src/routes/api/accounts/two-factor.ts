import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { signedIn } from '../../../plugins/app/authorization.ts';
import {
  DisableBody,
  disableCredentials,
  RecoveryCodes,
  TwoFactorSetup,
  TwoFactorStatus,
  VerifyBody,
} from '../../../schemas/accounts.ts';
import { replies } from '../../../schemas/common.ts';
import type { UserRow } from '../../../repositories/users.ts';
import type { TwoFactorService } from '../../../services/two-factor.ts';

/**
 * The second factor (TOTP) of the caller's own account: status, setup in two steps (the second answers the recovery
 * codes, shown once), a new set of recovery codes, and turning it off.
 */
const twoFactor: FastifyPluginAsyncTypebox<{ service: TwoFactorService }> = async (app, { service }) => {
  const auth = { preValidation: [app.authenticate] };
  const tags = ['Comptes — double authentification'];
  const audit = (request: FastifyRequest, description: string, severity: 'INFO' | 'WARNING') =>
    app.audit.record(request, { eventType: 'two_factor_change', description, severity });
  /** A step proven by a code or the password counts against the account's 2FA budget until it succeeds. */
  const proving = async <T>(request: FastifyRequest, step: (user: UserRow) => Promise<T>): Promise<T> => {
    const user = signedIn(request).user;
    await app.limits.hit(request, 'two_factor', user.username);
    const result = await step(user);
    await app.limits.clear('two_factor', user.username);
    return result;
  };

  app.get(
    '/api/accounts/2fa/status/',
    { ...auth, schema: { tags, response: replies.signedIn({ 200: TwoFactorStatus }) } },
    async (request) => service.status(signedIn(request).user),
  );

  app.post(
    '/api/accounts/2fa/enable/',
    { ...auth, schema: { tags, response: replies.signedIn({ 200: TwoFactorSetup }, 400) } },
    async (request) => service.start(signedIn(request).user),
  );

  app.post(
    '/api/accounts/2fa/verify/',
    { ...auth, schema: { tags, body: VerifyBody, response: replies.signedIn({ 200: RecoveryCodes }, 400, 429) } },
    async (request) => {
      const codes = await proving(request, (user) => service.confirm(user, request.body.token));
      await audit(request, 'Double authentification activée', 'INFO');
      return { enabled: true as const, recovery_codes: codes };
    },
  );

  app.post(
    '/api/accounts/2fa/recovery-codes/',
    { ...auth, schema: { tags, body: DisableBody, response: replies.signedIn({ 200: RecoveryCodes }, 400, 429) } },
    async (request) => {
      const credentials = disableCredentials(request.body);
      const codes = await proving(request, (user) => service.regenerate(user, credentials));
      await audit(request, 'Nouveaux codes de secours de double authentification', 'INFO');
      return { enabled: true as const, recovery_codes: codes };
    },
  );

  app.post(
    '/api/accounts/2fa/disable/',
    { ...auth, schema: { tags, body: DisableBody, response: replies.signedIn({ 200: TwoFactorStatus }, 400, 429) } },
    async (request) => {
      const credentials = disableCredentials(request.body);
      await proving(request, (user) => service.disable(user, credentials));
      // Losing a factor weakens the account: worth a reviewer's attention.
      await audit(request, 'Double authentification désactivée', 'WARNING');
      return { enabled: false };
    },
  );
};

export default twoFactor;
