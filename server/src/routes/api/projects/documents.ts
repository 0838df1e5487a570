import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import multipart from '@fastify/multipart';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { DOCUMENT_TYPES, type DocumentType } from '../../../db/schema.ts';
import { ApiError, FieldErrors, notFound } from '../../../domain/errors.ts';
import { createDocumentStore, StoredFileMissingError, type StoredFile } from '../../../lib/document-store.ts';
import {
  attachmentDisposition,
  ContentCheck,
  downloadName,
  kindOfName,
  safeFileName,
  type FileKind,
} from '../../../lib/file-type.ts';
import { currentTenant, signedIn } from '../../../plugins/app/authorization.ts';
import { presentDocument, ProjectDocumentSchema } from '../../../presenters/project-document.ts';
import type { ActivityEntry } from '../../../repositories/project-access.ts';
import {
  ProjectDocumentsRepository,
  type DocumentRow,
  type DocumentValues,
} from '../../../repositories/project-documents.ts';
import type { TenantDb } from '../../../db/tenant-scope.ts';
import {
  IdParams,
  ListQuery,
  NoContent,
  Paged,
  replies,
  type Static,
  Type,
  WriteBody as writeBody,
} from '../../../schemas/common.ts';
import { auditProjectWrite, projectGate, quoted } from './access.ts';
import { gatedLoader } from './work/shared.ts';
import { accessGuards } from '../shared.ts';
import { pagedResponse } from '../../../presenters/paged.ts';
import { parseId, parsePaging, parseQueryId } from '../../../schemas/query.ts';

const LIST_PATH = '/api/projects/documents/';
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

const DocumentQuery = ListQuery({
  project: 'Identifiant du projet',
  document_type: `Type de document : ${DOCUMENT_TYPE_LIST}`,
});

const UpdateBody = writeBody(ProjectDocumentSchema, {
  name: Type.Optional(Type.String({ maxLength: 1000 })),
  title: Type.Optional(Type.String({ maxLength: 4096, errorMessage: { maxLength: MESSAGES.titleTooLong } })),
  description: Type.Optional(
    Type.String({ maxLength: 100_000, errorMessage: { maxLength: MESSAGES.descriptionTooLong } }),
  ),
  document_type: Type.Optional(Type.String({ maxLength: 64, errorMessage: MESSAGES.documentType })),
});
type UpdateBody = Static<typeof UpdateBody>;

const isDocumentType = (v: string): v is DocumentType => (DOCUMENT_TYPES as readonly string[]).includes(v);

/**
 * Checks the editable fields, shared by the upload and PUT/PATCH: `full` fills what is absent with its default
 * (upload, PUT); `requireName` for PUT and for nothing else (an upload defaults to the file's name).
 */
