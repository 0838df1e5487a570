import { ApiError } from './errors.ts';
import { charCount } from '../../../contract/text.ts';
import { booleanProblem, integerProblem } from './setting-values.ts';

// The platform's security policy as values and rules (no database): the identity repositories, the policy store and
// the routes share one reading of it.

/** Roles the 2FA requirement may name: the membership roles and the two platform flags. */
export const TWO_FACTOR_ROLES = ['superuser', 'staff', 'admin', 'manager', 'user', 'readonly'] as const;
export type TwoFactorRole = (typeof TWO_FACTOR_ROLES)[number];

/** What a new password must satisfy (registration, admin creation, reset, change). */
export interface PasswordRules {
  passwordMinLength: number;
  passwordRequireUppercase: boolean;
  passwordRequireLowercase: boolean;
  passwordRequireDigit: boolean;
  passwordRequireSymbol: boolean;
}

export interface SecurityPolicy extends PasswordRules {
  allowRegistration: boolean;
  loginAttemptsPerMinute: number;
  twoFactorRequiredRoles: TwoFactorRole[];
  sessionLifetimeMinutes: number;
  lockoutThreshold: number;
  lockoutMinutes: number;
  updatedAt: Date;
}

/** The column defaults, for a database whose singleton row went missing. */
export const DEFAULT_POLICY: Omit<SecurityPolicy, 'updatedAt'> = {
  allowRegistration: true,
  passwordMinLength: 8,
  loginAttemptsPerMinute: 10,
  passwordRequireUppercase: false,
  passwordRequireLowercase: false,
  passwordRequireDigit: false,
  passwordRequireSymbol: false,
  twoFactorRequiredRoles: [],
  sessionLifetimeMinutes: 10_080,
  lockoutThreshold: 10,
  lockoutMinutes: 15,
};

export const PASSWORD_MESSAGES = {
  tooShort: (n: number) => `Le mot de passe doit contenir au moins ${n} caractères`,
  uppercase: 'Le mot de passe doit contenir au moins une lettre majuscule.',
  lowercase: 'Le mot de passe doit contenir au moins une lettre minuscule.',
  digit: 'Le mot de passe doit contenir au moins un chiffre.',
  symbol: 'Le mot de passe doit contenir au moins un caractère spécial (ni lettre, ni chiffre, ni espace).',
} as const;

/**
 * The one password check of the platform: every problem of a non-empty password against the policy, in
 * French (empty means acceptable). Length counts characters (code points), as the message says.
 */
export function passwordProblems(password: string, rules: PasswordRules): string[] {
  const problems: string[] = [];
  if (charCount(password) < rules.passwordMinLength) problems.push(PASSWORD_MESSAGES.tooShort(rules.passwordMinLength));
  if (rules.passwordRequireUppercase && !/\p{Lu}/u.test(password)) problems.push(PASSWORD_MESSAGES.uppercase);
  if (rules.passwordRequireLowercase && !/\p{Ll}/u.test(password)) problems.push(PASSWORD_MESSAGES.lowercase);
  if (rules.passwordRequireDigit && !/\p{Nd}/u.test(password)) problems.push(PASSWORD_MESSAGES.digit);
  if (rules.passwordRequireSymbol && !/[^\p{L}\p{N}\s]/u.test(password)) problems.push(PASSWORD_MESSAGES.symbol);
  return problems;
}

/**
 * Whether the policy demands a second factor this account has not set up: one of its roles (in any open
 * tenant, or its superuser/staff flag) is listed and TOTP is not enabled.
 */
export function twoFactorSetupRequired(
  policy: Pick<SecurityPolicy, 'twoFactorRequiredRoles'>,
  user: { isSuperuser: boolean; isStaff: boolean; totpEnabled: boolean },
  memberships: readonly { role: string }[],
): boolean {
  if (user.totpEnabled || policy.twoFactorRequiredRoles.length === 0) return false;
  const held = new Set<string>(memberships.map((m) => m.role));
  if (user.isSuperuser) held.add('superuser');
  if (user.isStaff) held.add('staff');
  return policy.twoFactorRequiredRoles.some((role) => held.has(role));
}

type Rule = { kind: 'boolean' } | { kind: 'integer'; min: number; max: number; unit: string } | { kind: 'roles' };

