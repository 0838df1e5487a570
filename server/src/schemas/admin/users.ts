/** The account administration's input (docs/api-admin.md "Users"): list query, create and patch bodies. */
import { MEMBERSHIP_ROLES, type MembershipRole } from '../../db/schema.ts';
import { charCount } from '../../../../contract/text.ts';
import { FieldErrors } from '../../domain/errors.ts';
import { passwordProblems, type PasswordRules } from '../../domain/security-policy.ts';
import { pagedResponse } from '../../presenters/paged.ts';
import { ListQuery, Type, type Static } from '../common.ts';
import { parsePaging, parseText } from '../query.ts';
import { EMAIL_RE, normaliseEmail } from './common.ts';

// The schemas fix the types and a generous size cap; requiredness and the real limits are checked in code so that
// every message the form shows is French.

/** GETs accept unknown keys: clients add cache-busting parameters. */
export const listQuery = ListQuery({ search: 'Recherche dans le nom d’utilisateur, l’email, le prénom et le nom' });
export type UsersQuery = Static<typeof listQuery>;

const text = Type.String({ maxLength: 4096 });
const fields = {
  email: Type.Optional(text),
  first_name: Type.Optional(text),
  last_name: Type.Optional(text),
  is_active: Type.Optional(Type.Boolean()),
  role: Type.Optional(Type.String({ maxLength: 32, description: `Rôle : ${MEMBERSHIP_ROLES.join(', ')}` })),
  // Accepted because the client's role form sends them; only a superuser may set them true.
  is_staff: Type.Optional(Type.Boolean()),
  is_superuser: Type.Optional(Type.Boolean()),
};

export const createBody = Type.Object(
  { username: Type.Optional(text), password: Type.Optional(text), confirm_password: Type.Optional(text), ...fields },
  { additionalProperties: false },
);
type CreateBody = Static<typeof createBody>;

export const patchBody = Type.Object(fields, { additionalProperties: false });
type PatchBody = Static<typeof patchBody>;

const MAX_PAGE_SIZE = 100;
const DEFAULT_PAGE_SIZE = 10;
const MAX_NAME = 150;
const MAX_EMAIL = 254;
const MAX_PASSWORD = 1024;
const MAX_SEARCH = 150;

export const MESSAGES = {
  usernameRequired: "Nom d'utilisateur requis",
  usernameTooLong: `Le nom d'utilisateur ne doit pas dépasser ${MAX_NAME} caractères.`,
  usernameChars: "Le nom d'utilisateur ne peut contenir que des lettres, des chiffres et les caractères @ . + - _",
  usernameTaken: "Un utilisateur avec ce nom d'utilisateur existe déjà.",
  emailRequired: 'Email requis',
  emailInvalid: 'Adresse email invalide.',
  emailTaken: 'Un compte avec cet email existe déjà',
  passwordRequired: 'Mot de passe requis',
  passwordTooLong: `Le mot de passe ne doit pas dépasser ${MAX_PASSWORD} caractères.`,
  passwordMismatch: 'Les mots de passe ne correspondent pas.',
  firstNameTooLong: `Le prénom ne doit pas dépasser ${MAX_NAME} caractères.`,
  lastNameTooLong: `Le nom ne doit pas dépasser ${MAX_NAME} caractères.`,
  roleInvalid: `Rôle invalide. Valeurs possibles : ${MEMBERSHIP_ROLES.join(', ')}.`,
  selfChange: 'Vous ne pouvez pas modifier votre propre rôle ou désactiver votre propre compte.',
  selfDelete: 'Vous ne pouvez pas supprimer votre propre compte.',
} as const;

const USERNAME_RE = /^[\p{L}\p{N}_.@+-]+$/u;

function checkEmail(errors: FieldErrors, email: string): void {
  if (email === '') errors.add('email', MESSAGES.emailRequired);
  else if (charCount(email) > MAX_EMAIL || !EMAIL_RE.test(email)) errors.add('email', MESSAGES.emailInvalid);
}

function checkNames(errors: FieldErrors, first: string | undefined, last: string | undefined): void {
  if (first !== undefined && charCount(first) > MAX_NAME) errors.add('first_name', MESSAGES.firstNameTooLong);
  if (last !== undefined && charCount(last) > MAX_NAME) errors.add('last_name', MESSAGES.lastNameTooLong);
}

