import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import multipart from '@fastify/multipart';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { DOCUMENT_TYPES, type DocumentType } from '../../../db/schema.ts';
import { ApiError } from '../../../domain/errors.ts';
import { createDocumentStore, StoredFileMissingError, type StoredFile } from '../../../lib/document-store.ts';
import {
  attachmentDisposition,
  ContentCheck,
  downloadName,
  kindOfName,
  safeFileName,
  type FileKind,
} from '../../../lib/file-type.ts';
import { presentDocument } from '../../../presenters/project-document.ts';
import type { ActivityEntry } from '../../../repositories/project-access.ts';
import { ProjectDocumentsRepository, type DocumentValues } from '../../../repositories/project-documents.ts';
import { FieldErrors } from '../../../domain/errors.ts';
import {
  accessGuards,
  idParams,
  notFound,
  pagedResponse,
  parseId,
  parsePaging,
  parseQueryId,
  stringQuery,
  type RawQuery,
} from '../shared.ts';
import { quoted } from './links.ts';
import { auditProjectWrite, projectGate } from './access.ts';

const LIST_PATH = '/api/projects/documents/';
const LIST_KEYS = ['page', 'page_size', 'project', 'document_type'] as const;
const MAX_PAGE_SIZE = 100;
const MAX_TITLE = 300;
const MAX_DESCRIPTION = 10_000;
const MIB = 1024 * 1024;
export const DEFAULT_DOCUMENT_MAX_BYTES = 25 * MIB;
// Room for the form's other fields and the multipart framing around the file.
const FORM_OVERHEAD = MIB;
const FORM_FIELDS = ['project', 'name', 'title', 'description', 'document_type'];

/** The per-file limit: VIGIE_DOCUMENT_MAX_BYTES (bytes), else 25 MiB. A wrong value stops the start. */
export function documentMaxBytes(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.VIGIE_DOCUMENT_MAX_BYTES?.trim();
  if (!raw) return DEFAULT_DOCUMENT_MAX_BYTES;
  const n = /^\d{1,15}$/.test(raw) ? Number(raw) : 0;
  if (n < 1) throw new Error(`VIGIE_DOCUMENT_MAX_BYTES must be a positive number of bytes (got "${raw}")`);
  return n;
}

/** "25 Mo", "1,5 Mo", "64 Ko", "100 octets". */
export function formatLimit(bytes: number): string {
  const unit = (n: number, name: string) => `${Number.isInteger(n) ? n : n.toFixed(1).replace('.', ',')} ${name}`;
  if (bytes >= MIB) return unit(bytes / MIB, 'Mo');
  if (bytes >= 1024) return unit(bytes / 1024, 'Ko');
  return `${bytes} octets`;
}

const DOCUMENT_TYPE_LIST = DOCUMENT_TYPES.join(', ');
const MESSAGES = {
  tooLarge: (max: number) => `Fichier trop volumineux (${formatLimit(max)} au maximum).`,
  unsupported: 'Type de fichier non autorisé.',
  multipartRequired: 'Le document doit être envoyé en multipart/form-data (champ file).',
  multipartInvalid: 'Requête multipart invalide.',
  tooManyParts: 'Trop de champs ou de fichiers dans la requête.',
  unexpectedField: (name: string) => `Champ inattendu : ${name}.`,
  fieldTooLong: (name: string) => `Le champ ${name} est trop long.`,
  fileRequired: 'Le fichier est requis.',
  fileEmpty: 'Le fichier est vide.',
  projectRequired: 'Le projet est requis.',
  projectInvalid: 'Identifiant invalide : un entier positif est attendu.',
  nameRequired: 'Le nom du document est requis.',
  titleTooLong: `Le titre ne doit pas dépasser ${MAX_TITLE} caractères.`,
  descriptionTooLong: `La description ne doit pas dépasser ${MAX_DESCRIPTION} caractères.`,
  documentType: `Type de document invalide. Valeurs possibles : ${DOCUMENT_TYPE_LIST}.`,
  fileMissing: 'Le fichier de ce document est introuvable.',
} as const;

const invalid = (field: string, message: string) =>
  new ApiError(400, 'invalid', message, { fields: { [field]: [message] } });
const unsupported = () =>
  new ApiError(415, 'unsupported_file_type', MESSAGES.unsupported, { fields: { file: [MESSAGES.unsupported] } });

interface UpdateBody {
  name?: string;
  title?: string;
  description?: string;
  document_type?: string;
}

