import { createReadStream } from 'node:fs';
import multipart from '@fastify/multipart';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { eq } from 'drizzle-orm';
import type { FastifyRequest } from 'fastify';
import { users } from '../../../../db/schema.ts';
import { attachmentDisposition } from '../../../../lib/file-type.ts';
import { ApiError, FieldErrors, notFound } from '../../../../domain/errors.ts';
import { signedIn } from '../../../../plugins/app/authorization.ts';
import { canManageBackups } from '../../../../policies/index.ts';
import { BackupSchema, presentBackup, presentRestore, RestoreSchema } from '../../../../presenters/backup.ts';
import { backupRepo, type BackupRow } from '../../../../repositories/backups.ts';
import { NoContent, replies, Type } from '../../../../schemas/common.ts';
import { RestoreNotPermittedError } from '../../../../services/backup-archive.ts';
import {
  BackupConflictError,
  BackupFileMissingError,
  BackupRefusedError,
  backupFile,
  CREATE_BACKUP_TASK,
  deleteBackup,
  importBackup,
  listBackups,
  MAX_NOTE,
  restoreBackup,
  startBackup,
  type RestoreSummary,
} from '../../../../services/backups.ts';
import { UUID_PATTERN } from '../shared.ts';

const BASE = '/api/admin/backups/';
const CONFIRMATION = 'RESTAURER';
/** An uploaded archive: at most 10 GiB. */
export const MAX_UPLOAD_BYTES = 10 * 1024 ** 3;

const MESSAGES = {
  confirm: `Confirmation requise : saisissez « ${CONFIRMATION} » dans « confirm » pour remplacer toutes les données par celles de la sauvegarde.`,
  note: `La note ne doit pas dépasser ${MAX_NOTE} caractères.`,
  noteType: 'La note doit être un texte.',
  body: 'Un objet JSON est attendu.',
  unknown: (key: string) => `Champ inconnu : « ${key} ».`,
  multipartRequired: 'L’archive doit être envoyée en multipart/form-data (champ file).',
  multipartInvalid: 'Requête multipart invalide.',
  unexpectedField: (name: string) => `Champ inattendu : ${name}.`,
  fileRequired: 'Le fichier est requis.',
  tooLarge: 'Fichier trop volumineux (10 Go au maximum).',
  notCompleted: 'Cette sauvegarde n’est pas terminée.',
} as const;

/** The optional note of a new backup: text, trimmed, at most MAX_NOTE characters. */
function noteOf(raw: unknown, errors: FieldErrors): string {
  if (raw === undefined || raw === null) return '';
  if (typeof raw !== 'string') {
    errors.add('note', MESSAGES.noteType);
    return '';
  }
  const note = raw.trim();
  if (note.length > MAX_NOTE) errors.add('note', MESSAGES.note);
  return note;
}

/** The service's refusals as API answers. */
function answer(err: unknown): unknown {
  if (err instanceof BackupRefusedError) return new ApiError(400, 'invalid_backup', err.message);
  if (err instanceof BackupConflictError) return new ApiError(409, 'conflict', err.message);
  if (err instanceof BackupFileMissingError) return new ApiError(404, 'backup_file_missing', err.message);
  if (err instanceof RestoreNotPermittedError) return new ApiError(409, 'restore_not_permitted', err.message);
  return err;
}

/**
 * Backups (docs/api-admin.md "Backups"): list, create (a background task), import, restore, delete and download.
 * Superusers only; every change is written to the platform audit trail once it is done.
 */
const adminBackupRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const ctx = { database: app.database, filesDir: app.filesDir };
  // Encapsulated here: only the upload route reads multipart bodies, with the archive's own limits.
  await app.register(multipart, {
    limits: { fileSize: MAX_UPLOAD_BYTES, files: 1, fields: 1, fieldSize: 4096, parts: 2, headerPairs: 100 },
  });

  const guard = app.guard((auth) => canManageBackups(auth.actor), { refusal: 'sauvegardes', tenant: false });
  const tags = ['Sauvegardes'];
  const params = Type.Object({ id: Type.String({ pattern: UUID_PATTERN, description: 'Identifiant (UUID)' }) });

  const reach = async (id: string): Promise<BackupRow> => {
    const row = await backupRepo.byId(app.database.db, id.toLowerCase());
    if (!row) throw notFound();
    return row;
  };

  /** A change to the backups, on the platform trail once it is done. */
  const changed = (request: FastifyRequest, row: BackupRow, action: string, description: string, extra = {}) =>
    app.audit.record(request, {
      eventType: 'configuration_change',
      description,
      tenantId: null,
      ...(action === 'backup_deleted' ? { severity: 'WARNING' as const } : {}),
      extra: { action, backup_id: row.id, filename: row.filename, ...extra },
    });

  const Backups = Type.Object({ backups: Type.Array(BackupSchema) });
  app.get(BASE, { ...guard, schema: { tags, response: replies.signedIn({ 200: Backups }) } }, async () => ({
    backups: (await listBackups(ctx)).map(presentBackup),
  }));

  app.post(
    BASE,
    {
      ...guard,
      schema: {
        tags,
        // Checked in code: the body may be left out, and an unknown key is named in its message.
        body: Type.Unknown({ description: `{"note": "…"} (facultatif, ${MAX_NOTE} caractères au plus)` }),
        response: replies.signedIn({ 202: BackupSchema }, 400, 409),
      },
    },
    async (request, reply) => {
      const body = request.body ?? {};
      const errors = new FieldErrors();
      if (typeof body !== 'object' || Array.isArray(body)) errors.add('non_field_errors', MESSAGES.body);
      else for (const key of Object.keys(body)) if (key !== 'note') errors.add(key, MESSAGES.unknown(key));
      const note = noteOf((body as { note?: unknown }).note, errors);
      errors.throwIfAny();
      const userId = signedIn(request).user.id;
      const row = await startBackup(ctx, { note, userId }, (backupId) =>
        app.jobs.launch(CREATE_BACKUP_TASK, { backup_id: backupId }, { tenantId: null, requestedBy: userId }),
      );
      await changed(request, row, 'backup_started', `Sauvegarde lancée : ${row.filename}`, { note });
      return reply.code(202).send(presentBackup(row));
    },
  );

  app.post(
    `${BASE}upload/`,
    {
      ...guard,
      schema: {
        tags,
        description: 'multipart/form-data : champ `note` facultatif, puis le fichier `file` (10 Go au plus).',
        response: replies.signedIn({ 201: BackupSchema }, 400, 409, 413),
      },
    },
    async (request, reply) => {
      if (!request.isMultipart()) throw new ApiError(400, 'invalid', MESSAGES.multipartRequired);
      const declared = Number(request.headers['content-length']);
      if (Number.isFinite(declared) && declared > MAX_UPLOAD_BYTES + 64 * 1024) {
        throw new ApiError(413, 'file_too_large', MESSAGES.tooLarge);
      }
      const errors = new FieldErrors();
      let note = '';
      let row: BackupRow | undefined;
      let originalName = '';
      try {
        for await (const part of request.parts()) {
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
          originalName = (part.filename ?? '').slice(0, 255);
          row = await importBackup(ctx, part.file, {
            note: note || `Importée depuis « ${originalName || 'archive'} »`,
            userId: signedIn(request).user.id,
          });
        }
      } catch (err) {
        if (err instanceof ApiError || err instanceof BackupRefusedError) throw answer(err);
        const code = (err as { code?: string }).code;
        if (code === 'FST_REQ_FILE_TOO_LARGE') throw new ApiError(413, 'file_too_large', MESSAGES.tooLarge);
        if (code?.startsWith('FST_')) throw new ApiError(400, 'invalid', MESSAGES.multipartInvalid);
        throw err;
      }
      if (!row)
        throw new ApiError(400, 'invalid', MESSAGES.fileRequired, { fields: { file: [MESSAGES.fileRequired] } });
      await changed(request, row, 'backup_imported', `Sauvegarde importée : ${row.filename}`, {
        original_name: originalName,
        size: row.size,
        sha256: row.sha256,
      });
      return reply.code(201).send(presentBackup(row));
    },
  );

  app.post(
    `${BASE}:id/restore/`,
    {
      ...guard,
      // Its own claim row would be replaced by the restored table.
      config: { idempotency: false },
      schema: {
        tags,
        params,
        body: Type.Unknown({ description: `{"confirm": "${CONFIRMATION}"}` }),
        response: replies.signedIn({ 200: RestoreSchema }, 400, 404, 409),
      },
    },
    async (request) => {
      const row = await reach(request.params.id);
      const body = (request.body ?? {}) as { confirm?: unknown };
      if (typeof body.confirm !== 'string' || body.confirm.trim().toUpperCase() !== CONFIRMATION) {
        throw new ApiError(400, 'confirmation_required', MESSAGES.confirm, { fields: { confirm: [MESSAGES.confirm] } });
      }
      let summary: RestoreSummary;
      try {
        summary = await restoreBackup(ctx, row);
      } catch (err) {
        if (err instanceof BackupRefusedError)
          request.log.warn({ backupId: row.id, reason: err.message }, 'restore refused');
        throw answer(err);
      }
      // The account that asked may not exist in the restored data: the event then keeps its name only.
      const [still] = await app.database.db
        .select({ id: users.id })
        .from(users)
        .where(eq(users.id, signedIn(request).user.id));
      await app.audit.record(request, {
        eventType: 'configuration_change',
        description: `Sauvegarde restaurée : ${row.filename} (données du ${summary.backupCreatedAt})`,
        tenantId: null,
        severity: 'WARNING',
        userId: still ? still.id : null,
        extra: {
          action: 'backup_restored',
          backup_id: row.id,
          filename: row.filename,
          sha256: row.sha256,
          tables: summary.tables,
          rows: summary.rows,
          documents: summary.documents,
        },
      });
      return presentRestore(summary);
    },
  );

  app.delete(
    `${BASE}:id/`,
    { ...guard, schema: { tags, params, response: replies.signedIn({ 204: NoContent }, 404, 409) } },
    async (request, reply) => {
      const row = await reach(request.params.id);
      await deleteBackup(ctx, row);
      await changed(request, row, 'backup_deleted', `Sauvegarde supprimée : ${row.filename}`, { status: row.status });
      return reply.code(204).send();
    },
  );

  const Archive = Type.String({ description: 'L’archive (application/gzip), en pièce jointe' });
  app.get(
    `${BASE}:id/download/`,
    { ...guard, schema: { tags, params, response: replies.signedIn({ 200: Archive }, 404, 409) } },
    async (request, reply) => {
      const row = await reach(request.params.id);
      if (row.status !== 'COMPLETED') throw new ApiError(409, 'conflict', MESSAGES.notCompleted);
      let found;
      try {
        found = await backupFile(ctx, row);
      } catch (err) {
        throw answer(err);
      }
      // The archive holds every tenant's data and the password hashes: who took a copy is worth knowing.
      await app.audit.record(request, {
        eventType: 'sensitive_data_access',
        description: `Téléchargement de la sauvegarde ${row.filename}`,
        tenantId: null,
        extra: { action: 'backup_downloaded', backup_id: row.id, filename: row.filename },
      });
      return reply
        .header('Content-Type', 'application/gzip')
        .header('Content-Length', String(found.size))
        .header('Content-Disposition', attachmentDisposition(row.filename))
        .header('X-Content-Type-Options', 'nosniff')
        .header('Cache-Control', 'private, no-store')
        .send(createReadStream(found.file));
    },
  );
};

export default adminBackupRoutes;
