import multipart from '@fastify/multipart';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { createDocumentStore } from '../../../lib/document-store.ts';
import { currentTenant, signedIn } from '../../../plugins/app/authorization.ts';
import { BlogImageSchema, presentBlogImage } from '../../../presenters/blog-post.ts';
import { BlogRepository } from '../../../repositories/blog.ts';
import { BLOG_IMAGE_MAX_BYTES, IMAGE_FORM_MAX_BYTES, IMAGE_MESSAGES, imageTooLarge } from '../../../schemas/blog.ts';
import { IdParams, replies, Type } from '../../../schemas/common.ts';
import { invalid } from '../../../schemas/fields.ts';
import { BlogImages } from '../../../services/blog-images.ts';
import { found } from '../shared.ts';
import { blogGuards } from './guards.ts';

const LIST_PATH = '/api/blog/images/';
const tags = ['Blog'];

/**
 * Blog images (docs/api-blog.md, services/blog-images.ts). Served with the stored type, no sniffing and a
 * sandboxing CSP, so an image can never run as a page.
 */
const imageRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const store = createDocumentStore(app.filesDir);
  app.addHook('onClose', async () => store.close());
  // Encapsulated here: only the upload route accepts multipart bodies, with the image's limits.
  await app.register(multipart, {
    limits: { fileSize: BLOG_IMAGE_MAX_BYTES, files: 1, fields: 5, fieldSize: 1024, parts: 6, headerPairs: 100 },
  });
  const guard = blogGuards(app);
  const images = new BlogImages(store);
  const repo = new BlogRepository();

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
    if (Number.isFinite(declared) && declared > IMAGE_FORM_MAX_BYTES) throw imageTooLarge();
    const upload = await images.receive(request.parts(), request.log);
    const image = await images.save(
      (fn) => request.tenantDb(fn),
      currentTenant(request),
      upload,
      signedIn(request).actor.userId,
      request.log,
    );
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
      const image = await found(request, (tx) => repo.findImage(tx, id));
      const body = await images.bytes(image, request.log);
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