const updateBody = {
  type: 'object',
  additionalProperties: false,
  properties: {
    name: { type: 'string', maxLength: 1000 },
    title: { type: 'string', maxLength: 4096 },
    description: { type: 'string', maxLength: 100_000 },
    document_type: { type: 'string', maxLength: 64 },
    // Read-only fields a client may send back from a Document it read: ignored.
    ...Object.fromEntries(
      ['id', 'file', 'project', 'file_size', 'file_type', 'sha256', 'uploaded_by', 'created_at', 'updated_at'].map(
        (f) => [f, {}],
      ),
    ),
  },
} as const;

const isDocumentType = (v: string): v is DocumentType => (DOCUMENT_TYPES as readonly string[]).includes(v);

/** Checks the editable fields; `requireName` for PUT and for nothing else (an upload defaults to the file's name). */
function validateFields(errors: FieldErrors, body: UpdateBody, requireName: boolean, full: boolean): DocumentValues {
  const out: DocumentValues = {};
  if (body.name !== undefined || requireName) {
    const name = safeFileName(body.name ?? '', '');
    if (name === '') errors.add('name', MESSAGES.nameRequired);
    else out.name = name;
  }
  if (body.title !== undefined || full) {
    const title = (body.title ?? '').trim();
    if (title.length > MAX_TITLE) errors.add('title', MESSAGES.titleTooLong);
    else out.title = title;
  }
  if (body.description !== undefined || full) {
    const description = (body.description ?? '').trim();
    if (description.length > MAX_DESCRIPTION) errors.add('description', MESSAGES.descriptionTooLong);
    else out.description = description;
  }
  if (body.document_type !== undefined || full) {
    const type = (body.document_type ?? '').trim().toUpperCase() || 'OTHER';
    if (isDocumentType(type)) out.documentType = type;
    else errors.add('document_type', MESSAGES.documentType);
  }
  return out;
}

/** Thrown by the upload's inspecting stream as soon as the bytes cannot be the announced type. */
class WrongContent extends Error {}

/** The store failed (disk full, bucket unreachable): the server's fault, not the client's. */
class StoreFailure extends Error {
  readonly original: Error;
  constructor(original: unknown) {
    super('document store failure');
    this.original = original instanceof Error ? original : new Error(String(original));
  }
}

/**
 * Project documents (docs/api-projects.md "Documents"): metadata in project_documents, bytes in the document store
 * (the data dir's documents/ or an S3 bucket) under a random key. An upload is checked by extension and content
 * while it streams; anything refused leaves neither a row nor a file.
 */
