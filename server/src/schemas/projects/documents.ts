/**
 * Project documents' inputs (docs/api-projects.md "Documents"): the upload's limits and form fields, the editable
 * fields shared by the upload and PUT/PATCH, the list's filters, with their French messages.
 */
import { DOCUMENT_TYPES } from '../../domain/project-vocabulary.ts';
import { charCount } from '../../../../contract/text.ts';
import { FieldErrors } from '../../domain/errors.ts';
import { safeFileName } from '../../lib/file-type.ts';
import { ProjectDocumentSchema } from '../../presenters/project-document.ts';
import type { DocumentValues } from '../../repositories/project-documents.ts';
import { ListQuery, type Static, Type, WriteBody as writeBody } from '../common.ts';
import { invalid } from '../fields.ts';
import { parseId, parsePaging, parseQueryId, type RawQuery } from '../query.ts';
import { choiceOf, choices, PAGE_SIZE } from './choices.ts';

const MAX_TITLE = 300;
const MAX_DESCRIPTION = 10_000;
const MIB = 1024 * 1024;
export const DEFAULT_DOCUMENT_MAX_BYTES = 25 * MIB;
/** Room for the form's other fields and the multipart framing around the file. */
export const FORM_OVERHEAD = MIB;
export const FORM_FIELDS = ['project', 'name', 'title', 'description', 'document_type'];

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

const TYPES = choices('Type de document', DOCUMENT_TYPES);

export const DOCUMENT_MESSAGES = {
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
  fileMissing: 'Le fichier de ce document est introuvable.',
} as const;
const MESSAGES = DOCUMENT_MESSAGES;

export const DocumentQuery = ListQuery({
  project: 'Identifiant du projet',
  document_type: `Type de document : ${DOCUMENT_TYPES.join(', ')}`,
});

export const UpdateBody = writeBody(ProjectDocumentSchema, {
  name: Type.Optional(Type.String({ maxLength: 1000 })),
  title: Type.Optional(Type.String({ maxLength: 4096, errorMessage: { maxLength: MESSAGES.titleTooLong } })),
  description: Type.Optional(
    Type.String({ maxLength: 100_000, errorMessage: { maxLength: MESSAGES.descriptionTooLong } }),
  ),
  document_type: TYPES.field,
});
type UpdateBody = Static<typeof UpdateBody>;

/** The list's paging and filters. */
export function readDocumentQuery(query: RawQuery) {
  const errors = new FieldErrors();
  const paging = parsePaging(errors, query, PAGE_SIZE);
  const projectId = parseQueryId(errors, query, 'project');
  const documentType = choiceOf(errors, 'document_type', query.document_type?.trim() || undefined, TYPES);
  errors.throwIfAny();
  return { paging, projectId, documentType };
}

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
    if (charCount(title) > MAX_TITLE) errors.add('title', MESSAGES.titleTooLong);
    else out.title = title;
  }
  if (body.description !== undefined || full) {
    const description = (body.description ?? '').trim();
    if (charCount(description) > MAX_DESCRIPTION) errors.add('description', MESSAGES.descriptionTooLong);
    else out.description = description;
  }
  if (body.document_type !== undefined || full) {
    const type = choiceOf(errors, 'document_type', (body.document_type ?? '').trim() || 'OTHER', TYPES);
    if (type !== undefined) out.documentType = type;
  }
  return out;
}

/** PUT (`full`: every field, the name required) and PATCH. */
export function validateDocumentChange(body: UpdateBody, full: boolean): DocumentValues {
  const errors = new FieldErrors();
  const values = validateFields(errors, body, full, full);
  errors.throwIfAny();
  return values;
}

/** The form's project: its id, or the French reason it is not one. */
function formProject(raw: string | undefined): number | string {
  const value = raw?.trim();
  return value ? (parseId(value) ?? MESSAGES.projectInvalid) : MESSAGES.projectRequired;
}

/** The project of a form that names it before its file (400 when it is not an id), to check before the upload. */
export function earlyProject(fields: Record<string, string>): number | undefined {
  if (fields.project === undefined) return undefined;
  const project = formProject(fields.project);
  if (typeof project === 'string') throw invalid('project', project);
  return project;
}

/** An upload's form fields: the project and the document's fields, each with its default. */
export function validateUploadForm(fields: Record<string, string>, originalName: string) {
  const errors = new FieldErrors();
  const projectId = formProject(fields.project);
  if (typeof projectId === 'string') errors.add('project', projectId);
  const values = validateFields(errors, fields, true, false);
  errors.throwIfAny();
  return {
    projectId: projectId as number,
    name: values.name ?? originalName,
    title: values.title ?? '',
    description: values.description ?? '',
    documentType: values.documentType ?? 'OTHER',
  };
}
