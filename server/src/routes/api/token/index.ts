import { randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { UsersRepository, type UserRow } from '../../../repositories/users.ts';
import { presentProfile, ProfileSchema } from '../../../presenters/user.ts';
import { DUMMY_HASH_PROMISE, verifyPassword } from '../../../lib/password.ts';
import { verifyTotp } from '../../../lib/totp.ts';
import { ACCESS_TOKEN_TTL_S, TokenError } from '../../../lib/tokens.ts';
import { SessionService } from '../../../services/sessions.ts';
import { ApiError } from '../../../domain/errors.ts';
import { lockoutKey } from '../../../services/login-lockout.ts';
import { twoFactorSetupRequired } from '../../../services/security-policies.ts';
import { ACCESS_COOKIE, CSRF_COOKIE, readAuthorization } from '../../../plugins/app/authentication.ts';
import { Nullable, replies, Type, type Static } from '../../../schemas/common.ts';

const text = (maxLength: number) => Type.Optional(Type.String({ maxLength }));

const TokenBody = Type.Object(
  {
    username: text(254),
    email: text(254),
    identifier: text(254),
    password: Type.String({ minLength: 1, maxLength: 1024 }),
    otp: text(16),
  },
  { additionalProperties: false },
);
const RefreshBody = Type.Object({ refresh: text(4096), refresh_token: text(4096) }, { additionalProperties: false });
const LogoutBody = Nullable(
  Type.Object(
    { refresh: text(4096), refresh_token: text(4096), logout_token: text(4096) },
    { additionalProperties: false },
  ),
);

const TokenFields = {
  access: Type.String(),
  refresh: Type.String(),
  expires_in: Type.Integer({ description: 'Durée de validité du jeton d’accès, en secondes' }),
};
const TokenPair = Type.Object(TokenFields, { description: 'Une nouvelle paire de jetons' });
const SignedIn = Type.Object(
  { ...TokenFields, two_factor_setup_required: Type.Boolean(), user: ProfileSchema },
  { description: 'Connecté : les jetons et le profil' },
);
const LoggedOut = Type.Object({ detail: Type.String() }, { description: 'Déconnecté (toujours, même sans session)' });

/**
 * The access token also travels as an HttpOnly cookie so that sendBeacon (which cannot set headers)
 * is authenticated; the readable csrftoken cookie is the double-submit secret for cookie writes.
 */
function setSessionCookies(request: FastifyRequest, reply: FastifyReply, access: string): void {
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
}

const INVALID_TOKEN = () => new ApiError(401, 'token_not_valid', 'Token expiré ou invalide');

/** 429 like the rate limit, so the client stops its endpoint chain and shows the message. */
const accountLocked = (seconds: number) => {
  const minutes = Math.max(1, Math.ceil(seconds / 60));
  return new ApiError(
    429,
    'account_locked',
    `Compte temporairement verrouillé après plusieurs échecs de connexion. Réessayez dans ${minutes} minute${minutes > 1 ? 's' : ''}.`,
    { retry_after: seconds },
    { 'Retry-After': String(seconds) },
  );
};

/** Sign-in, refresh and sign-out (spec §7): tokens in the body, the access token also as an HttpOnly cookie. */
const token: FastifyPluginAsyncTypebox = async (app) => {
  const users = new UsersRepository(app.database.db);
  const sessions = new SessionService(app.database.db, app.tokens);
  const tags = ['Authentification'];

  /** A refused sign-in, in the trail under the login that was tried. */
  const loginFailed = (
    request: FastifyRequest,
    login: string,
    user: UserRow | undefined,
    entry: { description: string; severity: 'WARNING' | 'ERROR'; extra: Record<string, unknown> },
  ) =>
    app.audit.record(request, {
      eventType: 'login_failed',
      success: false,
      tenantId: user?.defaultTenantId ?? null,
      userId: user?.id ?? null,
      username: login.slice(0, 150),
      ...entry,
    });

  app.post(
    '/api/token/',
    { schema: { tags, body: TokenBody, response: replies({ 200: SignedIn }, 400, 403, 429) } },
    async (request, reply) => {
      const { username, email, identifier, password, otp } = request.body;
      const login = [username, identifier, email].find((v) => typeof v === 'string' && v.trim() !== '');
      if (!login)
        throw new ApiError(400, 'invalid', 'Username is required', { fields: { username: ['Username is required'] } });
      await app.limits.hit(request, 'login', login);
      // Read at each sign-in: a policy change applies to the next attempt.
      const policy = await app.securityPolicies.get();

      const user = await users.findByLogin(login);
      const lockKey = lockoutKey(user?.id, login);
      const lockedFor = app.lockout.lockedFor(lockKey);
      if (lockedFor > 0) {
        await loginFailed(request, login, user, {
          description: 'Connexion refusée : compte temporairement verrouillé',
          severity: 'WARNING',
          extra: { reason: 'account_locked', retry_after: lockedFor },
        });
        throw accountLocked(lockedFor);
      }
      /** Counts a failed attempt toward the lock-out, audits it, and answers the lock once it is reached. */
      const failed = async (reason: string, description: string, fallback: ApiError): Promise<never> => {
        const { lockoutThreshold, lockoutMinutes } = policy;
        const locked = app.lockout.fail(lockKey, lockoutThreshold, lockoutMinutes);
        await loginFailed(request, login, user, {
          description: locked ? `${description} ; compte verrouillé ${lockoutMinutes} min` : description,
          severity: locked ? 'ERROR' : 'WARNING',
          extra: locked
            ? { reason, locked: true, lockout_threshold: lockoutThreshold, lockout_minutes: lockoutMinutes }
            : { reason },
        });
        throw locked ? accountLocked(lockoutMinutes * 60) : fallback;
      };

      // Same work whether or not the account exists, so timing does not reveal usernames.
      const ok = await verifyPassword(password, user?.passwordHash ?? (await DUMMY_HASH_PROMISE));
      if (!user || !ok || !user.isActive) {
        return failed(
          !user ? 'unknown_account' : !ok ? 'wrong_password' : 'inactive_account',
          'Échec de connexion',
          new ApiError(400, 'invalid_credentials', 'Invalid credentials'),
        );
      }

      if (user.totpEnabled) {
        if (!otp) {
          throw new ApiError(403, 'two_factor_required', 'Two-factor authentication required', {
            two_factor_required: true,
          });
        }
        const secret = user.totpSecret ? app.secretBox.open(user.totpSecret) : undefined;
        if (!secret || !verifyTotp(secret, otp.trim())) {
          return failed(
            'invalid_otp',
            'Code de double authentification invalide',
            new ApiError(403, 'invalid_otp', 'Code de vérification invalide.', { two_factor_required: true }),
          );
        }
      }

      app.limits.clear('login', login);
      app.lockout.clear(lockKey);
      await users.touchLastLogin(user.id);
      const fresh = (await users.findById(user.id)) ?? user;
      const memberships = await users.membershipsOf(user.id);
      const issued = await sessions.issue(fresh, undefined, policy.sessionLifetimeMinutes * 60);
      // The policy wants a second factor this account lacks: the session opens, but only onto the 2FA setup.
      const setupRequired = twoFactorSetupRequired(policy, fresh, memberships);
      await app.audit.record(request, {
        eventType: 'user_login',
        description: setupRequired ? 'Connexion réussie (configuration 2FA obligatoire)' : 'Connexion réussie',
        tenantId:
          memberships.find((m) => m.tenantId === fresh.defaultTenantId)?.tenantId ?? memberships[0]?.tenantId ?? null,
        userId: user.id,
        username: user.username,
        ...(setupRequired ? { extra: { two_factor_setup_required: true } } : {}),
      });
      setSessionCookies(request, reply, issued.access);
      reply.header('Cache-Control', 'no-store');
      return {
        access: issued.access,
        refresh: issued.refresh,
        expires_in: issued.expires_in,
        two_factor_setup_required: setupRequired,
        user: presentProfile(fresh, memberships),
      };
    },
  );

  app.post(
    '/api/token/refresh/',
    { schema: { tags, body: RefreshBody, response: replies({ 200: TokenPair }, 400, 401) } },
    async (request, reply) => {
      const presented = request.body.refresh ?? request.body.refresh_token;
      if (typeof presented !== 'string' || presented.trim() === '') {
        throw new ApiError(400, 'invalid', 'Le jeton de rafraîchissement est requis.', {
          fields: { refresh: ['Ce champ est obligatoire.'] },
        });
      }
      const lifetimeS = (await app.securityPolicies.get()).sessionLifetimeMinutes * 60;
      const result = await sessions.rotate(presented.trim(), (id) => users.findById(id), lifetimeS);
      if (!result.ok) {
        if (result.reason === 'reused') {
          await app.audit.record(request, {
            eventType: 'refresh_token_reuse',
            description: 'Réutilisation d’un jeton de rafraîchissement : session révoquée',
            severity: 'CRITICAL',
            success: false,
            tenantId: result.userId ? ((await users.findById(result.userId))?.defaultTenantId ?? null) : null,
            userId: result.userId ?? null,
            username: null,
            extra: { family: result.familyId },
          });
        }
        throw INVALID_TOKEN();
      }
      setSessionCookies(request, reply, result.tokens.access);
      reply.header('Cache-Control', 'no-store');
      const { access, refresh, expires_in } = result.tokens;
      return { access, refresh, expires_in };
    },
  );

  // The three logout paths of spec §7 do the same thing; all are idempotent and never fail.
  const logout = async (request: FastifyRequest, body: Static<typeof LogoutBody>) => {
    const header = request.headers['logout-token'] ?? request.headers['x-logout-token'];
    const candidates = [body?.refresh, body?.refresh_token, body?.logout_token, header];
    const families = new Set<string>();
    for (const c of candidates) {
      const fam = typeof c === 'string' && c ? await sessions.familyOf(c) : undefined;
      if (fam) families.add(fam);
    }
    let userId: number | undefined;
    const access = readAuthorization(request.headers.authorization);
    if (access) {
      try {
        const claims = await app.tokens.verifyAccess(access);
        if (claims.sid) families.add(claims.sid);
        userId = Number(claims.sub);
      } catch (err) {
        if (!(err instanceof TokenError)) throw err;
      }
    }
    for (const fam of families) await sessions.revokeFamily(fam, 'logout');
    const user = userId === undefined ? undefined : await users.findById(userId);
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
  };
  for (const url of ['/api/token/logout/', '/api/auth/logout/', '/api/logout/']) {
    app.post(
      url,
      { schema: { tags, body: LogoutBody, response: replies({ 200: LoggedOut }, 400) } },
      async (request, reply) => {
        reply.clearCookie(ACCESS_COOKIE, { path: '/api' });
        return logout(request, request.body);
      },
    );
  }
};

export default token;
