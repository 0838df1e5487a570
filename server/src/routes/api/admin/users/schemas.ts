import { MEMBERSHIP_ROLES, type MembershipRole } from '../../../../db/schema.ts';
import { FieldErrors } from '../../../../domain/errors.ts';
import { passwordProblems, type PasswordRules } from '../../../../services/security-policies.ts';

// The JSON schemas fix the types and a generous size cap; requiredness and the real limits are
// checked in code so that every message the form shows is French.

export interface ListQuery {
  page?: string;
  page_size?: string;
  search?: string;
}

// No additionalProperties:false: clients add cache-busting parameters to GETs.
export const listQuery = {
  type: 'object',
  properties: {
    page: { type: 'string' },
    page_size: { type: 'string' },
    search: { type: 'string' },
  },
} as const;

export interface IdParams {
  id: string;
}

export const idParams = {
  type: 'object',
  required: ['id'],
  properties: { id: { type: 'string' } },
} as const;

export interface CreateBody {
  username?: string;
  email?: string;
  password?: string;
  confirm_password?: string;
  first_name?: string;
  last_name?: string;
  role?: string;
  is_active?: boolean;
  is_staff?: boolean;
  is_superuser?: boolean;
}

export const createBody = {
  type: 'object',
  additionalProperties: false,
  properties: {
    username: { type: 'string', maxLength: 4096 },
    email: { type: 'string', maxLength: 4096 },
    password: { type: 'string', maxLength: 4096 },
    confirm_password: { type: 'string', maxLength: 4096 },
    first_name: { type: 'string', maxLength: 4096 },
    last_name: { type: 'string', maxLength: 4096 },
    role: { type: 'string', maxLength: 32 },
    is_active: { type: 'boolean' },
    // Accepted because the client's role form sends them; only a superuser may set them true.
    is_staff: { type: 'boolean' },
    is_superuser: { type: 'boolean' },
  },
} as const;

export interface PatchBody {
  first_name?: string;
  last_name?: string;
  email?: string;
  is_active?: boolean;
  role?: string;
  is_staff?: boolean;
  is_superuser?: boolean;
}

export const patchBody = {
  type: 'object',
  additionalProperties: false,
  properties: {
    first_name: { type: 'string', maxLength: 4096 },
    last_name: { type: 'string', maxLength: 4096 },
    email: { type: 'string', maxLength: 4096 },
    is_active: { type: 'boolean' },
    role: { type: 'string', maxLength: 32 },
    is_staff: { type: 'boolean' },
    is_superuser: { type: 'boolean' },
  },
} as const;

export const MAX_PAGE_SIZE = 100;
export const DEFAULT_PAGE_SIZE = 10;
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
  passwordTooShort: (n: number) => `Le mot de passe doit contenir au moins ${n} caractères`,
  passwordTooLong: `Le mot de passe ne doit pas dépasser ${MAX_PASSWORD} caractères.`,
  passwordMismatch: 'Les mots de passe ne correspondent pas.',
  firstNameTooLong: `Le prénom ne doit pas dépasser ${MAX_NAME} caractères.`,
  lastNameTooLong: `Le nom ne doit pas dépasser ${MAX_NAME} caractères.`,
  roleInvalid: `Rôle invalide. Valeurs possibles : ${MEMBERSHIP_ROLES.join(', ')}.`,
  pageInvalid: 'Numéro de page invalide : un entier supérieur ou égal à 1 est attendu.',
  pageSizeInvalid: `Taille de page invalide : un entier entre 1 et ${MAX_PAGE_SIZE} est attendu.`,
  searchTooLong: `La recherche ne doit pas dépasser ${MAX_SEARCH} caractères.`,
} as const;

const USERNAME_RE = /^[\p{L}\p{N}_.@+-]+$/u;
// Deliberately loose: one @, no spaces, a dot in the domain. Deliverability is the mail server's job.
const EMAIL_RE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export function isRole(value: string): value is MembershipRole {
  return (MEMBERSHIP_ROLES as readonly string[]).includes(value);
}

/** Trims and lowercases the domain part (the local part is the mailbox owner's business). */
export function normaliseEmail(raw: string): string {
  const email = raw.trim();
  const at = email.lastIndexOf('@');
  return at < 0 ? email : email.slice(0, at) + email.slice(at).toLowerCase();
}

export function checkEmail(errors: FieldErrors, email: string): void {
  if (email === '') errors.add('email', MESSAGES.emailRequired);
  else if (email.length > MAX_EMAIL || !EMAIL_RE.test(email)) errors.add('email', MESSAGES.emailInvalid);
}

export function checkNames(errors: FieldErrors, first: string | undefined, last: string | undefined): void {
  if (first !== undefined && first.length > MAX_NAME) errors.add('first_name', MESSAGES.firstNameTooLong);
  if (last !== undefined && last.length > MAX_NAME) errors.add('last_name', MESSAGES.lastNameTooLong);
}

export function checkRole(errors: FieldErrors, role: string | undefined): MembershipRole | undefined {
  if (role === undefined) return undefined;
  if (isRole(role)) return role;
  errors.add('role', MESSAGES.roleInvalid);
  return undefined;
}

export interface ValidCreate {
  username: string;
  email: string;
  password: string;
  firstName: string;
  lastName: string;
  role: MembershipRole;
  isActive: boolean;
  isStaff: boolean | undefined;
  isSuperuser: boolean | undefined;
}

export function validateCreate(body: CreateBody, passwordRules: PasswordRules): ValidCreate {
  const errors = new FieldErrors();
  const username = (body.username ?? '').trim();
  if (username === '') errors.add('username', MESSAGES.usernameRequired);
  else if (username.length > MAX_NAME) errors.add('username', MESSAGES.usernameTooLong);
  else if (!USERNAME_RE.test(username)) errors.add('username', MESSAGES.usernameChars);

  const email = normaliseEmail(body.email ?? '');
  checkEmail(errors, email);

  const password = body.password ?? '';
  const problems = password === '' ? [] : passwordProblems(password, passwordRules);
  if (password === '') errors.add('password', MESSAGES.passwordRequired);
  else if (password.length > MAX_PASSWORD) errors.add('password', MESSAGES.passwordTooLong);
  else for (const problem of problems) errors.add('password', problem);
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

export interface ValidPage {
  page: number;
  pageSize: number;
  search: string;
}

function positiveInt(raw: string | undefined, fallback: number): number | undefined {
  if (raw === undefined || raw.trim() === '') return fallback;
  if (!/^\d{1,9}$/.test(raw.trim())) return undefined;
  const n = Number(raw.trim());
  return n >= 1 ? n : undefined;
}

export function validateListQuery(query: ListQuery): ValidPage {
  const errors = new FieldErrors();
  const page = positiveInt(query.page, 1);
  if (page === undefined) errors.add('page', MESSAGES.pageInvalid);
  const pageSize = positiveInt(query.page_size, DEFAULT_PAGE_SIZE);
  if (pageSize === undefined || pageSize > MAX_PAGE_SIZE) errors.add('page_size', MESSAGES.pageSizeInvalid);
  const search = (query.search ?? '').trim();
  if (search.length > MAX_SEARCH) errors.add('search', MESSAGES.searchTooLong);
  errors.throwIfAny();
  return { page: page!, pageSize: pageSize!, search };
}

/** Ids are positive integers; anything else is simply not found (never a 400 that hints at the format). */
export function parseUserId(raw: string): number | undefined {
  return /^[1-9]\d{0,9}$/.test(raw) && Number(raw) <= 2 ** 31 - 1 ? Number(raw) : undefined;
}
