import { and, count, desc, eq, sql, type SQL } from 'drizzle-orm';
import type { TenantDb } from '../db/tenant-scope.ts';
import { projectDocuments, projects, type DocumentType } from '../db/schema.ts';
import type { Actor } from '../policies/index.ts';
import { ProjectAccessRepository } from './project-access.ts';
import { projectOf } from './project-joins.ts';

const projectAccess = new ProjectAccessRepository();

export type DocumentRow = typeof projectDocuments.$inferSelect;

/** What a client may change on a document (the file itself stays). */
export interface DocumentValues {
  name?: string;
  title?: string;
  description?: string;
  documentType?: DocumentType;
}

export type NewDocument = Required<DocumentValues> & {
  projectId: number;
  originalName: string;
  fileType: string;
  fileSize: number;
  sha256: string;
  storageKey: string;
  uploadedBy: number | null;
};

export interface DocumentFilters {
  projectId?: number | undefined;
  documentType?: DocumentType | undefined;
  limit: number;
  offset: number;
}

// Row-level security already confines the table; naming the tenant again lets the planner use the tenant indexes.
const inCurrentTenant = eq(projectDocuments.tenantId, sql`app_current_tenant()`);

/** Project documents' metadata (the bytes live in the DocumentStore under storage_key). */
export class ProjectDocumentsRepository {
  /** Documents of the projects the actor can read, newest first. */
  async page(tx: TenantDb, actor: Actor, f: DocumentFilters): Promise<{ count: number; rows: DocumentRow[] }> {
    const where: SQL[] = [inCurrentTenant, projectAccess.readable(actor)];
    if (f.projectId !== undefined) where.push(eq(projectDocuments.projectId, f.projectId));
    if (f.documentType !== undefined) where.push(eq(projectDocuments.documentType, f.documentType));
    const joined = projectOf(projectDocuments);
    const [total] = await tx
      .select({ n: count() })
      .from(projectDocuments)
      .innerJoin(projects, joined)
      .where(and(...where));
    const rows = await tx
      .select({ document: projectDocuments })
      .from(projectDocuments)
      .innerJoin(projects, joined)
      .where(and(...where))
      .orderBy(desc(projectDocuments.createdAt), desc(projectDocuments.id))
      .limit(f.limit)
      .offset(f.offset);
    return { count: total?.n ?? 0, rows: rows.map((r) => r.document) };
  }

  /** The document of this id in the current tenant, whatever the caller may see: the route asks the gate. */
  async find(tx: TenantDb, id: number): Promise<DocumentRow | undefined> {
    const [row] = await tx
      .select()
      .from(projectDocuments)
      .where(and(inCurrentTenant, eq(projectDocuments.id, id)))
      .limit(1);
    return row;
  }

  async create(tx: TenantDb, values: NewDocument): Promise<DocumentRow> {
    const [row] = await tx
      .insert(projectDocuments)
      .values({ ...values, tenantId: sql`app_current_tenant()` })
      .returning();
    return row!;
  }

  async update(tx: TenantDb, id: number, values: DocumentValues): Promise<DocumentRow | undefined> {
    const [row] = await tx
      .update(projectDocuments)
      .set({ ...values, updatedAt: new Date() })
      .where(and(inCurrentTenant, eq(projectDocuments.id, id)))
      .returning();
    return row;
  }

  /** Deletes the row and answers it (its storage key tells which file to remove once committed). */
  async remove(tx: TenantDb, id: number): Promise<DocumentRow | undefined> {
    const [row] = await tx
      .delete(projectDocuments)
      .where(and(inCurrentTenant, eq(projectDocuments.id, id)))
      .returning();
    return row;
  }
}
