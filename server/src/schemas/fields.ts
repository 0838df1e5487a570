/** Body field schemas and checks shared by the resources: one-field French 400s, trimmed texts, CVE ids. */
import { ApiError } from '../domain/errors.ts';
import { charCount } from '../../../contract/text.ts';
import { OrNull, Type } from './common.ts';

export const ASSET_UNKNOWN = 'Actif introuvable.';
export const CVE_RE = /^CVE-\d{4}-\d{4,}$/;
export const CVE_INVALID = 'Identifiant CVE invalide (format attendu : CVE-AAAA-NNNN).';

/** 400 on one field, the message as the detail too. */
export const invalid = (field: string, message: string) =>
  new ApiError(400, 'invalid', message, { fields: { [field]: [message] } });

/**
 * A text field of a body, trimmed: undefined when a PATCH (`partial`) leaves it out, '' when a full write does;
 * 400 on `field` when longer than `max` (`tooLong`), or empty when `required` (that message).
 */
export function trimmed(
  raw: string | null | undefined,
  partial: boolean,
  field: string,
  max: number,
  tooLong: string,
  required?: string,
): string | undefined {
  if (raw === undefined && partial) return undefined;
  const value = (raw ?? '').trim();
  if (required !== undefined && value === '') throw invalid(field, required);
  if (charCount(value) > max) throw invalid(field, tooLong);
  return value;
}

/** An optional text of a body, at most `maxLength` characters (the route's own message for a longer one). */
export const optionalText = (maxLength: number, tooLong?: string) =>
  Type.Optional(Type.String({ maxLength, ...(tooLong === undefined ? {} : { errorMessage: { maxLength: tooLong } }) }));

/** An optional body field of `type` or null, with one message for a wrong value (schemas/common.ts `OrNull`). */
export const orNull = <T extends 'string' | 'integer' | 'number'>(type: T, options: Record<string, unknown> = {}) =>
  Type.Optional(OrNull<T extends 'string' ? string : number>(type, options));

/** A real calendar day written AAAA-MM-JJ (2025-02-30 is refused by the date format), or null; `message` otherwise. */
export const dayOrNull = (message: string) =>
  orNull('string', { pattern: '^[1-9]\\d{3}-\\d{2}-\\d{2}$', format: 'date', errorMessage: message });
