/** Forgotten passwords (a one-time link by mail) and the signed-in change of password. */
import { randomBytes } from 'node:crypto';
import { digestOf as digest } from '../lib/one-time-codes.ts';
import { hashPassword, verifyPassword } from '../lib/password.ts';
import type { AccountsRepository } from '../repositories/accounts.ts';
import type { UserRow } from '../repositories/users.ts';
import { assertPassword, invalidResetToken } from '../schemas/accounts.ts';
import type { Mailer } from './mailer.ts';

const RESET_TTL_MS = 60 * 60 * 1000;
const TOKEN_RE = /^[A-Za-z0-9_-]{43}$/;

function resetMail(name: string, link: string): { subject: string; text: string } {
  return {
    subject: 'Vigie — réinitialisation de votre mot de passe',
    text: [
      `Bonjour ${name},`,
      '',
      'Une réinitialisation du mot de passe de votre compte Vigie a été demandée.',
      'Pour choisir un nouveau mot de passe, ouvrez ce lien (valable 1 heure, utilisable une seule fois) :',
      '',
      link,
      '',
      "Si vous n'êtes pas à l'origine de cette demande, ignorez ce message : votre mot de passe reste inchangé.",
      '',
      "— L'équipe Vigie",
    ].join('\n'),
  };
}

export interface IssuedReset {
  user: UserRow;
  token: string;
}

export class PasswordService {
  // Reset requests finish in the background; `close` waits for them.
  readonly #pending = new Set<Promise<void>>();

  constructor(
    private readonly repo: AccountsRepository,
    private readonly mailer: Mailer,
  ) {}

  /** Runs a reset request after its answer was sent; `close` waits for it. */
  inBackground(job: Promise<void>): void {
    this.#pending.add(job);
    void job.finally(() => this.#pending.delete(job));
  }

  async close(): Promise<void> {
    await Promise.allSettled(this.#pending);
    this.mailer.close();
  }

  /** A new reset token for the active account of `email`, if there is one. */
  async issueReset(email: string): Promise<IssuedReset | undefined> {
    const user = email === '' ? undefined : await this.repo.findActiveByEmail(email);
    if (!user) return undefined;
    const token = randomBytes(32).toString('base64url');
    await this.repo.addResetToken(user.id, digest(token), new Date(Date.now() + RESET_TTL_MS));
    return { user, token };
  }

  async mailReset({ user, token }: IssuedReset): Promise<void> {
    const link = this.mailer.link(`/reset-password?token=${token}`);
    await this.mailer.send({ to: user.email, ...resetMail(user.firstName || user.username, link) });
  }

  /** Spends the token on the new password; answers the account it belonged to. */
  async confirmReset(rawToken: string, newPassword: string): Promise<UserRow> {
    const token = rawToken.trim();
    const tokenHash = digest(token);
    const user = TOKEN_RE.test(token) ? await this.repo.resetTokenOwner(tokenHash) : undefined;
    if (!user) throw invalidResetToken();
    assertPassword('new_password', newPassword, await this.repo.policy());
    // Spending the token, setting the password and revoking every session happen together.
    const done = await this.repo.resetPassword(tokenHash, user.id, await hashPassword(newPassword));
    if (!done) throw invalidResetToken();
    return user;
  }

  /**
   * Sets the new password once the current one is proven; other devices are signed out, the session `keepSid`
   * making the change stays. False (nothing changed) when the current password is wrong.
   */
  async change(user: UserRow, oldPassword: string, newPassword: string, keepSid: string | undefined): Promise<boolean> {
    if (!(await verifyPassword(oldPassword, user.passwordHash))) return false;
    assertPassword('new_password', newPassword, await this.repo.policy());
    await this.repo.changePassword(user.id, await hashPassword(newPassword), keepSid);
    return true;
  }
}
