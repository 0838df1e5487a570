/**
 * The second factor (TOTP) of an account: the code check, the setup in two steps, its recovery codes, and turning it
 * off.
 */
import { digestOf, newRecoveryCode, RECOVERY_CODE_COUNT } from '../lib/one-time-codes.ts';
import { verifyPassword } from '../lib/password.ts';
import type { SecretBox } from '../lib/secret-box.ts';
import { newTotpSecret, totpUri, verifyTotp } from '../lib/totp.ts';
import type { AccountsRepository } from '../repositories/accounts.ts';
import type { UserRow } from '../repositories/users.ts';
import {
  invalidOtp,
  twoFactorAlreadyEnabled,
  twoFactorNotEnabled,
  twoFactorNotStarted,
  wrongPassword,
} from '../schemas/accounts.ts';

/** The code matches the secret stored for the account (pending or active). */
export function totpMatches(secretBox: SecretBox, user: UserRow, code: string): boolean {
  const secret = user.totpSecret ? secretBox.open(user.totpSecret) : undefined;
  return secret !== undefined && verifyTotp(secret, code.trim());
}

export class TwoFactorService {
  constructor(
    private readonly repo: AccountsRepository,
    private readonly secretBox: SecretBox,
  ) {}

  /**
   * Step 1: a new secret, stored sealed but not yet required at sign-in until a code proves the authenticator
   * app holds it (step 2), so a half-finished setup cannot lock the user out.
   */
  async start(user: UserRow): Promise<{ otpauth_url: string; secret: string; enabled: false }> {
    if (user.totpEnabled) throw twoFactorAlreadyEnabled();
    const secret = newTotpSecret();
    await this.repo.setTotp(user.id, this.secretBox.seal(secret), false);
    return { otpauth_url: totpUri(secret, user.username), secret, enabled: false };
  }

  /**
   * Step 2: the code proves the pending secret is held; sign-in asks for codes from now on. Returns the account's
   * recovery codes, shown this once (only their digests are kept).
   */
  async confirm(user: UserRow, code: string): Promise<string[]> {
    if (user.totpEnabled) throw twoFactorAlreadyEnabled();
    if (!user.totpSecret) throw twoFactorNotStarted();
    if (!totpMatches(this.secretBox, user, code)) throw invalidOtp();
    await this.repo.setTotp(user.id, user.totpSecret, true);
    return this.newRecoveryCodes(user);
  }

  async status(user: UserRow): Promise<{ enabled: boolean; recovery_codes_left: number }> {
    return {
      enabled: user.totpEnabled,
      recovery_codes_left: user.totpEnabled ? await this.repo.recoveryCodesLeft(user.id) : 0,
    };
  }

  /** A new set of recovery codes replaces the old, proven like turning 2FA off: a current code or the password. */
  async regenerate(user: UserRow, credentials: { token?: string; password?: string }): Promise<string[]> {
    if (!user.totpEnabled) throw twoFactorNotEnabled();
    await this.prove(user, credentials);
    return this.newRecoveryCodes(user);
  }

  /** Forgets the secret. Every credential given must be right: a wrong code is not excused by a right password. */
  async disable(user: UserRow, { token, password }: { token?: string; password?: string }): Promise<void> {
    if (!user.totpEnabled && !user.totpSecret) throw twoFactorNotEnabled();
    await this.prove(user, { token, password });
    await this.repo.setTotp(user.id, null, false);
  }

  private async prove(user: UserRow, { token, password }: { token?: string; password?: string }): Promise<void> {
    if (token && !totpMatches(this.secretBox, user, token)) throw invalidOtp();
    if (password && !(await verifyPassword(password, user.passwordHash))) throw wrongPassword();
  }

  private async newRecoveryCodes(user: UserRow): Promise<string[]> {
    const codes = Array.from({ length: RECOVERY_CODE_COUNT }, newRecoveryCode);
    await this.repo.replaceRecoveryCodes(user.id, codes.map(digestOf));
    return codes;
  }
}
