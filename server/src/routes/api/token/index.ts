import { randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { presentProfile } from '../../../presenters/user.ts';
import { ACCESS_TOKEN_TTL_S } from '../../../lib/tokens.ts';
import { ACCESS_COOKIE, assertCsrf, CSRF_COOKIE, readAuthorization } from '../../../plugins/app/authentication.ts';
import { replies } from '../../../schemas/common.ts';
import {
  LoggedOut,
  loginOf,
  LogoutBody,
  presentedRefresh,
  RefreshBody,
  SignedIn,
  TokenBody,
  TokenPair,
} from '../../../schemas/token.ts';
import type { IssuedTokens } from '../../../services/sessions.ts';
import { SignInService } from '../../../services/sign-in.ts';

/**
 * The access token also travels as an HttpOnly cookie so that sendBeacon (which cannot set headers)
 * is authenticated; the readable csrftoken cookie is the double-submit secret for cookie writes. The tokens
 * are never stored by caches.
 */
function sendTokens(request: FastifyRequest, reply: FastifyReply, { access, refresh, expires_in }: IssuedTokens) {
  const secure = request.protocol === 'https';
  reply.setCookie(ACCESS_COOKIE, access, {
    path: '/api',
    httpOnly: true,
    sameSite: 'strict',
    secure,
    maxAge: ACCESS_TOKEN_TTL_S,
  });
  const csrf = request.cookies[CSRF_COOKIE] ?? randomBytes(24).toString('base64url');
  reply.setCookie(CSRF_COOKIE, csrf, { path: '/', httpOnly: false, sameSite: 'lax', secure, maxAge: 7 * 24 * 3600 });
  reply.header('Cache-Control', 'no-store');
  return { access, refresh, expires_in };
}

/** Sign-in, refresh and sign-out (spec §7): tokens in the body, the access token also as an HttpOnly cookie. */
const token: FastifyPluginAsyncTypebox = async (app) => {
  const signIn = new SignInService(app.database.db, app.tokens, app.lockout, app.secretBox);
  const tags = ['Authentification'];

  app.post(
    '/api/token/',
    { schema: { tags, body: TokenBody, response: replies({ 200: SignedIn }, 400, 403, 429) } },
    async (request, reply) => {
      const login = loginOf(request.body);
      await app.limits.hit(request, 'login', login);
      // Read at each sign-in: a policy change applies to the next attempt.
      const policy = await app.securityPolicies.get();
      const { password, otp } = request.body;
      // A refusal is in the trail under the login that was tried.
      const account = await signIn.verify(
        login,
        password,
        otp,
        policy,
        ({ user, ...entry }) =>
          app.audit.record(request, {
            eventType: 'login_failed',
            success: false,
            tenantId: user?.defaultTenantId ?? null,
            userId: user?.id ?? null,
            username: login.slice(0, 150),
            ...entry,
          }),
        // A spent recovery code is worth a reviewer's eye: the authenticator may be lost.
        (user, left) =>
          app.audit.record(request, {
            eventType: 'two_factor_change',
            description: `Code de secours utilisé à la connexion (${left} restant${left === 1 ? '' : 's'})`,
            severity: 'WARNING',
            tenantId: user.defaultTenantId ?? null,
            userId: user.id,
            username: user.username,
          }),
      );
      await app.limits.clear('login', login);
      const session = await signIn.open(account, policy);
      await app.audit.record(request, {
        eventType: 'user_login',
        description: session.setupRequired ? 'Connexion réussie (configuration 2FA obligatoire)' : 'Connexion réussie',
        tenantId: session.tenantId,
        userId: account.id,
        username: account.username,
        ...(session.setupRequired ? { extra: { two_factor_setup_required: true } } : {}),
      });
      return {
        ...sendTokens(request, reply, session.tokens),
        two_factor_setup_required: session.setupRequired,
        user: presentProfile(session.user, session.memberships),
      };
    },
  );

  app.post(
    '/api/token/refresh/',
    { schema: { tags, body: RefreshBody, response: replies({ 200: TokenPair }, 400, 401) } },
    async (request, reply) => {
      const presented = presentedRefresh(request.body);
      const lifetimeS = (await app.securityPolicies.get()).sessionLifetimeMinutes * 60;
      const tokens = await signIn.refresh(presented, lifetimeS, ({ userId, tenantId, familyId }) =>
        app.audit.record(request, {
          eventType: 'refresh_token_reuse',
          description: 'Réutilisation d’un jeton de rafraîchissement : session révoquée',
          severity: 'CRITICAL',
          success: false,
          tenantId,
          userId,
          username: null,
          extra: { family: familyId },
        }),
      );
      return sendTokens(request, reply, tokens);
    },
  );

  // The three logout paths of spec §7 do the same thing; all are idempotent and never fail, except a logout by
  // the access cookie alone, which must echo the CSRF token as every cookie write does.
  for (const url of ['/api/token/logout/', '/api/auth/logout/', '/api/logout/']) {
    app.post(
      url,
      { schema: { tags, body: LogoutBody, response: replies({ 200: LoggedOut }, 400, 403) } },
      async (request, reply) => {
        const { body, headers } = request;
        const header = headers['logout-token'] ?? headers['x-logout-token'];
        const presented = [body?.refresh, body?.refresh_token, body?.logout_token, header];
        const bearer = readAuthorization(headers.authorization);
        const cookie = request.cookies[ACCESS_COOKIE];
        // A token in the header or the body cannot come from another site; the cookie alone can (a forged form).
        const byCookie = !bearer && !!cookie && !presented.some((t) => typeof t === 'string' && t !== '');
        if (byCookie) assertCsrf(request);
        reply.clearCookie(ACCESS_COOKIE, { path: '/api' });
        const user = await signIn.signOut(presented, bearer ?? (byCookie ? cookie : undefined));
        if (user) {
          await app.audit.record(request, {
            eventType: 'user_logout',
            description: 'Déconnexion',
            tenantId: user.defaultTenantId,
            userId: user.id,
            username: user.username,
          });
        }
        return { detail: 'Déconnecté.' };
      },
    );
  }
};

export default token;
