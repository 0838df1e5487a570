import { bigint, index, pgTable, text } from 'drizzle-orm/pg-core';
import type { DocumentType } from '../../domain/project-vocabulary.ts';
import { bigId, tenantRef, timestamps, userRef } from './columns.ts';
import { inProject } from './project-keys.ts';

// The vocabulary is pure and lives in domain/ (the scoring rules read it too); re-exported with its tables.
export { DOCUMENT_TYPES, type DocumentType } from '../../domain/project-vocabulary.ts';

// Project documents (files kept out of the web root).

/**
 * A project document. The file lives outside the web root under a generated name (storage_key), on disk in the
 * data dir or in an S3-compatible bucket; the original name is only ever shown, never used as a path.
 */
export const projectDocuments = pgTable(
  'project_documents',
  {
    id: bigId(),
    tenantId: tenantRef(),
    projectId: bigint('project_id', { mode: 'number' }).notNull(),
    name: text('name').notNull(),
    title: text('title').notNull().default(''),
    description: text('description').notNull().default(''),
    documentType: text('document_type').$type<DocumentType>().notNull().default('OTHER'),
    originalName: text('original_name').notNull(),
    fileType: text('file_type').notNull(),
    fileSize: bigint('file_size', { mode: 'number' }).notNull(),
    sha256: text('sha256').notNull(),
    storageKey: text('storage_key').notNull().unique(),
    uploadedBy: userRef('uploaded_by'),
    ...timestamps(),
  },
  (t) => [
    inProject(t, 'project_documents_project_fk'),
    index('project_documents_tenant_project_idx').on(t.tenantId, t.projectId),
  ],
);
