import {
  bigint,
  date,
  foreignKey,
  integer,
  smallint,
  text,
  timestamp,
  uuid,
  type AnyPgColumn,
} from 'drizzle-orm/pg-core';
import { tenants, users } from './identity.ts';

// Column builders the tables repeat, each a fresh builder per call (a builder belongs to one table). Not re-exported
// by the schema barrel: they are not tables.

/** User ids are int4: a larger id names no user (and must not reach the database as an out-of-range value). */
export const INT4_MAX = 2_147_483_647;

/** The bigint identity key of a row. */
export const bigId = () => bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity();

/** The owning tenant: its rows go with it. */
export const tenantRef = () =>
  uuid('tenant_id')
    .notNull()
    .references(() => tenants.id, { onDelete: 'cascade' });

/** An account the row names (author, assignee…): the row stays when the account goes. */
export const userRef = (name: string) => integer(name).references(() => users.id, { onDelete: 'set null' });

/** When the row was written. */
export const createdAt = () => timestamp('created_at', { withTimezone: true }).notNull().defaultNow();

/** When the row was written and last changed. */
export const timestamps = () => ({
  createdAt: createdAt(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});

/** The account the row belongs to: the row goes with it. */
export const userOwner = () =>
  integer('user_id')
    .notNull()
    .references(() => users.id, { onDelete: 'cascade' });

/** A title and a description (empty unless given). */
export const titled = () => ({
  title: text('title').notNull(),
  description: text('description').notNull().default(''),
});

/** Work someone is assigned, due by a date and done in percent (corrective actions, tasks). */
export const assignedWork = () => ({
  assigneeId: userRef('assignee_id'),
  dueDate: date('due_date'),
  progress: smallint('progress').notNull().default(0),
  completedAt: timestamp('completed_at', { withTimezone: true }),
});

/** A foreign key to a parent row of the same tenant: deleting the parent deletes the row. */
export const cascadeTo = (
  name: string,
  columns: [AnyPgColumn, AnyPgColumn],
  parent: { tenantId: AnyPgColumn; id: AnyPgColumn },
) => foreignKey({ name, columns, foreignColumns: [parent.tenantId, parent.id] }).onDelete('cascade');
