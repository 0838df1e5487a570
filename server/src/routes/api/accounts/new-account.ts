import type { MembershipRole } from '../../../db/schema.ts';
import { uniqueViolation, type AccountsRepository, type NewAccount } from '../../../repositories/accounts.ts';
import type { UserRow } from '../../../repositories/users.ts';
import { duplicateEmail, invalid, MESSAGES } from './validation.ts';

/** 409 for a taken email, 400 on the username field for a taken username (§8 Register). */
export async function assertAvailable(
  repo: AccountsRepository,
  username: string,
  email: string,
  detail: string,
): Promise<void> {
  if (await repo.loginTaken(email)) throw duplicateEmail();
  if (await repo.loginTaken(username)) throw invalid(detail, { username: [MESSAGES.usernameTaken] });
}

/** Inserts the account; a concurrent twin that won the race gets the same answers as the checks above. */
export async function insertAccount(
  repo: AccountsRepository,
  account: NewAccount,
  membership: { tenantId: string; role: MembershipRole } | undefined,
  detail: string,
): Promise<UserRow> {
  try {
    return await repo.create(account, membership);
  } catch (err) {
    const column = uniqueViolation(err);
    if (column === 'email') throw duplicateEmail();
    if (column === 'username') throw invalid(detail, { username: [MESSAGES.usernameTaken] });
    throw err;
  }
}
