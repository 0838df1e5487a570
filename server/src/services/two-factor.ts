/** The second factor (TOTP) of an account: the code check, the setup in two steps, and turning it off. */
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

  /** Step 2: the code proves the pending secret is held; sign-in asks for codes from now on. */
  async confirm(user: UserRow, code: string): Promise<void> {
    if (user.totpEnabled) throw twoFactorAlreadyEnabled();
    if (!user.totpSecret) throw twoFactorNotStarted();
    if (!totpMatches(this.secretBox, user, code)) throw invalidOtp();
    await this.repo.setTotp(user.id, user.totpSecret, true);
  }

  /** Forgets the secret. Every credential given must be right: a wrong code is not excused by a right password. */
  async disable(user: UserRow, { token, password }: { token?: string; password?: string }): Promise<void> {
    if (!user.totpEnabled && !user.totpSecret) throw twoFactorNotEnabled();
    if (token && !totpMatches(this.secretBox, user, token)) throw invalidOtp();
    if (password && !(await verifyPassword(password, user.passwordHash))) throw wrongPassword();
    await this.repo.setTotp(user.id, null, false);
  }
}