function checkRole(errors: FieldErrors, role: string | undefined): MembershipRole | undefined {
  if (role === undefined) return undefined;
  if ((MEMBERSHIP_ROLES as readonly string[]).includes(role)) return role as MembershipRole;
  errors.add('role', MESSAGES.roleInvalid);
  return undefined;
}

export function validateCreate(body: CreateBody, passwordRules: PasswordRules) {
  const errors = new FieldErrors();
  const username = (body.username ?? '').trim();
  if (username === '') errors.add('username', MESSAGES.usernameRequired);
  else if (charCount(username) > MAX_NAME) errors.add('username', MESSAGES.usernameTooLong);
  else if (!USERNAME_RE.test(username)) errors.add('username', MESSAGES.usernameChars);

  const email = normaliseEmail(body.email ?? '');
  checkEmail(errors, email);

  const password = body.password ?? '';
  if (password === '') errors.add('password', MESSAGES.passwordRequired);
  else if (charCount(password) > MAX_PASSWORD) errors.add('password', MESSAGES.passwordTooLong);
  else for (const problem of passwordProblems(password, passwordRules)) errors.add('password', problem);
  if (body.confirm_password !== undefined && body.confirm_password !== password) {
    errors.add('confirm_password', MESSAGES.passwordMismatch);
  }

  const firstName = body.first_name?.trim() ?? '';
  const lastName = body.last_name?.trim() ?? '';
  checkNames(errors, firstName, lastName);
  const role = checkRole(errors, body.role) ?? 'user';
  errors.throwIfAny();
  return {
    username,
    email,
    password,
    firstName,
    lastName,
    role,
    isActive: body.is_active ?? true,
    isStaff: body.is_staff,
    isSuperuser: body.is_superuser,
  };
}
export type ValidCreate = ReturnType<typeof validateCreate>;

export interface ValidPatch {
  firstName?: string;
  lastName?: string;
  email?: string;
  isActive?: boolean;
  role?: MembershipRole;
  isStaff?: boolean;
  isSuperuser?: boolean;
}

export function validatePatch(body: PatchBody): ValidPatch {
  const errors = new FieldErrors();
  const out: ValidPatch = {};
  if (body.first_name !== undefined) out.firstName = body.first_name.trim();
  if (body.last_name !== undefined) out.lastName = body.last_name.trim();
  checkNames(errors, out.firstName, out.lastName);
  if (body.email !== undefined) {
    out.email = normaliseEmail(body.email);
    checkEmail(errors, out.email);
  }
  const role = checkRole(errors, body.role);
  if (role) out.role = role;
  if (body.is_active !== undefined) out.isActive = body.is_active;
  if (body.is_staff !== undefined) out.isStaff = body.is_staff;
  if (body.is_superuser !== undefined) out.isSuperuser = body.is_superuser;
  errors.throwIfAny();
  return out;
}

interface UsersList {
  page: number;
  pageSize: number;
  search: string;
}

/** page (≥ 1), page_size (1–100, default 10), search (≤ 150 characters). */
export function validateListQuery(query: UsersQuery): UsersList {
  const errors = new FieldErrors();
  const { page, pageSize } = parsePaging(errors, query, MAX_PAGE_SIZE);
  const search = parseText(errors, query, 'search', MAX_SEARCH) ?? '';
  errors.throwIfAny();
  return { page, pageSize: query.page_size?.trim() ? pageSize : DEFAULT_PAGE_SIZE, search };
}

/** The list's reply; its links name the page first, then the page size and the search, as the client expects. */
export function usersPage<T>(path: string, query: UsersQuery, list: UsersList, count: number, results: T[]) {
  const rest = new URLSearchParams();
  if (query.page_size !== undefined) rest.set('page_size', query.page_size.trim());
  if (list.search !== '') rest.set('search', list.search);
  const tail = rest.size > 0 ? `&${rest.toString()}` : '';
  const paged = pagedResponse(path, {}, [], list, count, results);
  return { ...paged, next: paged.next && paged.next + tail, previous: paged.previous && paged.previous + tail };
}

/** Ids are positive integers; anything else is simply not found (never a 400 that hints at the format). */
export function parseUserId(raw: string): number | undefined {
  return /^[1-9]\d{0,9}$/.test(raw) && Number(raw) <= 2 ** 31 - 1 ? Number(raw) : undefined;
}
