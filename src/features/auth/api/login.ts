import { apiRequest, ApiError, TIMEOUTS } from '../../../lib/api-client.ts';
import { recordLoginFailed } from '../../../lib/audit-log.ts';
import { isStrictProfile } from '../../../lib/auth/profile-rules.ts';
import { DEFAULT_TOKEN_LIFETIME_S, startSession } from '../../../lib/auth/session.ts';
import type { TokenSet, UserProfile } from '../../../lib/auth/types.ts';
import { fetchProfile, ProfileError } from '../../../lib/auth/profile.ts';

/** spec §7: tried in order; a 401 tries the next credential format, other errors the next endpoint. */
export const LOGIN_ENDPOINTS = ['/api/token/', '/api/auth/token/', '/auth/token/', '/token/'] as const;

export const LOGIN_MESSAGES = {
  usernameRequired: 'Username is required',
  passwordRequired: 'Password is required',
  incomplete: 'Identifiants incomplets',
  allFailed: 'Échec de la connexion avec tous les endpoints',
  noData: 'Aucune donnée reçue après la connexion',
  noToken: 'No valid token or user data received after login',
  unknownShape: 'Format de réponse non reconnu',
  invalidCredentials: 'Invalid credentials',
  twoFactor: 'Two-factor authentication required',
} as const;

export interface LoginInput {
  username: string;
  password: string;
  otp?: string;
}

/**
 * What the sign-in form says. spec §8's login texts are part of the contract: 'Invalid credentials' (a 400) and
 * 'Two-factor authentication required' (a 403) are shown exactly so, marked as English, each followed by its French
 * sense (`LoginNotice`). spec §5's 'Username is required' and 'Password is required' stay exactly so on the wire, in
 * LoginError and in the audit trail; the form says their French sense. Both fields empty is spec §5's 'Identifiants
 * incomplets'.
 */
export const LOGIN_FORM_MESSAGES = {
  incomplete: LOGIN_MESSAGES.incomplete,
  usernameRequired: 'Nom d’utilisateur obligatoire.',
  passwordRequired: 'Mot de passe obligatoire.',
  /** Follows 'Invalid credentials'. */
  invalidCredentials: 'identifiants invalides : vérifiez le nom d’utilisateur et le mot de passe.',
  /** Follows 'Two-factor authentication required'. */
  twoFactor: 'double authentification requise : saisissez le code de votre application.',
  unreachable: 'Impossible de joindre le serveur. Vérifiez votre connexion internet.',
} as const;

/** A message under the sign-in form: spec §8's own words when it gives them (English, as they are), then French. */
export interface LoginNotice {
  spec?: string;
  french: string;
}

/** The notice as one line of text: « <spec's words> — <French> », or the French alone. */
export function loginNoticeText(notice: LoginNotice): string {
  return notice.spec ? `${notice.spec} — ${notice.french}` : notice.french;
}

/** The sign-in form's own check, in French (spec §5: both required; 'Identifiants incomplets' when both are empty). */
export function loginFormError(input: LoginInput): string | null {
  if (!input.username.trim() && !input.password) return LOGIN_FORM_MESSAGES.incomplete;
  const missing = validateLogin(input);
  return missing && (MISSING_IN_FRENCH[missing] ?? missing);
}

/** spec §5's English texts of a missing field, as the form says them. */
const MISSING_IN_FRENCH: Record<string, string> = {
  [LOGIN_MESSAGES.usernameRequired]: LOGIN_FORM_MESSAGES.usernameRequired,
  [LOGIN_MESSAGES.passwordRequired]: LOGIN_FORM_MESSAGES.passwordRequired,
};

/** spec §5 login validation; returns the first message or null. */
export function validateLogin({ username, password }: LoginInput): string | null {
  if (!username.trim()) return LOGIN_MESSAGES.usernameRequired;
  if (!password) return LOGIN_MESSAGES.passwordRequired;
  return null;
}

/** spec §5: a username with '@' is also the email; one without gets a local-domain email derived from it. */
export function emailFor(username: string): string {
  return username.includes('@') ? username : `${username}@localhost`;
}

/** The credential formats, most complete first. */
export function credentialFormats({ username, password, otp }: LoginInput): Record<string, string>[] {
  const u = username.trim();
  const withOtp = (b: Record<string, string>) => (otp ? { ...b, otp } : b);
  return [
    withOtp({ username: u, email: emailFor(u), identifier: u, password }),
    withOtp({ email: emailFor(u), password }),
    withOtp({ username: u, password }),
  ];
}

/** spec §7 answer shapes: {access, refresh, expires_in} (+ user), or user plus tokens{access_token, refresh_token}, … */
export function readLoginAnswer(data: unknown): { tokens: TokenSet; user?: unknown } {
  if (data === null || data === undefined || data === '') throw new LoginError(LOGIN_MESSAGES.noData);
  if (typeof data !== 'object' || Array.isArray(data)) throw new LoginError(LOGIN_MESSAGES.unknownShape);
  const d = data as Record<string, unknown>;
  const str = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);
  const obj = (v: unknown) => (v && typeof v === 'object' ? (v as Record<string, unknown>) : undefined);
  const nested = obj(d.tokens) ?? obj(d.token);
  const access = str(d.access) ?? str(d.access_token) ?? str(nested?.access_token) ?? str(nested?.access);
  const refresh = str(d.refresh) ?? str(d.refresh_token) ?? str(nested?.refresh_token) ?? str(nested?.refresh);
  if (!access || !refresh) {
    const known = ['access', 'refresh', 'access_token', 'refresh_token', 'tokens', 'token', 'user'].some((k) => k in d);
    throw new LoginError(known ? LOGIN_MESSAGES.noToken : LOGIN_MESSAGES.unknownShape);
  }
  const expiresIn = [d.expires_in, nested?.expires_in].find((v): v is number => typeof v === 'number' && v > 0);
  return {
    tokens: {
      access_token: access,
      refresh_token: refresh,
      expires_at: Date.now() + (expiresIn ?? DEFAULT_TOKEN_LIFETIME_S) * 1000,
    },
    ...(d.user !== undefined ? { user: d.user } : {}),
  };
}

