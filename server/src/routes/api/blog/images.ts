import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import multipart from '@fastify/multipart';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { createDocumentStore, StoredFileMissingError } from '../../../lib/document-store.ts';
import { ContentCheck, kindOfName, safeFileName, type FileKind } from '../../../lib/file-type.ts';
import { ApiError, notFound } from '../../../domain/errors.ts';
import { signedIn } from '../../../plugins/app/authorization.ts';
import { BlogImageSchema, presentBlogImage } from '../../../presenters/blog-post.ts';
import { IdParams, replies, Type } from '../../../schemas/common.ts';
import { BlogRepository } from '../../../repositories/blog.ts';
import { blogGuards } from './guards.ts';

const LIST_PATH = '/api/blog/images/';
const MIB = 1024 * 1024;
export const BLOG_IMAGE_MAX_BYTES = 5 * MIB;
// Room for the multipart framing (and a stray text field) around the file.
const FORM_OVERHEAD = 64 * 1024;

export const IMAGE_MESSAGES = {
  format: "Format d'image non accepté : PNG, JPEG, GIF ou WebP.",
  tooLarge: 'Image trop volumineuse (5 Mio au plus).',
  multipartRequired: "L'image doit être envoyée en multipart/form-data (champ file).",
  multipartInvalid: 'Requête multipart invalide.',
  tooManyParts: 'Trop de champs ou de fichiers dans la requête.',
  unexpectedField: (name: string) => `Champ inattendu : ${name}.`,
  fileRequired: "L'image est requise (champ file).",
} as const;

// The type comes from the bytes, never from the client's name or header: SVG (a script-bearing format) has no
// entry, and an HTML page named .png fails the PNG signature.
const IMAGE_KINDS: readonly FileKind[] = ['png', 'jpg', 'gif', 'webp'].map((ext) => kindOfName(`image.${ext}`)!);

function imageKind(data: Buffer): FileKind | undefined {
  return IMAGE_KINDS.find((kind) => {
    const check = new ContentCheck(kind);
    check.update(data);
    return check.verdict();
  });
}

const invalid = (field: string, message: string) =>
  new ApiError(400, 'invalid', message, { fields: { [field]: [message] } });
const badFormat = () =>
  new ApiError(400, 'unsupported_image', IMAGE_MESSAGES.format, { fields: { file: [IMAGE_MESSAGES.format] } });
const tooLarge = () =>
  new ApiError(413, 'file_too_large', IMAGE_MESSAGES.tooLarge, { fields: { file: [IMAGE_MESSAGES.tooLarge] } });

/**
 * Blog images (docs/api-blog.md): bytes in the document store under `blog/{tenant}/{uuid}` (beside the project
 * documents, never under the web root), the record in blog_images. Served with the stored type, no sniffing and
 * a sandboxing CSP, so an image can never run as a page.
 */
const imageRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const store = createDocumentStore(app.filesDir);
  app.addHook('onClose', async () => store.close());
  // Encapsulated here: only the upload route accepts multipart bodies, with the image's limits.
  await app.register(multipart, {
    limits: { fileSize: BLOG_IMAGE_MAX_BYTES, files: 1, fields: 5, fieldSize: 1024, parts: 6, headerPairs: 100 },
  });
  const guard = blogGuards(app);
  const repo = new BlogRepository();

  const tags = ['Blog'];
  const uploadSchema = {
    tags,
    summary: 'Dépose une image (multipart/form-data, champ file : PNG, JPEG, GIF ou WebP, 5 Mio au plus)',
    consumes: ['multipart/form-data'],
    response: replies.signedIn({ 201: BlogImageSchema }, 400, 413),
  };
  app.post(LIST_PATH, { ...guard.write, schema: uploadSchema }, async (request, reply) => {
    if (!request.isMultipart()) throw invalid('file', IMAGE_MESSAGES.multipartRequired);
    // A body announced bigger than any acceptable form is refused before a byte of it is read.
    const declared = Number(request.headers['content-length']);
    if (Number.isFinite(declared) && declared > BLOG_IMAGE_MAX_BYTES + FORM_OVERHEAD) throw tooLarge();

    let upload: { data: Buffer; name: string } | undefined;
    try {
      for await (const part of request.parts()) {
        // Other text fields (a caption a client adds) are ignored.
        if (part.type === 'field') continue;
        if (part.fieldname !== 'file' || upload) {
          part.file.resume();
          throw invalid(part.fieldname, IMAGE_MESSAGES.unexpectedField(part.fieldname));
        }
        // At most 5 MiB: small enough to check whole in memory.
        const data = await part.toBuffer();
        upload = { data, name: safeFileName(part.filename ?? '', 'image') };
      }
    } catch (err) {
      if (err instanceof ApiError) throw err;
      const code = (err as { code?: string }).code;
      if (code === 'FST_REQ_FILE_TOO_LARGE') throw tooLarge();
      if (code === 'FST_FILES_LIMIT' || code === 'FST_FIELDS_LIMIT' || code === 'FST_PARTS_LIMIT') {
        throw new ApiError(413, 'too_many_parts', IMAGE_MESSAGES.tooManyParts);
      }
      request.log.info({ err }, 'blog image upload refused');
      throw new ApiError(400, 'invalid', IMAGE_MESSAGES.multipartInvalid);
    }
    if (!upload) throw invalid('file', IMAGE_MESSAGES.fileRequired);
    const kind = imageKind(upload.data);
    if (!kind) throw badFormat();

    // The server's name for the bytes; the client's file name is only ever metadata.
    const storageKey = `blog/${signedIn(request).tenant!.id}/${randomUUID()}`;
    const stored = await store.put(storageKey, Readable.from([upload.data]));
    let image;
    try {
      const { name } = upload;
      image = await request.tenantDb((tx) =>
        repo.createImage(tx, {
          originalName: name,
          contentType: kind.mime,
          fileSize: stored.size,
          sha256: stored.sha256,
          storageKey,
          uploadedBy: signedIn(request).actor.userId,
        }),
      );
    } catch (err) {
      await store.delete(storageKey).catch((e: unknown) => {
        request.log.error({ err: e, storageKey }, 'refused blog image left a stored file');
      });
      throw err;
    }
    await app.audit.record(request, {
      eventType: 'data_change',
      description: `Blog : image « ${image.originalName} » déposée`,
      extra: {
        action: 'blog_image_uploaded',
        image_id: image.id,
        content_type: image.contentType,
        size: image.fileSize,
        sha256: image.sha256,
      },
    });
    return reply.code(201).send(presentBlogImage(image));
  });

  app.get(
    `${LIST_PATH}:id/`,
    {
      ...guard.read,
      schema: {
        tags,
        params: IdParams,
        response: replies.signedIn({ 200: Type.String({ description: 'Les octets de l’image, avec son type' }) }, 404),
      },
    },
    async (request, reply) => {
      const id = Number(request.params.id);
      const image = await request.tenantDb((tx) => repo.findImage(tx, id));
      if (!image) throw notFound();
      let body: Readable;
      try {
        body = await store.get(image.storageKey);
      } catch (err) {
        if (!(err instanceof StoredFileMissingError)) throw err;
        request.log.error({ imageId: image.id }, 'blog image without its stored file');
        throw notFound();
      }
      return reply
        .header('Content-Type', image.contentType)
        .header('Content-Length', String(image.fileSize))
        .header('X-Content-Type-Options', 'nosniff')
        .header('Content-Security-Policy', "default-src 'none'; sandbox")
        .header('Cache-Control', 'private, max-age=3600')
        .send(body);
    },
  );
};

export default imageRoutes;
