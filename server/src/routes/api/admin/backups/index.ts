import { createReadStream } from 'node:fs';
import multipart from '@fastify/multipart';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { attachmentDisposition } from '../../../../lib/file-type.ts';
import { ApiError, notFound } from '../../../../domain/errors.ts';
import type { AuditInput } from '../../../../plugins/app/audit.ts';
import { signedIn } from '../../../../plugins/app/authorization.ts';
import { canManageBackups } from '../../../../policies/index.ts';
import { BackupSchema, presentBackup, presentRestore, RestoreSchema } from '../../../../presenters/backup.ts';
import { backupRepo, type BackupRow } from '../../../../repositories/backups.ts';
import {
  BackupParams,
  checkRestoreConfirmation,
  MESSAGES,
  NewBackupBody,
  parseNewBackup,
  RestoreBody,
} from '../../../../schemas/admin/backups.ts';
import { NoContent, replies, Type } from '../../../../schemas/common.ts';
import { answering, importUpload, restoreFor } from '../../../../services/admin-backups.ts';
import {
  backupFile,
  CREATE_BACKUP_TASK,
  deleteBackup,
  listBackups,
  startBackup,
} from '../../../../services/backups.ts';

const BASE = '/api/admin/backups/';
/** An uploaded archive: at most 10 GiB. */
const MAX_UPLOAD_BYTES = 10 * 1024 ** 3;

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

  const reach = async (id: string): Promise<BackupRow> => {
    const row = await backupRepo.byId(app.database.db, id.toLowerCase());
    if (!row) throw notFound();
    return row;
  };

  /** An event about a backup, on the platform trail once it is done (a change unless `more` says otherwise). */
  const record = (
    request: FastifyRequest,
    row: BackupRow,
    action: string,
    description: string,
    more: Partial<AuditInput> = {},
  ) =>
    app.audit.record(request, {
      eventType: 'configuration_change',
      description,
      tenantId: null,
      ...more,
      extra: { action, backup_id: row.id, filename: row.filename, ...more.extra },
    });

  const Backups = Type.Object({ backups: Type.Array(BackupSchema) });
  app.get(BASE, { ...guard, schema: { tags, response: replies.signedIn({ 200: Backups }) } }, async () => ({
    backups: (await listBackups(ctx)).map(presentBackup),
  }));

  app.post(
    BASE,
    { ...guard, schema: { tags, body: NewBackupBody, response: replies.signedIn({ 202: BackupSchema }, 400, 409) } },
    async (request, reply) => {
      const note = parseNewBackup(request.body);
      const userId = signedIn(request).user.id;
      const row = await startBackup(ctx, { note, userId }, (backupId) =>
        app.jobs.launch(CREATE_BACKUP_TASK, { backup_id: backupId }, { tenantId: null, requestedBy: userId }),
      );
      await record(request, row, 'backup_started', `Sauvegarde lancée : ${row.filename}`, { extra: { note } });
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
      const { row, originalName } = await importUpload(ctx, request.parts(), signedIn(request).user.id);
      await record(request, row, 'backup_imported', `Sauvegarde importée : ${row.filename}`, {
        extra: { original_name: originalName, size: row.size, sha256: row.sha256 },
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
        params: BackupParams,
        body: RestoreBody,
        response: replies.signedIn({ 200: RestoreSchema }, 400, 404, 409),
      },
    },
    async (request) => {
      const row = await reach(request.params.id);
      checkRestoreConfirmation(request.body);
      const { summary, userId } = await restoreFor(ctx, row, signedIn(request).user.id, request.log);
      await record(
        request,
        row,
        'backup_restored',
        `Sauvegarde restaurée : ${row.filename} (données du ${summary.backupCreatedAt})`,
        {
          severity: 'WARNING',
          userId,
          extra: { sha256: row.sha256, tables: summary.tables, rows: summary.rows, documents: summary.documents },
        },
      );
      return presentRestore(summary);
    },
  );

  app.delete(
    `${BASE}:id/`,
    { ...guard, schema: { tags, params: BackupParams, response: replies.signedIn({ 204: NoContent }, 404, 409) } },
    async (request, reply) => {
      const row = await reach(request.params.id);
      await deleteBackup(ctx, row);
      await record(request, row, 'backup_deleted', `Sauvegarde supprimée : ${row.filename}`, {
        severity: 'WARNING',
        extra: { status: row.status },
      });
      return reply.code(204).send();
    },
  );

  const Archive = Type.String({ description: 'L’archive (application/gzip), en pièce jointe' });
  app.get(
    `${BASE}:id/download/`,
    { ...guard, schema: { tags, params: BackupParams, response: replies.signedIn({ 200: Archive }, 404, 409) } },
    async (request, reply) => {
      const row = await reach(request.params.id);
      if (row.status !== 'COMPLETED') throw new ApiError(409, 'conflict', MESSAGES.notCompleted);
      const found = await answering(backupFile(ctx, row));
      // The archive holds every tenant's data and the password hashes: who took a copy is worth knowing.
      await record(request, row, 'backup_downloaded', `Téléchargement de la sauvegarde ${row.filename}`, {
        eventType: 'sensitive_data_access',
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
