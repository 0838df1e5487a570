/**
 * The one error answer of the API (server/src/plugins/app/errors.ts): a French `detail`, a machine `code`, and for
 * a refused form the French messages of each field.
 */
export interface ApiErrorBody {
  detail: string;
  code: string;
  /** {field: [messages]}: the first message is the one a form shows next to its field. */
  fields?: Record<string, string[]>;
}

/** The `fields` of an error answer when it has some ({} otherwise). */
export function fieldsOf(body: unknown): Record<string, string[]> {
  const fields = body && typeof body === 'object' ? (body as { fields?: unknown }).fields : undefined;
  return fields && typeof fields === 'object' && !Array.isArray(fields) ? (fields as Record<string, string[]>) : {};
}

/** Whether `body` is the error answer of `code`, with its French `detail`. */
export function isErrorOf<C extends string>(body: unknown, code: C): body is { detail: string; code: C } {
  if (!body || typeof body !== 'object') return false;
  const { code: found, detail } = body as { code?: unknown; detail?: unknown };
  return found === code && typeof detail === 'string';
}
