import { charCount } from '../../../contract/text.ts';
import { apiRequest, apiRequestWithOrigin, ApiError, TIMEOUTS } from '../api-client.ts';
import { UserMessageError } from '../error-message.ts';
import { session, updateProfile } from './session.ts';
import type { UserProfile } from './types.ts';

/** A failure with the spec §8 French message, and per-field messages for forms. */
export class FormError extends UserMessageError {
  constructor(
    message: string,
    readonly fields: Record<string, string> = {},
    readonly status = 0,
  ) {
    super(message);
    this.name = 'FormError';
  }
}

const firstMessage = (v: unknown): string | undefined =>
  Array.isArray(v) ? v.find((x): x is string => typeof x === 'string') : typeof v === 'string' ? v : undefined;

/** Server field errors come as {fields: {name: [msg]}} (ours) or DRF's top-level {name: [msg]}. */
function fieldErrors(err: ApiError): Record<string, string> {
  const source: Record<string, unknown> =
    Object.keys(err.fields).length > 0
      ? err.fields
      : err.data && typeof err.data === 'object'
        ? (err.data as Record<string, unknown>)
        : {};
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(source)) {
    if (k === 'detail' || k === 'code') continue;
    const m = firstMessage(v);
    if (m) out[k] = m;
  }
  return out;
}

export interface RegisterInput {
  username: string;
  email: string;
  password: string;
  confirm_password?: string;
  first_name?: string;
  last_name?: string;
  role?: string;
}

const REGISTER_FIELD_LABELS: Record<string, string> = {
  username: "Nom d'utilisateur invalide : ",
  email: 'Email invalide : ',
  password: 'Mot de passe invalide : ',
  confirm_password: 'Confirmation du mot de passe : ',
};

/** spec §5 register validation: the first missing field's message, or null. */
export function validateRegister(input: RegisterInput): Record<string, string> {
  const errors: Record<string, string> = {};
  if (!input.username.trim()) errors.username = "Nom d'utilisateur requis";
  if (!input.email.trim()) errors.email = 'Email requis';
  if (!input.password) errors.password = 'Mot de passe requis';
  return errors;
}

/** spec §7 POST /register/ with the spec §8 messages. confirm_password defaults to the password (spec §5). */
export async function register(input: RegisterInput): Promise<UserProfile> {
  const invalid = validateRegister(input);
  const first = Object.values(invalid)[0];
  if (first) throw new FormError(first, invalid);
  const body = { ...input, confirm_password: input.confirm_password ?? input.password };
  try {
    return await apiRequest<UserProfile>('/register/', {
      method: 'POST',
      body,
      anonymous: true,
      timeoutMs: TIMEOUTS.auth,
    });
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    if (err.kind === 'timeout') throw new FormError('La requête a expiré. Vérifiez votre connexion internet.');
    if (err.status === 400) {
      const fields = fieldErrors(err);
      const labelled = Object.entries(fields)
        .filter(([k]) => k in REGISTER_FIELD_LABELS)
        .map(([k, m]) => REGISTER_FIELD_LABELS[k] + m);
      throw new FormError(labelled[0] ?? "Données d'inscription invalides", fields, 400);
    }
    if (err.status === 403) throw new FormError('Création de compte non autorisée', {}, 403);
    if (err.status === 409) throw new FormError('Un compte avec cet email existe déjà', {}, 409);
    if (err.status === 500) throw new FormError('Erreur interne du serveur. Veuillez réessayer plus tard.', {}, 500);
    if (err.status === 0) throw new FormError(err.message);
    throw new FormError(`Erreur de serveur inattendue : ${err.status}`, {}, err.status);
  }
}

/** What PATCH /accounts/me/ adds to the profile when a new e-mail awaits its confirmation link. */
interface ProfileUpdated extends UserProfile {
  detail?: string;
  pending_email?: string;
}

/**
 * spec §7 PATCH /accounts/me/: requires a session; the first server error message is shown on failure. A new e-mail
 * needs `current_password` and changes only once the link mailed to it is followed: `notice` says so (else null).
 */
