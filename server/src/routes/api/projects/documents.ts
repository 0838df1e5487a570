import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import multipart from '@fastify/multipart';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ApiError } from '../../../domain/errors.ts';
import { createDocumentStore, StoredFileMissingError } from '../../../lib/document-store.ts';
import { attachmentDisposition, downloadName } from '../../../lib/file-type.ts';
import { currentTenant, signedIn } from '../../../plugins/app/authorization.ts';
import { pagedResponse } from '../../../presenters/paged.ts';
import { presentDocument, ProjectDocumentSchema } from '../../../presenters/project-document.ts';
import { IdParams, NoContent, Paged, replies, Type, type TSchema } from '../../../schemas/common.ts';
import { invalid } from '../../../schemas/fields.ts';
import {
  DOCUMENT_MESSAGES as MESSAGES,
  DocumentQuery,
  documentMaxBytes,
  earlyProject,
  FORM_FIELDS,
  FORM_OVERHEAD,
  readDocumentQuery,
  UpdateBody,
  validateDocumentChange,
  validateUploadForm,
} from '../../../schemas/projects/documents.ts';
import { quoted } from '../../../services/projects/access.ts';
import { DocumentService, DocumentUpload, tooLarge } from '../../../services/projects/documents.ts';
import { accessGuards } from '../shared.ts';
import { journaledWrites } from './access.ts';
import { pageWindow } from '../../../schemas/query.ts';

// The upload's limits are the schemas' (the tests read them from here).
export { DEFAULT_DOCUMENT_MAX_BYTES, documentMaxBytes, formatLimit } from '../../../schemas/projects/documents.ts';

const LIST_PATH = '/api/projects/documents/';
const ITEM = `${LIST_PATH}:id/`;

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
  const documents = new DocumentService();
  const write = journaledWrites(app, documents.gate);
  const tags = ['Projets — documents'];
  const item = (response: Record<number, TSchema>, ...errors: number[]) => ({
    tags,
    params: IdParams,
    response: replies.signedIn(response, 404, ...errors),
  });

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
      const { paging, projectId, documentType } = readDocumentQuery(request.query);
      const page = await request.tenantDb((tx) =>
        documents.repo.page(tx, signedIn(request).actor, {
          projectId,
          documentType,
          ...pageWindow(paging),
        }),
      );
      return pagedResponse(LIST_PATH, request.query, DocumentQuery, paging, page.count, page.rows.map(presentDocument));
    },
  );

  app.post(
    LIST_PATH,
    {
      ...guard.write,
      // The display name is a file name: validateUploadForm cleans it (safeFileName) rather than refusing it.
      config: { fileNameFields: ['name'] },
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
      if (Number.isFinite(declared) && declared > maxBytes + FORM_OVERHEAD) throw tooLarge(maxBytes);

      const actor = signedIn(request).actor;
      // The server's name for the bytes; the client's file name is only ever metadata.
      const upload = new DocumentUpload(store, `${currentTenant(request)}/${randomUUID()}`, maxBytes);
      let committed = false;
      try {
        const { fields, file } = await upload.read(
          request.parts(),
          async (sent) => {
            // A caller without write access to the project the form names first is refused before the upload.
            const project = earlyProject(sent);
            if (project !== undefined)
              await request.tenantDb((tx) => documents.gate.require(tx, actor, project, 'edit'));
          },
          (err) => request.log.info({ err }, 'document upload refused'),
        );
        const form = validateUploadForm(fields, file.originalName);
        const document = await request.tenantDb((tx) =>
          documents.create(tx, actor, form, { file, storageKey: upload.storageKey }),
        );
        committed = true;
        await app.audit.record(request, {
          eventType: 'data_change',
          description: `Projet ${document.projectId} : document ${quoted(form.name)} déposé`,
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
        if (upload.written && !committed) {
          await store.delete(upload.storageKey).catch((err: unknown) => {
            request.log.error({ err, storageKey: upload.storageKey }, 'refused upload left a stored file');
          });
        }
      }
    },
  );

  app.get(ITEM, { ...guard.read, schema: item({ 200: ProjectDocumentSchema }) }, async (request) =>
    presentDocument(
      await request.tenantDb((tx) => documents.load(tx, signedIn(request).actor, Number(request.params.id), 'read')),
    ),
  );

  for (const method of ['put', 'patch'] as const) {
    const schema = { ...item({ 200: ProjectDocumentSchema }, 400), body: UpdateBody };
    app[method](ITEM, { ...guard.write, schema }, async (request) => {
      const edit = () => validateDocumentChange(request.body, method === 'put');
      return presentDocument(await write(request, (tx, j) => documents.change(tx, j, Number(request.params.id), edit)));
    });
  }

  app.delete(ITEM, { ...guard.write, schema: item({ 204: NoContent }) }, async (request, reply) => {
    const row = await write(request, (tx, journal) => documents.change(tx, journal, Number(request.params.id)));
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
      schema: item({ 200: Type.String({ description: 'Le fichier, en pièce jointe (type enregistré)' }) }),
    },
    async (request, reply) => {
      const actor = signedIn(request).actor;
      const document = await request.tenantDb((tx) => documents.load(tx, actor, Number(request.params.id), 'read'));
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
