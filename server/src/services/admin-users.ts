/**
 * The account administration's writes (docs/api-admin.md "Users", spec §6): who may hand out the platform flags,
 * what an admin may not do to their own account or to an account shared with other tenants, and the username and
 * email that must stay unique across the platform.
 */
import type { TenantDb, TenantId } from '../db/tenant-scope.ts';
import { ApiError, notFound } from '../domain/errors.ts';
import { hashPassword } from '../lib/password.ts';
import { canAdministerAccount, canChangePlatformFlags, canEditAccountFields, type Actor } from '../policies/index.ts';
import {
  uniqueViolation,
  type AccountChanges,
  type PlatformAccounts,
  type TenantUserRow,
  type TenantUsersRepository,
} from '../repositories/tenant-users.ts';
import { snakeCase } from '../schemas/admin/common.ts';
import { MESSAGES, type ValidCreate, type ValidPatch } from '../schemas/admin/users.ts';

const FLAGS_REFUSED = 'Attribution des droits superutilisateur ou staff refusée';

const duplicateEmail = () => new ApiError(409, 'duplicate_email', MESSAGES.emailTaken);
const duplicateUsername = () =>
  new ApiError(400, 'duplicate_username', MESSAGES.usernameTaken, { fields: { username: [MESSAGES.usernameTaken] } });

/** An admin may not demote or deactivate themselves (here and in the model administration). */
export const selfChange = () => new ApiError(400, 'self_change', MESSAGES.selfChange);

/** What one request's administration works with: the actor, their tenant, and both connections. */
export interface MemberAdmin {
  actor: Actor;
  tenantId: TenantId;
  accounts: PlatformAccounts;
  members: TenantUsersRepository;
  tenantDb: <T>(fn: (tx: TenantDb) => Promise<T>) => Promise<T>;
  /** The audited 403, its audit line worded `description`. */
  deny: (description: string) => Promise<never>;
}

/** A new member of the tenant, with a new account. */
export async function createMember(admin: MemberAdmin, input: ValidCreate): Promise<TenantUserRow> {
  // spec §6: role admin (or superuser) means both flags; only a superuser hands out platform flags.
  let isSuperuser = false;
  let isStaff = false;
  if (canChangePlatformFlags(admin.actor)) {
    isSuperuser = input.isSuperuser ?? input.role === 'admin';
    isStaff = isSuperuser || (input.isStaff ?? input.role === 'admin');
  } else if (input.isSuperuser || input.isStaff) {
    await admin.deny(FLAGS_REFUSED);
  }

  // Answers only "taken" whichever tenant holds the account, never where.
  const taken = await admin.accounts.taken({ username: input.username, email: input.email });
  if (taken.username) throw duplicateUsername();
  if (taken.email) throw duplicateEmail();

  const { username, email, firstName, lastName, isActive } = input;
  const account = { username, email, firstName, lastName, isActive, isStaff, isSuperuser };
  try {
    const passwordHash = await hashPassword(input.password);
    return await admin.accounts.createMember(admin.tenantId, { ...account, passwordHash }, input.role);
  } catch (err) {
    // A concurrent creation won the race between the check and the insert.
    const constraint = uniqueViolation(err);
    if (constraint === undefined) throw err;
    throw constraint.includes('email') ? duplicateEmail() : duplicateUsername();
  }
}

/** Applies a patch to a member; answers the member as saved and the API names of what changed. */
export async function updateMember(
  admin: MemberAdmin,
  target: TenantUserRow,
  input: ValidPatch,
): Promise<{ updated: TenantUserRow; changed: string[] }> {
  const { actor, accounts, members } = admin;
  const self = target.id === actor.userId;
  if (!canAdministerAccount(actor, target)) {
    await admin.deny(`Modification refusée : ${target.username} est superutilisateur`);
  }

  let isSuperuser = target.isSuperuser;
  let isStaff = target.isStaff;
  if (canChangePlatformFlags(actor)) {
    // spec §6: a role update sets both flags, true for admin and false otherwise, unless given explicitly.
    if (input.role !== undefined) isSuperuser = isStaff = input.role === 'admin';
    if (input.isSuperuser !== undefined) isSuperuser = input.isSuperuser;
    if (input.isStaff !== undefined) isStaff = input.isStaff;
    if (isSuperuser) isStaff = true;
  } else if (
    (input.isSuperuser !== undefined && input.isSuperuser !== target.isSuperuser) ||
    (input.isStaff !== undefined && input.isStaff !== target.isStaff)
  ) {
    await admin.deny(FLAGS_REFUSED);
  }

  // The actor is an admin here (the guard said so): any other role would be a demotion.
  const demotion = (input.role !== undefined && input.role !== 'admin') || input.isActive === false;
  if (self && (demotion || (target.isSuperuser && !isSuperuser) || (target.isStaff && !isStaff))) {
    throw selfChange();
  }

  const changes: AccountChanges = {};
  for (const key of ['firstName', 'lastName', 'email', 'isActive'] as const) {
    if (input[key] !== undefined && input[key] !== target[key]) Object.assign(changes, { [key]: input[key] });
  }

  if (
    !self &&
    Object.keys(changes).length > 0 &&
    !canEditAccountFields(
      actor,
      target,
      !actor.isSuperuser && (await accounts.belongsElsewhere(target.id, admin.tenantId)),
    )
  ) {
    await admin.deny(`Modification refusée : le compte ${target.username} dépasse l'organisation`);
  }
  if (changes.email !== undefined && (await accounts.taken({ email: changes.email }, target.id)).email) {
    throw duplicateEmail();
  }

  if (isSuperuser !== target.isSuperuser) changes.isSuperuser = isSuperuser;
  if (isStaff !== target.isStaff) changes.isStaff = isStaff;
  const newRole = input.role !== target.role ? input.role : undefined;

  let updated: TenantUserRow | undefined;
  try {
    updated = await admin.tenantDb(async (tx) => {
      await members.updateAccount(tx, target.id, changes);
      if (newRole) await members.setRole(tx, target.id, newRole);
      return members.findMember(tx, target.id);
    });
  } catch (err) {
    if (uniqueViolation(err) !== undefined) throw duplicateEmail();
    throw err;
  }
  if (!updated) throw notFound();
  return { updated, changed: [...Object.keys(changes).map(snakeCase), ...(newRole ? ['role'] : [])] };
}

/** Removes a member from the tenant; answers whether the account itself was deleted. */
export async function removeMember(admin: MemberAdmin, target: TenantUserRow): Promise<boolean> {
  if (!canAdministerAccount(admin.actor, target)) {
    await admin.deny(`Suppression refusée : ${target.username} est superutilisateur`);
  }
  const removed = await admin.tenantDb((tx) => admin.members.removeMembership(tx, target.id));
  if (!removed) throw notFound();
  // Only a superuser may delete the account itself, and only once no tenant holds it.
  return admin.actor.isSuperuser ? admin.accounts.deleteIfOrphan(target.id) : false;
}