export async function updateMyProfile(
  fields: Partial<Pick<UserProfile, 'first_name' | 'last_name' | 'email'>> & { current_password?: string },
): Promise<{ profile: UserProfile; notice: string | null }> {
  if (!session.value?.tokens.access_token) throw new FormError('Utilisateur non authentifié.');
  try {
    const {
      detail,
      pending_email: _pending,
      ...profile
    } = await apiRequest<ProfileUpdated>('/accounts/me/', {
      method: 'PATCH',
      body: fields,
      timeoutMs: TIMEOUTS.auth,
    });
    await updateProfile({ ...session.value.profile, ...profile });
    return { profile, notice: detail ?? null };
  } catch (err) {
    if (err instanceof ApiError) {
      const f = fieldErrors(err);
      throw new FormError(Object.values(f)[0] ?? err.message, f, err.status);
    }
    throw err;
  }
}

export interface AdminInput {
  username: string;
  email: string;
  password: string;
  first_name?: string;
  last_name?: string;
}

/** spec §5 admin creation rules. */
export function validateAdmin(input: AdminInput): string | null {
  if (!input.username.trim() || !input.email.trim() || !input.password)
    return 'Tous les champs requis doivent être remplis';
  if (charCount(input.password) < 8) return 'Le mot de passe doit contenir au moins 8 caractères';
  return null;
}

/** spec §7 POST /accounts/admin/create/; the payload forces is_staff and is_superuser (spec §5). */
export async function createAdminAccount(input: AdminInput): Promise<UserProfile> {
  const invalid = validateAdmin(input);
  if (invalid) throw new FormError(invalid);
  try {
    return await apiRequest<UserProfile>('/accounts/admin/create/', {
      method: 'POST',
      body: { ...input, is_staff: true, is_superuser: true },
      allowForbidden: true,
      timeoutMs: TIMEOUTS.auth,
    });
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    if (err.status === 400) {
      const f = fieldErrors(err);
      throw new FormError(Object.values(f)[0] ?? 'Impossible de créer le compte admin', f, 400);
    }
    if (err.status === 403) throw new FormError('Création de compte admin non autorisée', {}, 403);
    throw new FormError('La création du compte admin a échoué', {}, err.status);
  }
}

export interface RecoveryCodes {
  enabled: true;
  recovery_codes: string[];
}

export const twoFactor = {
  /** With where it came from: offline, the cached state shows its date. */
  status: () =>
    apiRequestWithOrigin<{ enabled: boolean; recovery_codes_left?: number }>('/accounts/2fa/status/', {
      timeoutMs: TIMEOUTS.auth,
    }),
  enable: () =>
    apiRequest<{ otpauth_url: string; secret: string; enabled: boolean }>('/accounts/2fa/enable/', {
      method: 'POST',
      timeoutMs: TIMEOUTS.auth,
    }),
  /** Turns 2FA on; the answer holds the recovery codes, shown this once. */
  verify: (token: string) =>
    apiRequest<RecoveryCodes>('/accounts/2fa/verify/', {
      method: 'POST',
      body: { token },
      timeoutMs: TIMEOUTS.auth,
    }),
  /** A new set of recovery codes (the old ones stop working), proven by a current code or the password. */
  recoveryCodes: (proof: { token: string } | { password: string }) =>
    apiRequest<RecoveryCodes>('/accounts/2fa/recovery-codes/', {
      method: 'POST',
      body: proof,
      timeoutMs: TIMEOUTS.auth,
    }),
  disable: (proof: { token: string } | { password: string }) =>
    apiRequest<{ enabled: boolean }>('/accounts/2fa/disable/', {
      method: 'POST',
      body: proof,
      timeoutMs: TIMEOUTS.auth,
    }),
};

export const password = {
  requestReset: (email: string) =>
    apiRequest<{ detail: string }>('/accounts/password/reset/', {
      method: 'POST',
      body: { email },
      anonymous: true,
      timeoutMs: TIMEOUTS.auth,
    }),
  confirmReset: (token: string, newPassword: string) =>
    apiRequest<{ detail: string }>('/accounts/password/reset/confirm/', {
      method: 'POST',
      body: { token, new_password: newPassword },
      anonymous: true,
      timeoutMs: TIMEOUTS.auth,
    }),
  change: (oldPassword: string, newPassword: string) =>
    apiRequest<{ detail: string }>('/accounts/password/change/', {
      method: 'POST',
      body: { old_password: oldPassword, new_password: newPassword },
      timeoutMs: TIMEOUTS.auth,
    }),
};

/** The link mailed to a new address (/confirm-email?token=): no session needed, it may be opened on any device. */
export const confirmEmail = (token: string) =>
  apiRequest<{ detail: string; email: string }>('/accounts/email/confirm/', {
    method: 'POST',
    body: { token },
    anonymous: true,
    timeoutMs: TIMEOUTS.auth,
  });
