import { Type } from '../schemas/common.ts';

const count = Type.Integer({ minimum: 0 });

/** The spec §7 policies on the wire (presentSecurityPolicy, services/security-policies.ts). */
export const SecurityPolicySchema = Type.Object(
  {
    allow_registration: Type.Boolean(),
    password_min_length: count,
    password_require_uppercase: Type.Boolean(),
    password_require_lowercase: Type.Boolean(),
    password_require_digit: Type.Boolean(),
    password_require_symbol: Type.Boolean(),
    login_attempts_per_minute: count,
    two_factor_required_roles: Type.Array(Type.String()),
    session_lifetime_minutes: count,
    lockout_threshold: count,
    lockout_minutes: count,
    updated_at: Type.String({ format: 'date-time' }),
  },
  { title: 'SecurityPolicy' },
);
