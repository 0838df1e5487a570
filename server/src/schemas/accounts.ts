/**
 * Self-service account bodies (registration, admin creation, own profile, password, second factor) and their
 * checks. The schemas check types and sizes only; presence and format are checked here, with the contractual
 * French messages.
 */
import type { TProperties } from 'typebox';
import { charCount } from '../../../contract/text.ts';
import { ApiError } from '../domain/errors.ts';
import { passwordProblems, type PasswordRules } from '../domain/security-policy.ts';
import { ProfileSchema } from '../presenters/user.ts';
import type { ProfilePatch } from '../repositories/accounts.ts';
import { Nullable, Type, type Static } from './common.ts';
import { fieldMessages, type SchemaError } from './validation-messages.ts';

/** Field name → French messages, the `fields` member of a 400 answer. */
type FieldMessages = Record<string, string[]>;

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
  registerInvalid: "Données d'inscription invalides",
  adminInvalid: 'Données invalides.',
  required: 'Tous les champs requis doivent être remplis',
  resetSent: 'Si un compte correspond à cet email, un message de réinitialisation a été envoyé.',
  credentialRequired: 'Code de vérification ou mot de passe requis.',
  currentPasswordRequired: 'Saisissez votre mot de passe actuel pour changer d’adresse e-mail.',
  emailChangeSent: (email: string) =>
    `Un lien de confirmation a été envoyé à ${email}. L’adresse sera changée une fois ce lien ouvert.`,
  emailConfirmed: 'Adresse e-mail confirmée.',
  emailLinkInvalid: 'Lien de confirmation invalide ou expiré.',
} as const;

// The username rule of the original product (Django's default validator, ASCII letters).
const USERNAME_RE = /^[\w.@+-]{3,150}$/;
// Deliberately simple: one @, no spaces, a dot in the domain. Deliverability is proven by the mail itself.
const EMAIL_RE = /^[^\s@]+@[^\s@.]+(?:\.[^\s@.]+)+$/;
const ADMIN_MIN_PASSWORD = 8;

function addError(fields: FieldMessages, field: string, message: string): void {
  (fields[field] ??= []).push(message);
}

function checkUsername(fields: FieldMessages, username: string): void {
  if (username === '') addError(fields, 'username', MESSAGES.usernameRequired);
  else if (!USERNAME_RE.test(username)) addError(fields, 'username', MESSAGES.usernameFormat);
}

function checkEmail(fields: FieldMessages, email: string): void {
  if (email === '') addError(fields, 'email', MESSAGES.emailRequired);
  else if (charCount(email) > 254 || !EMAIL_RE.test(email)) addError(fields, 'email', MESSAGES.emailFormat);
}

/** Required, then the security policy's length and complexity (one shared check for every password set). */
function checkPassword(fields: FieldMessages, field: string, password: string, rules: PasswordRules): void {
  if (password === '') addError(fields, field, MESSAGES.passwordRequired);
  else for (const problem of passwordProblems(password, rules)) addError(fields, field, problem);
}

/** The same check for a password set on its own: the 400's detail is the first problem found. */
export function assertPassword(field: string, password: string, rules: PasswordRules): void {
  const fields: FieldMessages = {};
  checkPassword(fields, field, password, rules);
  throwIfAny(fields);
}

/** Trimmed text, with the domain part of an email lower-cased (the local part may be case-sensitive). */
function normalizeEmail(raw: string): string {
  const email = raw.trim();
  const at = email.lastIndexOf('@');
  return at < 0 ? email : email.slice(0, at) + email.slice(at).toLowerCase();
}

/** A 400 in the shared shape: {detail, code: 'invalid', fields}. */
function invalidFields(detail: string, fields: FieldMessages): ApiError {
  return new ApiError(400, 'invalid', detail, { fields });
}

/** Throws the 400 when any field has a message; the detail is `detail`, else the first message. */
function throwIfAny(fields: FieldMessages, detail?: string): void {
  const first = Object.values(fields)[0]?.[0];
  if (first !== undefined) throw invalidFields(detail ?? first, fields);
}

/** For the routes that answer other refusals first (`attachValidation`): the schema's 400, under their `detail`. */
export function assertValidBody(failure: { validation: unknown } | undefined, detail: string): void {
  if (failure) throw invalidFields(detail, fieldMessages(failure.validation as SchemaError[]));
}

