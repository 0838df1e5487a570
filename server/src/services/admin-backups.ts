/**
 * The backups as the API serves them (docs/api-admin.md "Backups"): the service's refusals as API answers, an
 * archive read from an upload's multipart parts, and a restore that says whether the asking account survived it.
 */
import type { Multipart } from '@fastify/multipart';
import type { FastifyBaseLogger } from 'fastify';
import { ApiError, FieldErrors } from '../domain/errors.ts';
import { clipText } from '../../../contract/text.ts';
import type { BackupRow } from '../repositories/backups.ts';
import { UsersRepository } from '../repositories/users.ts';
import { MESSAGES, noteOf } from '../schemas/admin/backups.ts';
import { RestoreNotPermittedError } from './backup-archive.ts';
import {
  BackupConflictError,
  BackupFileMissingError,
  BackupRefusedError,
  importBackup,
  restoreBackup,
  type BackupContext,
  type RestoreSummary,
} from './backups.ts';

/** The backup service's refusals as API answers; any other error as it is. */
export function backupApiError(err: unknown): unknown {
  if (err instanceof BackupRefusedError) return new ApiError(400, 'invalid_backup', err.message);
  if (err instanceof BackupConflictError) return new ApiError(409, 'conflict', err.message);
  if (err instanceof BackupFileMissingError) return new ApiError(404, 'backup_file_missing', err.message);
  if (err instanceof RestoreNotPermittedError) return new ApiError(409, 'restore_not_permitted', err.message);
  return err;
}

/** Runs a backup operation, its refusals answered as API errors. */
export async function answering<T>(operation: Promise<T>): Promise<T> {
  try {
    return await operation;
  } catch (err) {
    throw backupApiError(err);
  }
}

/**
 * An uploaded archive: an optional `note` field, then the `file`, imported as it streams in. Answers the new row and
 * the file's name as sent.
 */
export async function importUpload(
  ctx: BackupContext,
  parts: AsyncIterable<Multipart>,
  userId: number,
): Promise<{ row: BackupRow; originalName: string }> {
  const errors = new FieldErrors();
  let note = '';
  let row: BackupRow | undefined;
  let originalName = '';
  try {
    for await (const part of parts) {
      if (part.type === 'field') {
        if (part.fieldname !== 'note' || row)
          throw new ApiError(400, 'invalid', MESSAGES.unexpectedField(part.fieldname));
        note = noteOf(String(part.value), errors);
        errors.throwIfAny();
        continue;
      }
      if (part.fieldname !== 'file' || row) {
        part.file.resume();
        throw new ApiError(400, 'invalid', MESSAGES.unexpectedField(part.fieldname));
      }
      originalName = clipText(part.filename ?? '', 255);
      const label = note || `Importée depuis « ${originalName || 'archive'} »`;
      row = await importBackup(ctx, part.file, { note: label, userId });
    }
  } catch (err) {
    if (err instanceof ApiError || err instanceof BackupRefusedError) throw backupApiError(err);
    const code = (err as { code?: string }).code;
    if (code === 'FST_REQ_FILE_TOO_LARGE') throw new ApiError(413, 'file_too_large', MESSAGES.tooLarge);
    if (code?.startsWith('FST_')) throw new ApiError(400, 'invalid', MESSAGES.multipartInvalid);
    throw err;
  }
  if (!row) throw new ApiError(400, 'invalid', MESSAGES.fileRequired, { fields: { file: [MESSAGES.fileRequired] } });
  return { row, originalName };
}

/**
 * Restores a backup for `userId`; answers the summary and that account's id if it exists in the restored data
 * (else null: its audit event then keeps the name only).
 */
export async function restoreFor(
  ctx: BackupContext,
  row: BackupRow,
  userId: number,
  log: FastifyBaseLogger,
): Promise<{ summary: RestoreSummary; userId: number | null }> {
  let summary: RestoreSummary;
  try {
    summary = await restoreBackup(ctx, row);
  } catch (err) {
    if (err instanceof BackupRefusedError) log.warn({ backupId: row.id, reason: err.message }, 'restore refused');
    throw backupApiError(err);
  }
  const still = await new UsersRepository(ctx.database.db).findById(userId);
  return { summary, userId: still ? still.id : null };
}
