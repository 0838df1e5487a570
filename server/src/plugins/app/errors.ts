import fp from 'fastify-plugin';
import type { FastifyError } from 'fastify';
import { ApiError } from '../../domain/errors.ts';
import { storageFailure } from '../../domain/storage-errors.ts';
import { fieldMessages } from '../../schemas/validation-messages.ts';

/**
 * Load shed, not a fault: every database connection was taken (busy), or a statement ran past its timeout (slow).
 * The client is asked back after `retryAfterS`.
 */
const SHED = {
  busy: { retryAfterS: 2, code: 'server_busy', log: 'database busy: answered 503' },
  slow: { retryAfterS: 5, code: 'query_timeout', log: 'statement timeout: answered 503' },
} as const;

/**
 * One JSON shape for every 4xx: {detail, code, fields?}. A 5xx never carries internals. The server's own disk or
 * database failing (full, read-only, unreachable…) is a 503 that says so in French, never the client's fault.
 */
export default fp(
  async (app) => {
    app.setErrorHandler((error: FastifyError | ApiError, request, reply) => {
      if (error instanceof ApiError) {
        reply.headers(error.headers);
        return reply.code(error.statusCode).send({ detail: error.detail, code: error.code, ...error.extra });
      }
      if (error.validation) {
        // A path id that is not an id names nothing: not found, as a well-formed unknown id.
        if (error.validationContext === 'params') {
          return reply.code(404).send({ detail: 'Ressource introuvable.', code: 'not_found' });
        }
        // As FieldErrors does: the first field's message is the detail, so a form can show it as is.
        const fields = fieldMessages(error.validation);
        const detail = Object.values(fields)[0]?.[0] ?? 'Données invalides.';
        return reply.code(400).send({ detail, code: 'invalid', fields });
      }
      const failure = storageFailure(error);
      if (failure?.kind === 'busy' || failure?.kind === 'slow') {
        const shed = SHED[failure.kind];
        // No stack per request: a crowd is no bug.
        request.log.warn(shed.log);
        return reply
          .code(503)
          .header('Retry-After', String(shed.retryAfterS))
          .send({ detail: failure.message, code: shed.code });
      }
      if (failure) {
        request.log.error({ err: error }, `${failure.kind} unavailable`);
        return reply
          .code(503)
          .header('Retry-After', '30')
          .send({ detail: failure.message, code: `${failure.kind === 'disk' ? 'storage' : 'database'}_unavailable` });
      }
      const status = error.statusCode ?? 500;
      if (status >= 400 && status < 500) {
        const detail =
          error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE'
            ? 'Type de contenu non pris en charge.'
            : error.code === 'FST_ERR_CTP_BODY_TOO_LARGE'
              ? 'Requête trop volumineuse.'
              : error.code === 'FST_ERR_CTP_EMPTY_JSON_BODY' ||
                  error.code === 'FST_ERR_CTP_INVALID_JSON_BODY' ||
                  error instanceof SyntaxError
                ? 'Corps JSON invalide.'
                : error.message;
        return reply.code(status).send({ detail, code: (error.code ?? 'bad_request').toLowerCase() });
      }
      request.log.error({ err: error }, 'unhandled error');
      return reply.code(500).send({ detail: 'Erreur interne du serveur.', code: 'server_error' });
    });
  },
  { name: 'errors' },
);