/** The PATCH-able policies, by their API name, with the accepted values. */
export const POLICY_RULES = {
  allow_registration: { kind: 'boolean' },
  password_min_length: { kind: 'integer', min: 8, max: 128, unit: 'caractères' },
  password_require_uppercase: { kind: 'boolean' },
  password_require_lowercase: { kind: 'boolean' },
  password_require_digit: { kind: 'boolean' },
  password_require_symbol: { kind: 'boolean' },
  login_attempts_per_minute: { kind: 'integer', min: 1, max: 1000, unit: 'tentatives par minute' },
  two_factor_required_roles: { kind: 'roles' },
  session_lifetime_minutes: { kind: 'integer', min: 5, max: 43_200, unit: 'minutes' },
  lockout_threshold: { kind: 'integer', min: 3, max: 100, unit: 'échecs' },
  lockout_minutes: { kind: 'integer', min: 1, max: 1440, unit: 'minutes' },
} as const satisfies Record<string, Rule>;

export type PolicyKey = keyof typeof POLICY_RULES;

const COLUMN_OF = {
  allow_registration: 'allowRegistration',
  password_min_length: 'passwordMinLength',
  password_require_uppercase: 'passwordRequireUppercase',
  password_require_lowercase: 'passwordRequireLowercase',
  password_require_digit: 'passwordRequireDigit',
  password_require_symbol: 'passwordRequireSymbol',
  login_attempts_per_minute: 'loginAttemptsPerMinute',
  two_factor_required_roles: 'twoFactorRequiredRoles',
  session_lifetime_minutes: 'sessionLifetimeMinutes',
  lockout_threshold: 'lockoutThreshold',
  lockout_minutes: 'lockoutMinutes',
} as const satisfies Record<PolicyKey, keyof SecurityPolicy>;

export type PolicyPatch = Partial<Omit<SecurityPolicy, 'updatedAt'>>;

// The client may send the whole object back: the read-only field is accepted and ignored.
const READ_ONLY = new Set(['updated_at']);

function messageFor(key: PolicyKey, value: unknown): string | null {
  const rule: Rule = POLICY_RULES[key];
  switch (rule.kind) {
    case 'boolean':
      return booleanProblem(key, value);
    case 'integer':
      return integerProblem(key, value, rule);
    case 'roles':
      return Array.isArray(value) &&
        value.every((v) => typeof v === 'string' && (TWO_FACTOR_ROLES as readonly string[]).includes(v))
        ? null
        : `« ${key} » doit être une liste de rôles parmi ${TWO_FACTOR_ROLES.join(', ')}.`;
  }
}

/** Checks a PATCH body: known keys only, each value by its rule; throws a 400 naming every wrong field. */
export function validatePolicyPatch(body: unknown): PolicyPatch {
  // Not the admin-users FieldErrors helper: that module imports this one (password rules).
  const fields: Record<string, string[]> = {};
  const fail = () => {
    const first = Object.values(fields)[0]?.[0];
    if (first) throw new ApiError(400, 'invalid', first, { fields });
  };
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    fields.non_field_errors = ['Un objet JSON de politiques est attendu.'];
    fail();
  }
  const patch: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(body as Record<string, unknown>)) {
    if (READ_ONLY.has(key)) continue;
    if (!Object.hasOwn(POLICY_RULES, key)) {
      fields[key] = [`Politique inconnue : « ${key} ».`];
      continue;
    }
    const message = messageFor(key as PolicyKey, value);
    if (message) fields[key] = [message];
    // Roles are stored once each, in the documented order, whatever order the client sent.
    else
      patch[COLUMN_OF[key as PolicyKey]] =
        key === 'two_factor_required_roles' ? TWO_FACTOR_ROLES.filter((r) => (value as string[]).includes(r)) : value;
  }
  fail();
  return patch;
}

/** The API names of the policies that differ between two readings, with both values (for the audit trail). */
export function policyChanges(
  before: SecurityPolicy,
  after: SecurityPolicy,
): Record<string, { from: unknown; to: unknown }> {
  const out: Record<string, { from: unknown; to: unknown }> = {};
  for (const key of Object.keys(POLICY_RULES) as PolicyKey[]) {
    const from = before[COLUMN_OF[key]];
    const to = after[COLUMN_OF[key]];
    if (JSON.stringify(from) !== JSON.stringify(to)) out[key] = { from, to };
  }
  return out;
}
