import type { AnyPgColumn } from 'drizzle-orm/pg-core';
import { cascadeTo } from './columns.ts';
import { projects } from './projects.ts';

// Kept apart from columns.ts, which projects.ts itself imports.

/** The project a row belongs to, in the row's tenant: deleting the project deletes the row. */
export const inProject = (t: { tenantId: AnyPgColumn; projectId: AnyPgColumn }, name: string) =>
  cascadeTo(name, [t.tenantId, t.projectId], projects);