function validateFields(errors: FieldErrors, body: UpdateBody, full: boolean, requireName: boolean): DocumentValues {
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

/** The form's project: its id, or the French reason it is not one. */
function formProject(raw: string | undefined): number | string {
  const value = raw?.trim();
  return value ? (parseId(value) ?? MESSAGES.projectInvalid) : MESSAGES.projectRequired;
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
const documentRoutes: FastifyPluginAsyncTypebox = async (app) => {
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
  const load = gatedLoader(scope, (tx, id) => repo.find(tx, id));
  const tooLarge = () => new ApiError(413, 'file_too_large', MESSAGES.tooLarge(maxBytes));
  const tags = ['Projets — documents'];
  const ITEM = `${LIST_PATH}:id/`;

  const activity = (request: FastifyRequest, row: { id: number; projectId: number }, action: string, summary: string) =>
    ({
      projectId: row.projectId,
      userId: signedIn(request).actor.userId,
      action,
      objectType: 'document',
      objectId: row.id,
      summary,
    }) satisfies ActivityEntry;

  app.get(
    LIST_PATH,
    {
      ...guard.read,
      schema: {
        tags,
        querystring: DocumentQuery,
        response: replies.signedIn({ 200: Paged(ProjectDocumentSchema) }, 400),
      },
    },
    async (request) => {
      const errors = new FieldErrors();
      const q = request.query;
      const paging = parsePaging(errors, q, MAX_PAGE_SIZE);
      const projectId = parseQueryId(errors, q, 'project');
      const rawType = q.document_type?.trim().toUpperCase() || undefined;
      if (rawType !== undefined && !isDocumentType(rawType)) errors.add('document_type', MESSAGES.documentType);
      errors.throwIfAny();
      const page = await request.tenantDb((tx) =>
        repo.page(tx, signedIn(request).actor, {
          projectId,
          documentType: rawType as DocumentType | undefined,
          limit: paging.pageSize,
          offset: (paging.page - 1) * paging.pageSize,
        }),
      );
      const keys = Object.keys(DocumentQuery.properties);
      return pagedResponse(LIST_PATH, q, keys, paging, page.count, page.rows.map(presentDocument));
    },
  );

  app.post(
    LIST_PATH,
    {
      ...guard.write,
      schema: {
        tags,
        description: `multipart/form-data : file (requis), project (requis), ${FORM_FIELDS.slice(1).join(', ')}.`,
        consumes: ['multipart/form-data'],
        response: replies.signedIn({ 201: ProjectDocumentSchema }, 400, 404, 413, 415),
      },
    },
    async (request, reply) => {
      if (!request.isMultipart()) throw invalid('file', MESSAGES.multipartRequired);
      // A body announced bigger than any acceptable form is refused before a byte of it is read.
      const declared = Number(request.headers['content-length']);
      if (Number.isFinite(declared) && declared > maxBytes + FORM_OVERHEAD) throw tooLarge();

      // The server's name for the bytes; the client's file name is only ever metadata.
      const storageKey = `${currentTenant(request)}/${randomUUID()}`;
      const fields: Record<string, string> = {};
      let file: { originalName: string; kind: FileKind; stored: StoredFile } | undefined;
      let written = false;
      let committed = false;

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
              const project = formProject(fields.project);
              if (typeof project === 'string') throw invalid('project', project);
              await request.tenantDb((tx) => scope.require(request, tx, project, 'edit'));
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
        const projectId = formProject(fields.project);
        if (typeof projectId === 'string') errors.add('project', projectId);
        const values = validateFields(errors, fields, true, false);
        errors.throwIfAny();
        const upload = file;
        const name = values.name ?? upload.originalName;
        const document = await request.tenantDb(async (tx) => {
          await scope.require(request, tx, projectId as number, 'edit');
          const row = await repo.create(tx, {
            projectId: projectId as number,
            name,
            title: values.title ?? '',
            description: values.description ?? '',
            documentType: values.documentType ?? 'OTHER',
            originalName: upload.originalName,
            fileType: upload.kind.mime,
            fileSize: upload.stored.size,
            sha256: upload.stored.sha256,
            storageKey,
            uploadedBy: signedIn(request).actor.userId,
          });
          await scope.repo.record(tx, activity(request, row, 'uploaded', `Document ${quoted(name)} ajouté`));
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
    },
  );

  app.get(
    ITEM,
    {
      ...guard.read,
      schema: { tags, params: IdParams, response: replies.signedIn({ 200: ProjectDocumentSchema }, 404) },
    },
    async (request) =>
      presentDocument(await request.tenantDb((tx) => load(request, tx, Number(request.params.id), 'read'))),
  );

  /** A change in one transaction with its activity line, audited once committed. */
  const recorded = async (
    request: FastifyRequest,
    [action, verb]: [string, string],
    change: (tx: TenantDb, document: DocumentRow) => Promise<DocumentRow | undefined>,
  ) => {
    let entry: ActivityEntry | undefined;
    const row = await request.tenantDb(async (tx) => {
      const row = await change(tx, await load(request, tx, Number((request.params as { id: string }).id), 'edit'));
      if (!row) throw notFound();
      entry = activity(request, row, action, `Document ${quoted(row.name)} ${verb}`);
      await scope.repo.record(tx, entry);
      return row;
    });
    await auditProjectWrite(app, request, entry!);
    return row;
  };

  for (const method of ['put', 'patch'] as const) {
    const response = replies.signedIn({ 200: ProjectDocumentSchema }, 400, 404);
    app[method](
      ITEM,
      { ...guard.write, schema: { tags, params: IdParams, body: UpdateBody, response } },
      async (request) => {
        const row = await recorded(request, ['updated', 'modifié'], async (tx, document) => {
          const errors = new FieldErrors();
          const values = validateFields(errors, request.body, method === 'put', method === 'put');
          errors.throwIfAny();
          return repo.update(tx, document.id, values);
        });
        return presentDocument(row);
      },
    );
  }

  const gone = { tags, params: IdParams, response: replies.signedIn({ 204: NoContent }, 404) };
  app.delete(ITEM, { ...guard.write, schema: gone }, async (request, reply) => {
    const row = await recorded(request, ['deleted', 'supprimé'], (tx, document) => repo.remove(tx, document.id));
    // The row is gone first: a file that cannot be removed is an orphan (logged), never a row without its file.
    await store.delete(row.storageKey).catch((err: unknown) => {
      request.log.error({ err, storageKey: row.storageKey }, 'deleted document left its stored file');
    });
    return reply.code(204).send();
  });

  app.get(
    `${ITEM}download/`,
    {
      ...guard.read,
      schema: {
        tags,
        params: IdParams,
        response: replies.signedIn(
          { 200: Type.String({ description: 'Le fichier, en pièce jointe (type enregistré)' }) },
          404,
        ),
      },
    },
    async (request, reply) => {
      const document = await request.tenantDb((tx) => load(request, tx, Number(request.params.id), 'read'));
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
