import { ApiError } from './api-client.ts';

/** An error whose message was written for the user, in French (a form's refusal, a failed download…). */
export class UserMessageError extends Error {}

export const UNEXPECTED_ERROR = 'Erreur inattendue.';

/**
 * What a screen says about a failure: the API's French message (or, with `firstField`, the server's first field
 * message, for forms that show one line), the message of an error written for the user, else a generic one —
 * never a stack or an English exception.
 */
export function messageOf(err: unknown, { firstField = false }: { firstField?: boolean } = {}): string {
  if (err instanceof ApiError) return (firstField ? Object.values(err.fields)[0]?.[0] : undefined) ?? err.message;
  if (err instanceof UserMessageError) return err.message;
  return UNEXPECTED_ERROR;
}
