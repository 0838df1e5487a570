import type { FastifyRequest } from 'fastify';
import type { TProperties } from 'typebox';
import { ApiError } from '../../../domain/errors.ts';
import { Type } from '../../../schemas/common.ts';
import { fieldMessages, type SchemaError } from '../../../schemas/validation-messages.ts';
import { passwordProblems, type PasswordRules } from '../../../services/security-policies.ts';

/** Field name → French messages, the `fields` member of a 400 answer. */
export type FieldErrors = Record<string, string[]>;

export const MESSAGES = {
  usernameRequired: "Nom d'utilisateur requis",
  usernameFormat: '3 à 150 caractères : lettres, chiffres et @ . + - _ uniquement.',
  usernameTaken: 'Un utilisateur portant ce nom existe déjà.',
  emailRequired: 'Email requis',
  emailFormat: 'Adresse email invalide.',
  emailTaken: 'Un compte avec cet email existe déjà',
  passwordRequired: 'Mot de passe requis',
  passwordMismatch: 'Les mots de passe ne correspondent pas',
  wrongCurrentPassword: 'Mot de passe actuel incorrect.',
  invalidOtp: 'Code de vérification invalide.',
} as const;

// The username rule of the original product (Django's default validator, ASCII letters).
const USERNAME_RE = /^[\w.@+-]{3,150}$/;
// Deliberately simple: one @, no spaces, a dot in the domain. Deliverability is proven by the mail itself.
const EMAIL_RE = /^[^\s@]+@[^\s@.]+(?:\.[^\s@.]+)+$/;

export function addError(fields: FieldErrors, field: string, message: string): void {
  (fields[field] ??= []).push(message);
}

export function checkUsername(fields: FieldErrors, username: string): void {
  if (username === '') addError(fields, 'username', MESSAGES.usernameRequired);
  else if (!USERNAME_RE.test(username)) addError(fields, 'username', MESSAGES.usernameFormat);
}

export function checkEmail(fields: FieldErrors, email: string): void {
  if (email === '') addError(fields, 'email', MESSAGES.emailRequired);
  else if (email.length > 254 || !EMAIL_RE.test(email)) addError(fields, 'email', MESSAGES.emailFormat);
}

/** Required, then the security policy's length and complexity (one shared check for every password set). */
export function checkPassword(fields: FieldErrors, field: string, password: string, rules: PasswordRules): void {
  if (password === '') addError(fields, field, MESSAGES.passwordRequired);
  else for (const problem of passwordProblems(password, rules)) addError(fields, field, problem);
}

/** The same check for a password set on its own: the 400's detail is the first problem found. */
export function assertPassword(field: string, password: string, rules: PasswordRules): void {
  const fields: FieldErrors = {};
  checkPassword(fields, field, password, rules);
  throwIfAny(fields);
}

/** Trimmed text, with the domain part of an email lower-cased (the local part may be case-sensitive). */
export function normalizeEmail(raw: string): string {
  const email = raw.trim();
  const at = email.lastIndexOf('@');
  return at < 0 ? email : email.slice(0, at) + email.slice(at).toLowerCase();
}

/** A 400 in the shared shape: {detail, code: 'invalid', fields}. */
export function invalid(detail: string, fields: FieldErrors): ApiError {
  return new ApiError(400, 'invalid', detail, { fields });
}

/** Throws the 400 when any field has a message; the detail is `detail`, else the first message. */
export function throwIfAny(fields: FieldErrors, detail?: string): void {
  const first = Object.values(fields)[0]?.[0];
  if (first !== undefined) throw invalid(detail ?? first, fields);
}

/** For the routes that answer other refusals first (`attachValidation`): the schema's 400, under their `detail`. */
export function assertValidBody(request: FastifyRequest, detail: string): void {
  const failure = request.validationError;
  if (failure) throw invalid(detail, fieldMessages(failure.validation as SchemaError[]));
}

export const duplicateEmail = () => new ApiError(409, 'duplicate_email', MESSAGES.emailTaken);

// Body schemas: types and sizes only; presence and format are checked in code, with the contractual messages.
const WRONG_TYPE = { type: 'Valeur invalide.' };
export const Text = (maxLength: number) => Type.String({ maxLength, errorMessage: WRONG_TYPE });
const NullableText = (maxLength: number) =>
  Type.Unsafe<string | null>({ type: ['string', 'null'], maxLength, errorMessage: WRONG_TYPE });

/** A JSON object with exactly these (optional or required) fields. */
export const Body = <P extends TProperties>(properties: P) =>
  Type.Object(properties, { additionalProperties: false, errorMessage: { type: 'Un objet JSON est attendu.' } });

/** The fields of a new account, shared by registration and admin creation (`role` is accepted and ignored). */
export const ACCOUNT_FIELDS = {
  username: Type.Optional(Text(1024)),
  email: Type.Optional(Text(1024)),
  password: Type.Optional(Text(1024)),
  confirm_password: Type.Optional(NullableText(1024)),
  first_name: Type.Optional(NullableText(150)),
  last_name: Type.Optional(NullableText(150)),
  role: Type.Optional(NullableText(32)),
};

/** A confirmation in French, `{detail}`. */
export const Detail = (description: string) => Type.Object({ detail: Type.String() }, { description });
