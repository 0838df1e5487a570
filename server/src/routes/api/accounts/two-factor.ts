import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AccountsRepository } from '../../../repositories/accounts.ts';
import type { UserRow } from '../../../repositories/users.ts';
import { newTotpSecret, totpUri, verifyTotp } from '../../../lib/totp.ts';
import { verifyPassword } from '../../../lib/password.ts';
import { ApiError } from '../../../domain/errors.ts';
import { signedIn } from '../../../plugins/app/authorization.ts';
import { Nullable, replies, Type } from '../../../schemas/common.ts';
import { Body, invalid, MESSAGES, Text } from './validation.ts';

const VerifyBody = Body({ token: Text(16) });
// The spec's client may post no body at all: that is "no credential", not a malformed request.
const DisableBody = Nullable(Body({ token: Type.Optional(Text(16)), password: Type.Optional(Text(1024)) }));
const Status = Type.Object(
  { enabled: Type.Boolean() },
  { description: 'La double authentification est-elle active ?' },
);
const Setup = Type.Object(
  {
    otpauth_url: Type.String({ description: 'otpauth:// à montrer en QR code' }),
    secret: Type.String({ description: 'Le secret en base32, à saisir à la main' }),
    enabled: Type.Literal(false),
  },
  { description: 'Le secret à enregistrer dans l’application d’authentification' },
);

const invalidOtp = () =>
  new ApiError(400, 'invalid_otp', MESSAGES.invalidOtp, { fields: { token: [MESSAGES.invalidOtp] } });
const alreadyEnabled = () => new ApiError(400, 'already_enabled', 'La double authentification est déjà activée.');

/** The second factor (TOTP) of the caller's own account: status, setup in two steps, and turning it off. */
const twoFactor: FastifyPluginAsyncTypebox<{ repo: AccountsRepository }> = async (app, { repo }) => {
  const auth = { preValidation: [app.authenticate] };
  const tags = ['Comptes — double authentification'];

  /** The code matches the secret stored for the account (pending or active). */
  const codeMatches = (user: UserRow, token: string): boolean => {
    const secret = user.totpSecret ? app.secretBox.open(user.totpSecret) : undefined;
    return secret !== undefined && verifyTotp(secret, token.trim());
  };

  const audit = (request: FastifyRequest, description: string, severity: 'INFO' | 'WARNING') =>
    app.audit.record(request, { eventType: 'two_factor_change', description, severity });

  app.get(
    '/api/accounts/2fa/status/',
    { ...auth, schema: { tags, response: replies.signedIn({ 200: Status }) } },
    async (request) => ({ enabled: signedIn(request).user.totpEnabled }),
  );

  // Step 1: a new secret, stored sealed but not yet required at sign-in until a code proves the
  // authenticator app holds it (step 2), so a half-finished setup cannot lock the user out.
  app.post(
    '/api/accounts/2fa/enable/',
    { ...auth, schema: { tags, response: replies.signedIn({ 200: Setup }, 400) } },
    async (request) => {
      const user = signedIn(request).user;
      if (user.totpEnabled) throw alreadyEnabled();
      const secret = newTotpSecret();
      await repo.setTotp(user.id, app.secretBox.seal(secret), false);
      return { otpauth_url: totpUri(secret, user.username), secret, enabled: false as const };
    },
  );

  app.post(
    '/api/accounts/2fa/verify/',
    { ...auth, schema: { tags, body: VerifyBody, response: replies.signedIn({ 200: Status }, 400, 429) } },
    async (request) => {
      const user = signedIn(request).user;
      await app.limits.hit(request, 'two_factor', user.username);
      if (user.totpEnabled) throw alreadyEnabled();
      if (!user.totpSecret) throw new ApiError(400, 'not_started', "Activez d'abord la double authentification.");
      if (!codeMatches(user, request.body.token)) throw invalidOtp();
      await repo.setTotp(user.id, user.totpSecret, true);
      app.limits.clear('two_factor', user.username);
      await audit(request, 'Double authentification activée', 'INFO');
      return { enabled: true };
    },
  );

  app.post(
    '/api/accounts/2fa/disable/',
    { ...auth, schema: { tags, body: DisableBody, response: replies.signedIn({ 200: Status }, 400, 429) } },
    async (request) => {
      const user = signedIn(request).user;
      const { token, password } = request.body ?? {};
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
