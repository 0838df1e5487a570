/** What the projects area's bodies and queries share: lists of values with their French refusal, and page size. */
import type { FieldErrors } from '../../domain/errors.ts';
import { Type } from '../common.ts';
import type { RawQuery } from '../query.ts';

/** The largest page of every list of the projects area. */
export const PAGE_SIZE = 100;

/** A list of values (status, treatment…): its French refusal, its body field, and the test of a value. */
export function choices<T extends string>(label: string, allowed: readonly T[]) {
  const message = `${label} invalide. Valeurs possibles : ${allowed.join(', ')}.`;
  const has = (value: string): value is T => (allowed as readonly string[]).includes(value);
  return { message, has, field: Type.Optional(Type.String({ maxLength: 64, errorMessage: message })) };
}
export type Choices<T extends string> = ReturnType<typeof choices<T>>;

/** A value of a body's list, trimmed and upper-cased; `list.message` on `key` when it is not one. */
export function choiceOf<T extends string>(
  errors: FieldErrors,
  key: string,
  raw: string | undefined,
  list: Choices<T>,
): T | undefined {
  const value = raw?.trim().toUpperCase();
  if (value === undefined || list.has(value)) return value;
  errors.add(key, list.message);
}

/** Several values of a list, comma-separated, in a query parameter (`status=TODO,DONE`). */
export function parseChoices<T extends string>(
  errors: FieldErrors,
  query: RawQuery,
  key: string,
  list: Choices<T>,
  normalise: (v: string) => string = (v) => v.toUpperCase(),
): T[] | undefined {
  const raw = query[key]?.trim();
  if (!raw) return undefined;
  const values = raw
    .split(',')
    .map((v) => normalise(v.trim()))
    .filter((v) => v !== '');
  if (values.length > 0 && values.every(list.has)) return [...new Set(values)];
  errors.add(key, list.message);
}