export const duplicateEmail = () => new ApiError(409, 'duplicate_email', MESSAGES.emailTaken);
export const usernameTaken = (detail: string) => invalidFields(detail, { username: [MESSAGES.usernameTaken] });
/** The current password given to change the password (`old_password`) or the e-mail (`current_password`) is wrong. */
export const wrongCurrentPassword = (field: 'old_password' | 'current_password' = 'old_password') =>
  new ApiError(400, 'invalid_password', MESSAGES.wrongCurrentPassword, {
    fields: { [field]: [MESSAGES.wrongCurrentPassword] },
  });
export const currentPasswordRequired = () =>
  invalidFields(MESSAGES.currentPasswordRequired, { current_password: [MESSAGES.currentPasswordRequired] });
export const invalidEmailLink = () => new ApiError(400, 'invalid_token', MESSAGES.emailLinkInvalid);
export const invalidResetToken = () =>
  new ApiError(400, 'invalid_token', 'Lien de réinitialisation invalide ou expiré.');
export const invalidOtp = () =>
  new ApiError(400, 'invalid_otp', MESSAGES.invalidOtp, { fields: { token: [MESSAGES.invalidOtp] } });
export const twoFactorAlreadyEnabled = () =>
  new ApiError(400, 'already_enabled', 'La double authentification est déjà activée.');
export const twoFactorNotStarted = () =>
  new ApiError(400, 'not_started', "Activez d'abord la double authentification.");
export const twoFactorNotEnabled = () =>
  new ApiError(400, 'not_enabled', "La double authentification n'est pas activée.");
export const wrongPassword = () =>
  new ApiError(400, 'invalid_password', 'Mot de passe incorrect.', {
    fields: { password: ['Mot de passe incorrect.'] },
  });

// Body schemas: types and sizes only; presence and format are checked in code, with the contractual messages.
const WRONG_TYPE = { type: 'Valeur invalide.' };
const Text = (maxLength: number) => Type.String({ maxLength, errorMessage: WRONG_TYPE });
const NullableText = (maxLength: number) =>
  Type.Unsafe<string | null>({ type: ['string', 'null'], maxLength, errorMessage: WRONG_TYPE });

/** A JSON object with exactly these (optional or required) fields. */
const Body = <P extends TProperties>(properties: P) =>
  Type.Object(properties, { additionalProperties: false, errorMessage: { type: 'Un objet JSON est attendu.' } });

/** The fields of a new account, shared by registration and admin creation (`role` is accepted and ignored). */
const ACCOUNT_FIELDS = {
  username: Type.Optional(Text(1024)),
  email: Type.Optional(Text(1024)),
  password: Type.Optional(Text(1024)),
  confirm_password: Type.Optional(NullableText(1024)),
  first_name: Type.Optional(NullableText(150)),
  last_name: Type.Optional(NullableText(150)),
  role: Type.Optional(NullableText(32)),
};

export const RegisterBody = Body(ACCOUNT_FIELDS);
// The client forces is_staff and is_superuser to true (spec §5); they are accepted and the server does the same.
export const AdminBody = Body({
  ...ACCOUNT_FIELDS,
  is_staff: Type.Optional(Type.Boolean()),
  is_superuser: Type.Optional(Type.Boolean()),
});
export const ProfileBody = Body({
  first_name: Type.Optional(Text(150)),
  last_name: Type.Optional(Text(150)),
  email: Type.Optional(Text(1024)),
  // Required (in code) when `email` changes: a stolen session alone must not take the account over.
  current_password: Type.Optional(Text(1024)),
});
export const EmailConfirmBody = Body({ token: Text(256) });
export const ResetBody = Body({ email: Text(1024) });
export const ConfirmBody = Body({ token: Text(256), new_password: Text(1024) });
export const ChangeBody = Body({ old_password: Text(1024), new_password: Text(1024) });
export const VerifyBody = Body({ token: Text(16) });
// The spec's client may post no body at all: that is "no credential", not a malformed request.
export const DisableBody = Nullable(Body({ token: Type.Optional(Text(16)), password: Type.Optional(Text(1024)) }));

