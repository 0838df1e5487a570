/** Account creation and the owner's profile changes, with the unique-login rules that go with them. */
import type { MembershipRole } from '../db/schema.ts';
import { hashPassword } from '../lib/password.ts';
import { uniqueViolation, type AccountsRepository, type ProfilePatch } from '../repositories/accounts.ts';
import type { UserRow } from '../repositories/users.ts';
import { duplicateEmail, usernameTaken, type AccountInput } from '../schemas/accounts.ts';

/**
 * Inserts the account: 409 for a taken email, 400 on the username field (under `detail`) for a taken username
 * (spec §8 Register), and the same answers for a concurrent twin that won the race between the checks and the
 * insert.
 */
export async function createAccount(
  repo: AccountsRepository,
  input: AccountInput,
  flags: { isStaff: boolean; isSuperuser: boolean },
  membership: { tenantId: string; role: MembershipRole } | undefined,
  detail: string,
): Promise<UserRow> {
  if (await repo.loginTaken(input.email)) throw duplicateEmail();
  if (await repo.loginTaken(input.username)) throw usernameTaken(detail);
  const { username, email, firstName, lastName } = input;
  const passwordHash = await hashPassword(input.password);
  try {
    return await repo.create({ username, email, firstName, lastName, passwordHash, ...flags }, membership);
  } catch (err) {
    const column = uniqueViolation(err);
    if (column === 'email') throw duplicateEmail();
    if (column === 'username') throw usernameTaken(detail);
    throw err;
  }
}

/**
 * Applies the owner's changes: an unchanged email is left out, another account's answers 409. Returns the
 * updated account, or undefined when nothing changed.
 */
export async function updateProfile(
  repo: AccountsRepository,
  user: UserRow,
  patch: ProfilePatch,
): Promise<UserRow | undefined> {
  const { email, ...names } = patch;
  const changes: ProfilePatch = names;
  if (email !== undefined && email !== user.email) {
    if (await repo.loginTaken(email, user.id)) throw duplicateEmail();
    changes.email = email;
  }
  if (Object.keys(changes).length === 0) return undefined;
  try {
    return await repo.updateProfile(user.id, changes);
  } catch (err) {
    if (uniqueViolation(err) === 'email') throw duplicateEmail();
    throw err;
  }
}
