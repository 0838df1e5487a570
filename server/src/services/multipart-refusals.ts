import { ApiError } from '../domain/errors.ts';
import { storageFailure } from '../domain/storage-errors.ts';

export const MULTIPART_MESSAGES = {
  multipartInvalid: 'Requête multipart invalide.',
  tooManyParts: 'Trop de champs ou de fichiers dans la requête.',
  unexpectedField: (name: string) => `Champ inattendu : ${name}.`,
} as const;

/**
 * What a failed read of an upload's parts answers: our own refusal as it is, the file limit as `tooLarge()`, the
 * part limits as 413, a failure of the server's disk or database as it is (the errors plugin answers 503: not the
 * client's fault), anything else as a broken form (400; `log` hears why).
 */
export function multipartRefusal(err: unknown, tooLarge: () => ApiError, log: (err: unknown) => void): unknown {
  if (err instanceof ApiError || storageFailure(err)) return err;
  const code = (err as { code?: string }).code;
  if (code === 'FST_REQ_FILE_TOO_LARGE') return tooLarge();
  if (code === 'FST_FILES_LIMIT' || code === 'FST_FIELDS_LIMIT' || code === 'FST_PARTS_LIMIT') {
    return new ApiError(413, 'too_many_parts', MULTIPART_MESSAGES.tooManyParts);
  }
  log(err);
  return new ApiError(400, 'invalid', MULTIPART_MESSAGES.multipartInvalid);
}
