import type { SecurityPolicy } from '../domain/security-policy.ts';

// The policy's values and rules live in domain/, its store with the repositories (accounts read it there); both are
// re-exported here for existing imports.
export * from '../domain/security-policy.ts';
export { SecurityPolicyStore } from '../repositories/security-policies.ts';

/** The spec §7 /security/policies answer: exactly these fields leave the server. */
export function presentSecurityPolicy(p: SecurityPolicy) {
  return {
    allow_registration: p.allowRegistration,
    password_min_length: p.passwordMinLength,
    password_require_uppercase: p.passwordRequireUppercase,
    password_require_lowercase: p.passwordRequireLowercase,
    password_require_digit: p.passwordRequireDigit,
    password_require_symbol: p.passwordRequireSymbol,
    login_attempts_per_minute: p.loginAttemptsPerMinute,
    two_factor_required_roles: [...p.twoFactorRequiredRoles],
    session_lifetime_minutes: p.sessionLifetimeMinutes,
    lockout_threshold: p.lockoutThreshold,
    lockout_minutes: p.lockoutMinutes,
    updated_at: p.updatedAt.toISOString(),
  };
}
