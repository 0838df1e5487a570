// The errors every layer may raise: the bottom of the server's layers, importing nothing of ours. The errors plugin
// (plugins/app/errors.ts) turns them into the one {detail, code, fields?} answer.

/** A refusal with its HTTP status, machine code and French detail. */
export class ApiError extends Error {
  constructor(
    readonly statusCode: number,
    readonly code: string,
    readonly detail: string,
    readonly extra: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(detail);
  }
}

/**
 * A read abandoned by its client (connection closed) before the server worked on it: stopped, and answered nothing
 * anyone reads (499, as proxies log it).
 */
export class ClientGone extends ApiError {
  constructor() {
    super(499, 'client_gone', 'Le client a fermé la connexion.');
  }
}

/** Collects French field errors; `throwIfAny` answers 400 {detail, code:'invalid', fields}. */
export class FieldErrors {
  // No prototype: a field named `__proto__` or `constructor` (a client's unknown key) is a field like any other.
  private readonly fields = Object.create(null) as Record<string, string[]>;

  add(field: string, message: string): void {
    (this.fields[field] ??= []).push(message);
  }

  throwIfAny(): void {
    const first = Object.values(this.fields)[0]?.[0];
    if (first) throw new ApiError(400, 'invalid', first, { fields: this.fields });
  }
}

/** The one answer for a row that does not exist or belongs to another tenant. */
export const notFound = () => new ApiError(404, 'not_found', 'Ressource introuvable.');
