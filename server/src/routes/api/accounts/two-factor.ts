import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { AccountsRepository } from '../../../repositories/accounts.ts';
import type { UserRow } from '../../../repositories/users.ts';
import { newTotpSecret, totpUri, verifyTotp } from '../../../lib/totp.ts';
import { verifyPassword } from '../../../lib/password.ts';
import { ApiError } from '../../../domain/errors.ts';
import { assertValidBody, invalid, MESSAGES } from './validation.ts';

interface VerifyBody {
  token: string;
}

const verifyBody = {
  type: 'object',
  additionalProperties: false,
  required: ['token'],
  properties: { token: { type: 'string', maxLength: 16 } },
} as const;

interface DisableBody {
  token?: string;
  password?: string;
}

const disableBody = {
  type: 'object',
  additionalProperties: false,
  properties: {
    token: { type: 'string', maxLength: 16 },
    password: { type: 'string', maxLength: 1024 },
  },
} as const;

const invalidOtp = () =>
  new ApiError(400, 'invalid_otp', MESSAGES.invalidOtp, { fields: { token: [MESSAGES.invalidOtp] } });

const twoFactor: FastifyPluginAsync<{ repo: AccountsRepository }> = async (app, { repo }) => {
  const auth = { preHandler: app.authenticate };

  /** The code matches the secret stored for the account (pending or active). */
  const codeMatches = (user: UserRow, token: string): boolean => {
    const secret = user.totpSecret ? app.secretBox.open(user.totpSecret) : undefined;
    return secret !== undefined && verifyTotp(secret, token.trim());
  };

  const audit = (request: FastifyRequest, description: string, severity: 'INFO' | 'WARNING') =>
    app.audit.record(request, { eventType: 'two_factor_change', description, severity });

  app.get('/api/accounts/2fa/status/', auth, async (request) => ({ enabled: request.auth!.user.totpEnabled }));

  // Step 1: a new secret, stored sealed but not yet required at sign-in until a code proves the
  // authenticator app holds it (step 2), so a half-finished setup cannot lock the user out.
  app.post('/api/accounts/2fa/enable/', auth, async (request) => {
    const user = request.auth!.user;
    if (user.totpEnabled) {
      throw new ApiError(400, 'already_enabled', 'La double authentification est déjà activée.');
    }
    const secret = newTotpSecret();
    await repo.setTotp(user.id, app.secretBox.seal(secret), false);
    return { otpauth_url: totpUri(secret, user.username), secret, enabled: false };
  });

  app.post<{ Body: VerifyBody }>(
    '/api/accounts/2fa/verify/',
    { ...auth, schema: { body: verifyBody }, attachValidation: true },
    async (request) => {
      assertValidBody(request);
      const user = request.auth!.user;
      await app.limits.hit(request, 'two_factor', user.username);
      if (user.totpEnabled) {
        throw new ApiError(400, 'already_enabled', 'La double authentification est déjà activée.');
      }
      if (!user.totpSecret) {
        throw new ApiError(400, 'not_started', "Activez d'abord la double authentification.");
      }
      if (!codeMatches(user, request.body.token)) throw invalidOtp();
      await repo.setTotp(user.id, user.totpSecret, true);
      app.limits.clear('two_factor', user.username);
      await audit(request, 'Double authentification activée', 'INFO');
      return { enabled: true };
    },
  );

  app.post<{ Body: DisableBody }>(
    '/api/accounts/2fa/disable/',
    { ...auth, schema: { body: disableBody }, attachValidation: true },
    async (request) => {
      // The spec's client may post no body at all: that is "no credential", not a malformed request.
      const body: DisableBody | undefined = request.body;
      if (body !== undefined) assertValidBody(request);
      const user = request.auth!.user;
      const { token, password } = body ?? {};
      if (!token && !password) {
        const message = 'Code de vérification ou mot de passe requis.';
        throw invalid(message, { token: [message], password: [message] });
      }
      await app.limits.hit(request, 'two_factor', user.username);
      if (!user.totpEnabled && !user.totpSecret) {
        throw new ApiError(400, 'not_enabled', "La double authentification n'est pas activée.");
      }
      // Every credential given must be right: a wrong code is not excused by a right password.
      if (token && !codeMatches(user, token)) throw invalidOtp();
      if (password && !(await verifyPassword(password, user.passwordHash))) {
        throw new ApiError(400, 'invalid_password', 'Mot de passe incorrect.', {
          fields: { password: ['Mot de passe incorrect.'] },
        });
      }
      await repo.setTotp(user.id, null, false);
      app.limits.clear('two_factor', user.username);
      // Losing a factor weakens the account: worth a reviewer's attention.
      await audit(request, 'Double authentification désactivée', 'WARNING');
      return { enabled: false };
    },
  );
};

export default twoFactor;
