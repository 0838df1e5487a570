import type { FastifyRequest, FastifySchemaValidationError } from 'fastify';
import { ApiError } from '../../../domain/errors.ts';
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
  passwordTooShort: (n: number) => `Le mot de passe doit contenir au moins ${n} caractères`,
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

/** Trimmed text, with the domain part of an email lower-cased (the local part may be case-sensitive). */
export function normalizeEmail(raw: string): string {
  const email = raw.trim();
  const at = email.lastIndexOf('@');
  return at < 0 ? email : email.slice(0, at) + email.slice(at).toLowerCase();
}

/**
 * French field messages for a body the JSON schema refused, for the routes that answer their own
 * contractual `detail` instead of the generic one (they use `attachValidation`).
 */
export function schemaFieldErrors(errors: FastifySchemaValidationError[]): FieldErrors {
  const fields: FieldErrors = {};
  for (const e of errors) {
    const params = e.params as { additionalProperty?: string; missingProperty?: string; limit?: number };
    const field =
      params.additionalProperty ??
      params.missingProperty ??
      (e.instancePath.replace(/^\//, '').split('/')[0] || 'non_field_errors');
    const message =
      e.keyword === 'additionalProperties'
        ? 'Champ non autorisé.'
        : e.keyword === 'required'
          ? 'Ce champ est obligatoire.'
          : e.keyword === 'maxLength'
            ? `Au plus ${params.limit} caractères.`
            : e.keyword === 'type' && field === 'non_field_errors'
              ? 'Un objet JSON est attendu.'
              : 'Valeur invalide.';
    addError(fields, field, message);
  }
  return fields;
}

/** Whether any field has a message. */
export function hasErrors(fields: FieldErrors): boolean {
  return Object.keys(fields).length > 0;
}

/** A 400 in the shared shape: {detail, code: 'invalid', fields}. */
export function invalid(detail: string, fields: FieldErrors): ApiError {
  return new ApiError(400, 'invalid', detail, { fields });
}

/** For routes declared with `attachValidation`: turns a schema failure into a 400 with French messages. */
export function assertValidBody(request: FastifyRequest, detail = 'Données invalides.'): void {
  const failure = request.validationError;
  if (failure) throw invalid(detail, schemaFieldErrors(failure.validation as FastifySchemaValidationError[]));
}

export const duplicateEmail = () => new ApiError(409, 'duplicate_email', MESSAGES.emailTaken);

/** JSON-schema types of the account fields shared by registration and admin creation (messages come from the handlers). */
export const ACCOUNT_FIELD_SCHEMAS = {
  username: { type: 'string', maxLength: 1024 },
  email: { type: 'string', maxLength: 1024 },
  password: { type: 'string', maxLength: 1024 },
  confirm_password: { type: ['string', 'null'], maxLength: 1024 },
  first_name: { type: ['string', 'null'], maxLength: 150 },
  last_name: { type: ['string', 'null'], maxLength: 150 },
} as const;
