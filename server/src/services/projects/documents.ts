/**
 * Project documents (docs/api-projects.md "Documents"): metadata in project_documents, bytes in the document store
 * under a random key. An upload is checked by extension and content while it streams to the store; its rows and
 * activity are written through the project's gate.
 */
import { Readable } from 'node:stream';
import type { Multipart } from '@fastify/multipart';
import type { TenantDb } from '../../db/tenant-scope.ts';
import { ApiError, notFound } from '../../domain/errors.ts';
import { storageFailure } from '../../domain/storage-errors.ts';
import type { DocumentStore, StoredFile } from '../../lib/document-store.ts';
import { ContentCheck, kindOfName, safeFileName, type FileKind } from '../../lib/file-type.ts';
import type { Actor } from '../../policies/index.ts';
import {
  ProjectDocumentsRepository,
  type DocumentRow,
  type DocumentValues,
} from '../../repositories/project-documents.ts';
import { invalid } from '../../schemas/fields.ts';
import {
  DOCUMENT_MESSAGES as MESSAGES,
  FORM_FIELDS,
  type validateUploadForm,
} from '../../schemas/projects/documents.ts';
import { ProjectGate, quoted, type ProjectJournal } from './access.ts';

export const tooLarge = (maxBytes: number) => new ApiError(413, 'file_too_large', MESSAGES.tooLarge(maxBytes));
const unsupported = () =>
  new ApiError(415, 'unsupported_file_type', MESSAGES.unsupported, { fields: { file: [MESSAGES.unsupported] } });

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

/** The file of an upload, once in the store. */
export interface UploadedFile {
  originalName: string;
  kind: FileKind;
  stored: StoredFile;
}

/**
 * One multipart upload into the store under `storageKey`: the form's fields, and its one file streamed through the
 * content check, so that a mismatch stops it at once. `written` tells the caller there are bytes to remove should
 * the document not be created.
 */
export class DocumentUpload {
  written = false;

  constructor(
    private readonly store: DocumentStore,
    readonly storageKey: string,
    private readonly maxBytes: number,
  ) {}

  /**
   * Reads the form. `beforeFile` sees the fields sent before the file (a form that names its project first lets a
   * caller without write access be refused before the upload); `log` hears why a broken form was refused.
   */
  async read(
    parts: AsyncIterable<Multipart>,
    beforeFile: (fields: Record<string, string>) => Promise<void>,
    log: (err: unknown) => void,
  ): Promise<{ fields: Record<string, string>; file: UploadedFile }> {
    const fields: Record<string, string> = {};
    let file: UploadedFile | undefined;
    try {
      for await (const part of parts) {
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
        await beforeFile(fields);
        file = { originalName, kind, stored: await this.put(part.file, kind) };
      }
    } catch (err) {
      // A refusal of ours, or the server's disk or database failing (503 from the errors plugin): not a broken form.
      if (err instanceof ApiError || storageFailure(err)) throw err;
      const code = (err as { code?: string }).code;
      if (code === 'FST_REQ_FILE_TOO_LARGE') throw tooLarge(this.maxBytes);
      if (code === 'FST_FILES_LIMIT' || code === 'FST_FIELDS_LIMIT' || code === 'FST_PARTS_LIMIT') {
        throw new ApiError(413, 'too_many_parts', MESSAGES.tooManyParts);
      }
      // A store failure (disk full, bucket unreachable) is the server's, not the client's.
      if (err instanceof StoreFailure) throw err.original;
      log(err);
      throw new ApiError(400, 'invalid', MESSAGES.multipartInvalid);
    }
    if (!file) throw invalid('file', MESSAGES.fileRequired);
    return { fields, file };
  }

  /** The file's bytes to the store through the content check: a mismatch stops the upload at once. */
  private async put(source: Readable & { truncated: boolean }, kind: FileKind): Promise<StoredFile> {
    const check = new ContentCheck(kind);
    let incoming: Error | undefined;
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
    this.written = true;
    let stored: StoredFile;
    try {
      stored = await this.store.put(this.storageKey, Readable.from(inspected()));
    } catch (err) {
      if (check.failed) throw unsupported();
      if (source.truncated) throw tooLarge(this.maxBytes);
      // The multipart stream's own error (a broken form) is the client's; anything else is the store's.
      throw incoming ?? new StoreFailure(err);
    }
    if (source.truncated) throw tooLarge(this.maxBytes);
    if (stored.size === 0) throw invalid('file', MESSAGES.fileEmpty);
    if (!check.verdict()) throw unsupported();
    return stored;
  }
}

/** A document's activity line. */
const line = (row: DocumentRow, action: string, summary: string) => ({
  projectId: row.projectId,
  action,
  objectType: 'document',
  objectId: row.id,
  summary,
});

export class DocumentService {
  readonly repo = new ProjectDocumentsRepository();
  readonly gate = new ProjectGate();
  /** A document through its project's gate. */
  readonly load = this.gate.loader((tx, id) => this.repo.find(tx, id));

  /** The row of an uploaded document, in a project the caller may edit, with its activity line. */
  async create(
    tx: TenantDb,
    actor: Actor,
    form: ReturnType<typeof validateUploadForm>,
    upload: { file: UploadedFile; storageKey: string },
  ): Promise<DocumentRow> {
    await this.gate.require(tx, actor, form.projectId, 'edit');
    const { file, storageKey } = upload;
    const row = await this.repo.create(tx, {
      ...form,
      originalName: file.originalName,
      fileType: file.kind.mime,
      fileSize: file.stored.size,
      sha256: file.stored.sha256,
      storageKey,
      uploadedBy: actor.userId,
    });
    const summary = `Document ${quoted(form.name)} ajouté`;
    await this.gate.repo.record(tx, { ...line(row, 'uploaded', summary), userId: actor.userId });
    return row;
  }

  /**
   * Changes a document's fields (`edit`, read once the gate let the caller through) or, without them, removes it;
   * the activity line goes to the journal.
   */
  async change(tx: TenantDb, journal: ProjectJournal, id: number, edit?: () => DocumentValues): Promise<DocumentRow> {
    const document = await this.load(tx, journal.actor, id, 'edit');
    const row = edit ? await this.repo.update(tx, document.id, edit()) : await this.repo.remove(tx, document.id);
    if (!row) throw notFound();
    const [action, verb] = edit ? ['updated', 'modifié'] : ['deleted', 'supprimé'];
    await journal.record(tx, line(row, action, `Document ${quoted(row.name)} ${verb}`));
    return row;
  }
}
