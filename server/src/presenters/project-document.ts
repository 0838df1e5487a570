import type { DocumentRow } from '../repositories/project-documents.ts';

/** Document (docs/api-projects.md): exactly these fields leave the server; never the storage key. */
export function presentDocument(d: DocumentRow) {
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

export type ProjectDocument = ReturnType<typeof presentDocument>;
