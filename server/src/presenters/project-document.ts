import { DOCUMENT_TYPES } from '../domain/project-vocabulary.ts';
import type { DocumentRow } from '../repositories/project-documents.ts';
import { Choice, Nullable, Type, type Static } from '../schemas/common.ts';

/** Document (docs/api-projects.md): exactly these fields leave the server; never the storage key. */
export const ProjectDocumentSchema = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String(),
    title: Type.String(),
    file: Type.String({ description: 'Adresse de téléchargement' }),
    project: Type.Integer(),
    description: Type.String(),
    document_type: Choice(DOCUMENT_TYPES),
    file_size: Type.Integer({ minimum: 0 }),
    file_type: Type.String(),
    sha256: Type.String(),
    uploaded_by: Nullable(Type.Integer()),
    created_at: Type.String({ format: 'date-time' }),
    updated_at: Type.String({ format: 'date-time' }),
  },
  { title: 'ProjectDocument' },
);
export type ProjectDocument = Static<typeof ProjectDocumentSchema>;

export function presentDocument(d: DocumentRow): ProjectDocument {
  return {
    id: d.id,
    name: d.name,
    title: d.title,
    file: `/api/projects/documents/${d.id}/download/`,
    project: d.projectId,
    description: d.description,
    document_type: d.documentType,
    file_size: d.fileSize,
    file_type: d.fileType,
    sha256: d.sha256,
    uploaded_by: d.uploadedBy,
    created_at: d.createdAt.toISOString(),
    updated_at: d.updatedAt.toISOString(),
  };
}