export class LoginError extends Error {
  constructor(
    message: string,
    readonly status = 0,
    readonly twoFactorRequired = false,
  ) {
    super(message);
    this.name = 'LoginError';
  }
}

function isTwoFactor(err: ApiError): boolean {
  const d = err.data as { two_factor_required?: unknown } | undefined;
  return err.status === 403 && d?.two_factor_required === true;
}

/**
 * spec §7/§8 sign-in: the endpoint chain with its credential formats, then the profile (embedded when it passes
 * the strict check, else the profile chain). Starts the session on success. A sign-in that was tried and failed
 * records `login_failed` (warning) with the username and the reason, never the password nor the code.
 */
export async function login(input: LoginInput): Promise<UserProfile> {
  const invalid = validateLogin(input);
  if (invalid) throw new LoginError(invalid);
  try {
    return await signIn(input);
  } catch (err) {
    const status = err instanceof LoginError || err instanceof ApiError ? err.status : undefined;
    recordLoginFailed(input.username.trim(), {
      reason: err instanceof Error ? err.message : LOGIN_MESSAGES.allFailed,
      ...(status !== undefined ? { status } : {}),
      ...(err instanceof LoginError && err.twoFactorRequired ? { two_factor_required: true } : {}),
      ...(err instanceof ProfileError ? { profile: err.flag } : {}),
    });
    throw err;
  }
}

async function signIn(input: LoginInput): Promise<UserProfile> {
  let lastError: ApiError | LoginError | undefined;
  let answer: ReturnType<typeof readLoginAnswer> | undefined;

  endpoints: for (const endpoint of LOGIN_ENDPOINTS) {
    for (const body of credentialFormats(input)) {
      try {
        const data = await apiRequest<unknown>(endpoint, {
          method: 'POST',
          body,
          anonymous: true,
          raw: true,
          timeoutMs: TIMEOUTS.auth,
        });
        answer = readLoginAnswer(data);
        break endpoints;
      } catch (err) {
        if (err instanceof LoginError) throw err;
        if (!(err instanceof ApiError)) throw err;
        // The account exists and wants a code, or the server asks to slow down: no other endpoint will do better.
        // A code was sent and refused: the server's own words ('Code de vérification invalide.') say more.
        if (isTwoFactor(err))
          throw new LoginError(input.otp && err.message ? err.message : LOGIN_MESSAGES.twoFactor, 403, true);
        if (err.status === 429) throw new LoginError(err.message, 429);
        // A 404 from a later endpoint says less than a refusal from an earlier one.
        if (!lastError || err.status !== 404) lastError = err;
        if (err.status === 401) continue;
        continue endpoints;
      }
    }
  }
  if (!answer) {
    if (lastError instanceof ApiError && lastError.status > 0)
      throw new LoginError(lastError.message, lastError.status);
    throw new LoginError(lastError?.message ?? LOGIN_MESSAGES.allFailed, 0);
  }
  const profile = isStrictProfile(answer.user) ? answer.user : await fetchProfile(answer.tokens.access_token);
  await startSession(answer.tokens, profile);
  return profile;
}

/**
 * What the form says of a failed sign-in: spec §8's 'Invalid credentials' for a refused password (400, and a 401
 * left at the end of the chain) and 'Two-factor authentication required' for the 403 asking for a code, each with
 * its French sense; otherwise French.
 */
export function loginErrorNotice(err: unknown): LoginNotice {
  if (err instanceof LoginError) {
    if (err.twoFactorRequired)
      return err.message === LOGIN_MESSAGES.twoFactor
        ? { spec: LOGIN_MESSAGES.twoFactor, french: LOGIN_FORM_MESSAGES.twoFactor }
        : { french: err.message };
    if (err.status === 400 || err.status === 401)
      return { spec: LOGIN_MESSAGES.invalidCredentials, french: LOGIN_FORM_MESSAGES.invalidCredentials };
    if (err.status === 403 || err.status === 429) return { french: err.message };
    const missing = MISSING_IN_FRENCH[err.message];
    if (missing) return { french: missing };
    if (err.status === 0 && (err.message === 'Backend connection failed' || err.message.startsWith('La requête')))
      return { french: LOGIN_FORM_MESSAGES.unreachable };
    return { french: err.message };
  }
  if (err instanceof Error && err.name === 'ProfileError') return { french: err.message };
  return { french: LOGIN_MESSAGES.allFailed };
}

/** The same, as one line of text. */
export function loginErrorMessage(err: unknown): string {
  return loginNoticeText(loginErrorNotice(err));
}