/** A confirmation in French, `{detail}`. */
export const Detail = (description: string) => Type.Object({ detail: Type.String() }, { description });
/** PATCH /api/accounts/me/: the profile as it now is, and, when a new e-mail awaits confirmation, what was sent. */
export const ProfileUpdated = Type.Object(
  {
    ...ProfileSchema.properties,
    detail: Type.Optional(Type.String({ description: 'Le lien de confirmation a été envoyé (changement d’e-mail)' })),
    pending_email: Type.Optional(Type.String({ description: 'L’adresse à confirmer (inchangée jusque-là)' })),
  },
  { title: 'ProfileUpdated', description: 'Le profil ; l’e-mail ne change qu’une fois le lien confirmé' },
);
export const EmailConfirmed = Type.Object(
  { detail: Type.String(), email: Type.String({ description: 'La nouvelle adresse du compte' }) },
  { description: 'Adresse e-mail changée' },
);
export const TwoFactorStatus = Type.Object(
  {
    enabled: Type.Boolean(),
    recovery_codes_left: Type.Optional(
      Type.Integer({ minimum: 0, description: 'Codes de secours encore utilisables (status)' }),
    ),
  },
  { description: 'La double authentification est-elle active ?' },
);
export const RecoveryCodes = Type.Object(
  {
    enabled: Type.Literal(true),
    recovery_codes: Type.Array(Type.String(), {
      description: 'Codes de secours à usage unique, montrés cette seule fois (seule leur empreinte est gardée)',
    }),
  },
  { description: 'La double authentification est active ; ses codes de secours' },
);
export const TwoFactorSetup = Type.Object(
  {
    otpauth_url: Type.String({ description: 'otpauth:// à montrer en QR code' }),
    secret: Type.String({ description: 'Le secret en base32, à saisir à la main' }),
    enabled: Type.Literal(false),
  },
  { description: 'Le secret à enregistrer dans l’application d’authentification' },
);

/** A new account as submitted: trimmed, the email's domain lower-cased. */
export interface AccountInput {
  username: string;
  email: string;
  password: string;
  /** No confirmation means "same as the password". */
  confirm: string;
  firstName: string;
  lastName: string;
}

function accountInput(body: Static<typeof RegisterBody>): AccountInput {
  const password = body.password ?? '';
  return {
    username: (body.username ?? '').trim(),
    email: normalizeEmail(body.email ?? ''),
    password,
    confirm: body.confirm_password ?? password,
    firstName: body.first_name?.trim() ?? '',
    lastName: body.last_name?.trim() ?? '',
  };
}

/** A self-registration, every field's problems answered at once under the registration's detail. */
export function registrationInput(body: Static<typeof RegisterBody>, rules: PasswordRules): AccountInput {
  const input = accountInput(body);
  const fields: FieldMessages = {};
  checkUsername(fields, input.username);
  checkEmail(fields, input.email);
  checkPassword(fields, 'password', input.password, rules);
  if (input.password !== '' && input.confirm !== input.password) {
    addError(fields, 'confirm_password', MESSAGES.passwordMismatch);
  }
  throwIfAny(fields, MESSAGES.registerInvalid);
  return input;
}

/** An administrator account: the required fields first, then the password on its own, then the formats. */
export function adminAccountInput(body: Static<typeof AdminBody>, policy: PasswordRules): AccountInput {
  const input = accountInput(body);
  const required: FieldMessages = {};
  if (input.username === '') addError(required, 'username', MESSAGES.usernameRequired);
  if (input.email === '') addError(required, 'email', MESSAGES.emailRequired);
  if (input.password === '') addError(required, 'password', MESSAGES.passwordRequired);
  throwIfAny(required, MESSAGES.required);

  // 8 is the contractual floor; a stricter platform policy (length or complexity) wins.
  const rules = { ...policy, passwordMinLength: Math.max(ADMIN_MIN_PASSWORD, policy.passwordMinLength) };
  assertPassword('password', input.password, rules);
  const fields: FieldMessages = {};
  checkUsername(fields, input.username);
  checkEmail(fields, input.email);
  if (input.confirm !== input.password) addError(fields, 'confirm_password', MESSAGES.passwordMismatch);
  throwIfAny(fields, MESSAGES.adminInvalid);
  return input;
}

/** The names and email sent, trimmed; a malformed email answers its 400. */
export function profilePatch(body: Static<typeof ProfileBody>): ProfilePatch {
  const patch: ProfilePatch = {};
  if (body.first_name !== undefined) patch.firstName = body.first_name.trim();
  if (body.last_name !== undefined) patch.lastName = body.last_name.trim();
  if (body.email !== undefined) {
    const fields: FieldMessages = {};
    patch.email = normalizeEmail(body.email);
    checkEmail(fields, patch.email);
    throwIfAny(fields);
  }
  return patch;
}

/** The credentials that turn the second factor off: a code, a password or both, never neither. */
export function disableCredentials(body: Static<typeof DisableBody>): { token?: string; password?: string } {
  const { token, password } = body ?? {};
  if (!token && !password) {
    const message = MESSAGES.credentialRequired;
    throw invalidFields(message, { token: [message], password: [message] });
  }
  return { token, password };
}
