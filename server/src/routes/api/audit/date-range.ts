/**
 * `?date_from=&date_to=` of the trails (audit, server logs): ISO dates or times, both bounds inclusive, a date alone
 * covering its whole UTC day. Shared: the server-log route reads the same range.
 */
import type { FieldErrors } from '../../../domain/errors.ts';
import { type RawQuery } from '../../../schemas/query.ts';

const DATE_RE = /^\d{4}-\d{2}-\d{2}$/;
const DATE_TIME_RE = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?(Z|[+-]\d{2}:?\d{2})?$/i;
const MESSAGES = {
  date: 'Date invalide : une date (AAAA-MM-JJ) ou une date et heure ISO 8601 est attendue.',
  dateOrder: 'La date de fin précède la date de début.',
} as const;

/** An ISO date or time; a date alone is a whole UTC day, a time without an offset is UTC. */
function parseMoment(errors: FieldErrors, query: RawQuery, key: string): { at: Date; dateOnly: boolean } | undefined {
  const raw = query[key]?.trim();
  if (!raw) return undefined;
  const dateOnly = DATE_RE.test(raw);
  let at: Date | undefined;
  if (dateOnly) at = new Date(`${raw}T00:00:00Z`);
  else if (DATE_TIME_RE.test(raw)) at = new Date(/(Z|[+-]\d{2}:?\d{2})$/i.test(raw) ? raw : `${raw}Z`);
  // new Date() rolls 2026-02-31 over to March: the date part must read back unchanged.
  if (!at || Number.isNaN(at.getTime()) || (dateOnly && at.toISOString().slice(0, 10) !== raw)) {
    errors.add(key, MESSAGES.date);
    return undefined;
  }
  return { at, dateOnly };
}

/** The range as the repositories take it: `to` is exclusive when `date_to` was a date alone (next UTC midnight). */
export function parseDateRange(
  errors: FieldErrors,
  query: RawQuery,
): { from: Date | undefined; to: Date | undefined; toExclusive: boolean | undefined } {
  const from = parseMoment(errors, query, 'date_from');
  const to = parseMoment(errors, query, 'date_to');
  const end = to && (to.dateOnly ? new Date(to.at.getTime() + 86_400_000) : to.at);
  if (from && end && (to.dateOnly ? end <= from.at : end < from.at)) errors.add('date_to', MESSAGES.dateOrder);
  return { from: from?.at, to: end, toExclusive: to?.dateOnly };
}
