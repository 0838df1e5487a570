/**
 * Blog images (docs/api-blog.md): bytes in the document store under `blog/{tenant}/{uuid}` (beside the project
 * documents, never under the web root), the record in blog_images.
 */
import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import type { Multipart } from '@fastify/multipart';
import type { TenantDb } from '../db/tenant-scope.ts';
import { ApiError, notFound } from '../domain/errors.ts';
import { StoredFileMissingError, type DocumentStore } from '../lib/document-store.ts';
import { ContentCheck, kindOfName, safeFileName, type FileKind } from '../lib/file-type.ts';
import { BlogRepository, type BlogImageRow } from '../repositories/blog.ts';
import { IMAGE_MESSAGES, imageTooLarge } from '../schemas/blog.ts';
import { invalid } from '../schemas/fields.ts';
import { MULTIPART_MESSAGES, multipartRefusal } from './multipart-refusals.ts';

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

interface Log {
  info(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

/** Each step in its own tenant transaction (request.tenantDb). */
type InTenant = <T>(fn: (tx: TenantDb) => Promise<T>) => Promise<T>;

export interface ImageUpload {
  data: Buffer;
  /** The client's file name, only ever metadata. */
  name: string;
  kind: FileKind;
}

export class BlogImages {
  private readonly repo = new BlogRepository();

  constructor(private readonly store: DocumentStore) {}

  /** The form's one `file` part, typed by its bytes; other text fields (a caption a client adds) are ignored. */
  async receive(parts: AsyncIterable<Multipart>, log: Log): Promise<ImageUpload> {
    let upload: { data: Buffer; name: string } | undefined;
    try {
      for await (const part of parts) {
        if (part.type === 'field') continue;
        if (part.fieldname !== 'file' || upload) {
          part.file.resume();
          throw invalid(part.fieldname, MULTIPART_MESSAGES.unexpectedField(part.fieldname));
        }
        // At most 5 MiB: small enough to check whole in memory.
        upload = { data: await part.toBuffer(), name: safeFileName(part.filename ?? '', 'image') };
      }
    } catch (err) {
      throw multipartRefusal(err, imageTooLarge, (e) => log.info({ err: e }, 'blog image upload refused'));
    }
    if (!upload) throw invalid('file', IMAGE_MESSAGES.fileRequired);
    const kind = imageKind(upload.data);
    if (!kind) {
      throw new ApiError(400, 'unsupported_image', IMAGE_MESSAGES.format, {
        fields: { file: [IMAGE_MESSAGES.format] },
      });
    }
    return { ...upload, kind };
  }

  /** The bytes under the server's own name, then the record; a refused record leaves no stored file behind. */
  async save(inTenant: InTenant, tenantId: string, upload: ImageUpload, uploadedBy: number, log: Log) {
    const storageKey = `blog/${tenantId}/${randomUUID()}`;
    const stored = await this.store.put(storageKey, Readable.from([upload.data]));
    try {
      return await inTenant((tx) =>
        this.repo.createImage(tx, {
          originalName: upload.name,
          contentType: upload.kind.mime,
          fileSize: stored.size,
          sha256: stored.sha256,
          storageKey,
          uploadedBy,
        }),
      );
    } catch (err) {
      await this.store.delete(storageKey).catch((e: unknown) => {
        log.error({ err: e, storageKey }, 'refused blog image left a stored file');
      });
      throw err;
    }
  }

  /** An image's bytes; 404 when its stored file is missing. */
  async bytes(image: BlogImageRow, log: Log): Promise<Readable> {
    try {
      return await this.store.get(image.storageKey);
    } catch (err) {
      if (!(err instanceof StoredFileMissingError)) throw err;
      log.error({ imageId: image.id }, 'blog image without its stored file');
      throw notFound();
    }
  }
}
