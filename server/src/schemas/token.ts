/** Sign-in, refresh and sign-out (spec §7): the bodies, the replies, and the refusals with their messages. */
import { ApiError } from '../domain/errors.ts';
import { ProfileSchema } from '../presenters/user.ts';
import { Nullable, Type, type Static } from './common.ts';

const text = (maxLength: number) => Type.Optional(Type.String({ maxLength }));

export const TokenBody = Type.Object(
  {
    username: text(254),
    email: text(254),
    identifier: text(254),
    password: Type.String({ minLength: 1, maxLength: 1024 }),
    otp: text(16),
  },
  { additionalProperties: false },
);
export const RefreshBody = Type.Object(
  { refresh: text(4096), refresh_token: text(4096) },
  { additionalProperties: false },
);
export const LogoutBody = Nullable(
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
export const TokenPair = Type.Object(TokenFields, { description: 'Une nouvelle paire de jetons' });
export const SignedIn = Type.Object(
  { ...TokenFields, two_factor_setup_required: Type.Boolean(), user: ProfileSchema },
  { description: 'Connecté : les jetons et le profil' },
);
export const LoggedOut = Type.Object(
  { detail: Type.String() },
  { description: 'Déconnecté (toujours, même sans session)' },
);

/** The name signed in with: the first non-blank of username, identifier and email. */
export function loginOf(body: Static<typeof TokenBody>): string {
  const login = [body.username, body.identifier, body.email].find((v) => typeof v === 'string' && v.trim() !== '');
  if (!login) {
    throw new ApiError(400, 'invalid', 'Username is required', { fields: { username: ['Username is required'] } });
  }
  return login;
}

/** The refresh token presented, trimmed (under either name). */
export function presentedRefresh(body: Static<typeof RefreshBody>): string {
  const presented = body.refresh ?? body.refresh_token;
  if (typeof presented !== 'string' || presented.trim() === '') {
    throw new ApiError(400, 'invalid', 'Le jeton de rafraîchissement est requis.', {
      fields: { refresh: ['Ce champ est obligatoire.'] },
    });
  }
  return presented.trim();
}

export const invalidRefresh = () => new ApiError(401, 'token_not_valid', 'Token expiré ou invalide');
export const invalidCredentials = () => new ApiError(400, 'invalid_credentials', 'Invalid credentials');
export const twoFactorRequired = () =>
  new ApiError(403, 'two_factor_required', 'Two-factor authentication required', { two_factor_required: true });
export const invalidSignInOtp = () =>
  new ApiError(403, 'invalid_otp', 'Code de vérification invalide.', { two_factor_required: true });

/** 429 like the rate limit, so the client stops its endpoint chain and shows the message. */
export const accountLocked = (seconds: number) => {
  const minutes = Math.max(1, Math.ceil(seconds / 60));
  return new ApiError(
    429,
    'account_locked',
    `Compte temporairement verrouillé après plusieurs échecs de connexion. Réessayez dans ${minutes} minute${minutes > 1 ? 's' : ''}.`,
    { retry_after: seconds },
    { 'Retry-After': String(seconds) },
  );
};
