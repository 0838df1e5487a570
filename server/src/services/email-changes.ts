/**
 * A change of the account's e-mail address (docs/api-accounts.md): asked with the current password, made only once
 * the link mailed to the new address is followed. The address is what a password reset is mailed to, so a stolen
 * session alone must not be able to move it.
 */
import { randomBytes } from 'node:crypto';
import { digestOf as digest } from '../lib/one-time-codes.ts';
import { verifyPassword } from '../lib/password.ts';
import { uniqueViolation, type AccountsRepository } from '../repositories/accounts.ts';
import type { UserRow } from '../repositories/users.ts';
import { duplicateEmail, invalidEmailLink } from '../schemas/accounts.ts';
import type { Mailer } from './mailer.ts';

const CHANGE_TTL_MS = 24 * 60 * 60 * 1000;
const TOKEN_RE = /^[A-Za-z0-9_-]{43}$/;

function confirmationMail(name: string, email: string, link: string): { subject: string; text: string } {
  return {
    subject: 'Vigie — confirmez votre nouvelle adresse e-mail',
    text: [
      `Bonjour ${name},`,
      '',
      `Vous avez demandé que votre compte Vigie utilise désormais l’adresse ${email}.`,
      'Pour confirmer ce changement, ouvrez ce lien (valable 24 heures, utilisable une seule fois) :',
      '',
      link,
      '',
      "Si vous n'êtes pas à l'origine de cette demande, ignorez ce message : l’adresse du compte reste inchangée.",
      '',
      "— L'équipe Vigie",
    ].join('\n'),
  };
}

function changedMail(name: string, email: string): { subject: string; text: string } {
  return {
    subject: 'Vigie — l’adresse e-mail de votre compte a changé',
    text: [
      `Bonjour ${name},`,
      '',
      `L’adresse e-mail de votre compte Vigie est désormais ${email}.`,
      "Si vous n'êtes pas à l'origine de ce changement, prévenez sans attendre l’administrateur de Vigie.",
      '',
      "— L'équipe Vigie",
    ].join('\n'),
  };
}

export class EmailChangeService {
  constructor(
    private readonly repo: AccountsRepository,
    private readonly mailer: Mailer,
  ) {}

  close(): void {
    this.mailer.close();
  }

  /** Whether another account already answers to this address (a 409 before the password is even asked). */
  taken(user: UserRow, email: string): Promise<boolean> {
    return this.repo.loginTaken(email, user.id);
  }

  /** True when `password` is the account's current one. */
  passwordMatches(user: UserRow, password: string): Promise<boolean> {
    return verifyPassword(password, user.passwordHash);
  }

  /** Records the pending change and mails its link to the new address (earlier pending links stop working). */
  async request(user: UserRow, newEmail: string): Promise<void> {
    const token = randomBytes(32).toString('base64url');
    await this.repo.addEmailChange(user.id, digest(token), newEmail, new Date(Date.now() + CHANGE_TTL_MS));
    const link = this.mailer.link(`/confirm-email?token=${token}`);
    await this.mailer.send({ to: newEmail, ...confirmationMail(user.firstName || user.username, newEmail, link) });
  }

  /** Spends the token on the new address; answers the account as it now is and its previous address. */
  async confirm(rawToken: string): Promise<{ user: UserRow; previousEmail: string }> {
    const token = rawToken.trim();
    const tokenHash = digest(token);
    const pending = TOKEN_RE.test(token) ? await this.repo.emailChangeOf(tokenHash) : undefined;
    if (!pending) throw invalidEmailLink();
    const { user, newEmail } = pending;
    if (await this.repo.loginTaken(newEmail, user.id)) throw duplicateEmail();
    let updated: UserRow | undefined;
    try {
      updated = await this.repo.confirmEmailChange(tokenHash, user.id, newEmail);
    } catch (err) {
      if (uniqueViolation(err) === 'email') throw duplicateEmail();
      throw err;
    }
    if (!updated) throw invalidEmailLink();
    return { user: updated, previousEmail: user.email };
  }

  /** Tells the previous address that the account moved (its owner may not have asked for it). */
  async notifyPrevious(user: UserRow, previousEmail: string): Promise<void> {
    await this.mailer.send({ to: previousEmail, ...changedMail(user.firstName || user.username, user.email) });
  }
}