const documentRoutes: FastifyPluginAsync = async (app) => {
  const maxBytes = documentMaxBytes();
  const store = createDocumentStore(app.filesDir);
  app.addHook('onClose', async () => store.close());
  // Encapsulated here: only this plugin's routes accept multipart bodies, with the document's own limits.
  await app.register(multipart, {
    limits: { fileSize: maxBytes, files: 1, fields: 10, fieldSize: 128 * 1024, parts: 12, headerPairs: 100 },
  });

  const guard = accessGuards(app);
  const scope = projectGate();
  const repo = new ProjectDocumentsRepository();
  const tooLarge = () => new ApiError(413, 'file_too_large', MESSAGES.tooLarge(maxBytes));

  const idOf = (request: FastifyRequest<{ Params: { id: string } }>) => {
    const id = parseId(request.params.id);
    if (id === undefined) throw notFound();
    return id;
  };

  const activity = (
    request: FastifyRequest,
    projectId: number,
    id: number,
    action: string,
    summary: string,
  ): ActivityEntry => ({
    projectId,
    userId: request.auth!.actor.userId,
    action,
    objectType: 'document',
    objectId: id,
    summary,
  });

  app.get<{ Querystring: RawQuery }>(
    LIST_PATH,
    { ...guard.read, schema: { querystring: stringQuery(LIST_KEYS) } },
    async (request) => {
      const errors = new FieldErrors();
      const q = request.query;
      const paging = parsePaging(errors, q, MAX_PAGE_SIZE);
      const projectId = parseQueryId(errors, q, 'project');
      const rawType = q.document_type?.trim().toUpperCase() || undefined;
      if (rawType !== undefined && !isDocumentType(rawType)) errors.add('document_type', MESSAGES.documentType);
      errors.throwIfAny();
      const page = await request.tenantDb((tx) =>
        repo.page(tx, request.auth!.actor, {
          projectId,
          documentType: rawType as DocumentType | undefined,
          limit: paging.pageSize,
          offset: (paging.page - 1) * paging.pageSize,
        }),
      );
      return pagedResponse(LIST_PATH, q, LIST_KEYS, paging, page.count, page.rows.map(presentDocument));
    },
  );

  app.post(LIST_PATH, guard.write, async (request, reply) => {
    if (!request.isMultipart()) throw invalid('file', MESSAGES.multipartRequired);
    // A body announced bigger than any acceptable form is refused before a byte of it is read.
    const declared = Number(request.headers['content-length']);
    if (Number.isFinite(declared) && declared > maxBytes + FORM_OVERHEAD) throw tooLarge();

    const tenantId = request.auth!.tenant!.id;
    // The server's name for the bytes; the client's file name is only ever metadata.
    const storageKey = `${tenantId}/${randomUUID()}`;
    const fields: Record<string, string> = {};
    let file: { originalName: string; kind: FileKind; stored: StoredFile } | undefined;
    let written = false;
    let committed = false;

    const projectField = (): number => {
      const raw = fields.project?.trim();
      if (raw === undefined || raw === '') throw invalid('project', MESSAGES.projectRequired);
      const id = parseId(raw);
      if (id === undefined) throw invalid('project', MESSAGES.projectInvalid);
      return id;
    };

    try {
      try {
        for await (const part of request.parts()) {
          if (part.type === 'field') {
            if (!FORM_FIELDS.includes(part.fieldname) || Object.hasOwn(fields, part.fieldname)) {
              throw invalid(part.fieldname, MESSAGES.unexpectedField(part.fieldname));
            }
            if (part.valueTruncated) throw invalid(part.fieldname, MESSAGES.fieldTooLong(part.fieldname));
            fields[part.fieldname] = String(part.value);
            continue;
          }
          if (part.fieldname !== 'file' || file) {
            part.file.resume();
            throw invalid(part.fieldname, MESSAGES.unexpectedField(part.fieldname));
          }
          const originalName = safeFileName(part.filename ?? '');
          const kind = kindOfName(originalName);
          if (!kind) {
            part.file.resume();
            throw unsupported();
          }
          // When the form names its project first, a caller without write access is refused before the upload.
          if (fields.project !== undefined) {
            const projectId = projectField();
            await request.tenantDb((tx) => scope.require(request, tx, projectId, 'edit'));
          }
          const check = new ContentCheck(kind);
          const source = part.file;
          let incoming: Error | undefined;
          // The bytes go to the store through this check: a mismatch stops the upload at once.
          async function* inspected() {
            try {
              for await (const chunk of source) {
                check.update(chunk as Buffer);
                if (check.failed) throw new WrongContent();
                yield chunk as Buffer;
              }
            } catch (err) {
              if (!(err instanceof WrongContent)) incoming = err instanceof Error ? err : new Error(String(err));
              throw err;
            }
          }
          written = true;
          let stored: StoredFile;
          try {
            stored = await store.put(storageKey, Readable.from(inspected()));
          } catch (err) {
            if (check.failed) throw unsupported();
            if (source.truncated) throw tooLarge();
            // The multipart stream's own error (a broken form) is the client's; anything else is the store's.
            throw incoming ?? new StoreFailure(err);
          }
          if (part.file.truncated) throw tooLarge();
          if (stored.size === 0) throw invalid('file', MESSAGES.fileEmpty);
          if (!check.verdict()) throw unsupported();
          file = { originalName, kind, stored };
        }
      } catch (err) {
        if (err instanceof ApiError) throw err;
        const code = (err as { code?: string }).code;
        if (code === 'FST_REQ_FILE_TOO_LARGE') throw tooLarge();
        if (code === 'FST_FILES_LIMIT' || code === 'FST_FIELDS_LIMIT' || code === 'FST_PARTS_LIMIT') {
          throw new ApiError(413, 'too_many_parts', MESSAGES.tooManyParts);
        }
        // A store failure (disk full, bucket unreachable) is the server's, not the client's.
        if (err instanceof StoreFailure) throw err.original;
        request.log.info({ err }, 'document upload refused');
        throw new ApiError(400, 'invalid', MESSAGES.multipartInvalid);
      }
      if (!file) throw invalid('file', MESSAGES.fileRequired);

      const errors = new FieldErrors();
      let projectId: number | undefined;
      try {
        projectId = projectField();
      } catch (err) {
        if (!(err instanceof ApiError)) throw err;
        errors.add('project', err.detail);
      }
      const values = validateFields(errors, fields, false, true);
      errors.throwIfAny();
      const upload = file;
      const name = values.name ?? upload.originalName;
      const document = await request.tenantDb(async (tx) => {
        await scope.require(request, tx, projectId!, 'edit');
        const row = await repo.create(tx, {
          projectId: projectId!,
          name,
          title: values.title ?? '',
          description: values.description ?? '',
          documentType: values.documentType ?? 'OTHER',
          originalName: upload.originalName,
          fileType: upload.kind.mime,
          fileSize: upload.stored.size,
          sha256: upload.stored.sha256,
          storageKey,
          uploadedBy: request.auth!.actor.userId,
        });
        await scope.repo.record(
          tx,
          activity(request, row.projectId, row.id, 'uploaded', `Document ${quoted(name)} ajouté`),
        );
        return row;
      });
      committed = true;
      await app.audit.record(request, {
        eventType: 'data_change',
        description: `Projet ${document.projectId} : document ${quoted(name)} déposé`,
        extra: {
          action: 'document_uploaded',
          project_id: document.projectId,
          document_id: document.id,
          file_type: document.fileType,
          file_size: document.fileSize,
          sha256: document.sha256,
        },
      });
      return reply.code(201).send(presentDocument(document));
    } finally {
      if (written && !committed) {
        await store.delete(storageKey).catch((err: unknown) => {
          request.log.error({ err, storageKey }, 'refused upload left a stored file');
        });
      }
    }
  });

  /** The document and its project through the gate (404 when either is out of reach). */
  const reach = async (request: FastifyRequest<{ Params: { id: string } }>, need: 'read' | 'edit') => {
    const id = idOf(request);
    return request.tenantDb(async (tx) => {
      const document = await repo.find(tx, id);
      if (!document) throw notFound();
      await scope.require(request, tx, document.projectId, need);
      return document;
    });
  };

  app.get<{ Params: { id: string } }>(
    `${LIST_PATH}:id/`,
    { ...guard.read, schema: { params: idParams } },
    async (request) => presentDocument(await reach(request, 'read')),
  );

  for (const method of ['put', 'patch'] as const) {
    app[method]<{ Params: { id: string }; Body: UpdateBody }>(
      `${LIST_PATH}:id/`,
      { ...guard.write, schema: { params: idParams, body: updateBody } },
      async (request) => {
        const id = idOf(request);
        let entry: ActivityEntry | undefined;
        const updated = await request.tenantDb(async (tx) => {
          const document = await repo.find(tx, id);
          if (!document) throw notFound();
          await scope.require(request, tx, document.projectId, 'edit');
          const errors = new FieldErrors();
          const values = validateFields(errors, request.body, method === 'put', method === 'put');
          errors.throwIfAny();
          const row = await repo.update(tx, id, values);
          if (!row) throw notFound();
          entry = activity(request, row.projectId, row.id, 'updated', `Document ${quoted(row.name)} modifié`);
          await scope.repo.record(tx, entry);
          return row;
        });
        if (entry) await auditProjectWrite(app, request, entry);
        return presentDocument(updated);
      },
    );
  }

  app.delete<{ Params: { id: string } }>(
    `${LIST_PATH}:id/`,
    { ...guard.write, schema: { params: idParams } },
    async (request, reply) => {
      const id = idOf(request);
      let entry: ActivityEntry | undefined;
      const removed = await request.tenantDb(async (tx) => {
        const document = await repo.find(tx, id);
        if (!document) throw notFound();
        await scope.require(request, tx, document.projectId, 'edit');
        const row = await repo.remove(tx, id);
        if (!row) throw notFound();
        entry = activity(request, row.projectId, row.id, 'deleted', `Document ${quoted(row.name)} supprimé`);
        await scope.repo.record(tx, entry);
        return row;
      });
      // The row is gone first: a file that cannot be removed is an orphan (logged), never a row without its file.
      await store.delete(removed.storageKey).catch((err: unknown) => {
        request.log.error({ err, storageKey: removed.storageKey }, 'deleted document left its stored file');
      });
      if (entry) await auditProjectWrite(app, request, entry);
      return reply.code(204).send();
    },
  );

  app.get<{ Params: { id: string } }>(
    `${LIST_PATH}:id/download/`,
    { ...guard.read, schema: { params: idParams } },
    async (request, reply) => {
      const document = await reach(request, 'read');
      let body: Readable;
      try {
        body = await store.get(document.storageKey);
      } catch (err) {
        if (!(err instanceof StoredFileMissingError)) throw err;
        request.log.error({ documentId: document.id }, 'document without its stored file');
        throw new ApiError(404, 'file_missing', MESSAGES.fileMissing);
      }
      await app.audit.record(request, {
        eventType: 'sensitive_data_access',
        description: `Téléchargement du document ${quoted(document.name)}`,
        extra: {
          action: 'document_downloaded',
          project_id: document.projectId,
          document_id: document.id,
          file_type: document.fileType,
          file_size: document.fileSize,
        },
      });
      // Always a download, never rendered: the stored type, no sniffing, no caching, and a sandbox should a
      // browser ever display it anyway.
      return reply
        .header('Content-Type', document.fileType)
        .header('Content-Length', String(document.fileSize))
        .header('Content-Disposition', attachmentDisposition(downloadName(document.name, document.fileType)))
        .header('X-Content-Type-Options', 'nosniff')
        .header('Cache-Control', 'private, no-store')
        .header('Content-Security-Policy', "default-src 'none'; sandbox")
        .send(body);
    },
  );
};

export default documentRoutes;
