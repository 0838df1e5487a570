import { sql } from 'drizzle-orm';
import { check, index, integer, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import {
  DEFAULT_ROTATION_S,
  MAX_DISPLAY_TENANTS,
  MAX_ROTATION_S,
  MIN_ROTATION_S,
  type DisplayPanel,
  type DisplayTextSize,
  type DisplayTheme,
} from '../../domain/displays.ts';
import { createdAt, tenantRef, userRef } from './columns.ts';

export {
  DISPLAY_PANELS,
  DISPLAY_TEXT_SIZES,
  DISPLAY_THEMES,
  type DisplayPanel,
  type DisplayTextSize,
  type DisplayTheme,
} from '../../domain/displays.ts';

// Paired wall screens (issue 22, docs/displays.md). A display belongs to the tenant it was paired in (row-level
// security confines its management there) and shows the tenants chosen for it; its credential is kept as SHA-256
// digests only. Pairings are platform rows: asked by a screen that belongs to no tenant yet.

const at = (name: string) => timestamp(name, { withTimezone: true });

export const displays = pgTable(
  'displays',
  {
    id: uuid('id')
      .primaryKey()
      .default(sql`gen_random_uuid()`),
    tenantId: tenantRef(),
    name: text('name').notNull(),
    /** The tenants it shows, the first by default; checked against the live tenants at each request. */
    tenantIds: uuid('tenant_ids').array().notNull(),
    panels: text('panels').array().$type<DisplayPanel[]>().notNull(),
    rotationS: integer('rotation_s').notNull().default(DEFAULT_ROTATION_S),
    theme: text('theme').$type<DisplayTheme>().notNull().default('dark'),
    textSize: text('text_size').$type<DisplayTextSize>().notNull().default('normal'),
    /** SHA-256 of the credential; null until the screen collected it, and once revoked. */
    tokenHash: text('token_hash'),
    tokenIssuedAt: at('token_issued_at'),
    /** The credential a renewal replaced, accepted until previous_token_expires_at. */
    previousTokenHash: text('previous_token_hash'),
    previousTokenExpiresAt: at('previous_token_expires_at'),
    createdBy: userRef('created_by'),
    createdAt: createdAt(),
    lastSeenAt: at('last_seen_at'),
    lastIp: text('last_ip'),
    version: text('version'),
    revokedAt: at('revoked_at'),
  },
  (t) => [
    uniqueIndex('displays_tenant_id_key').on(t.tenantId, t.id),
    index('displays_tenant_created_idx').on(t.tenantId, t.createdAt),
    uniqueIndex('displays_token_hash_key').on(t.tokenHash),
    uniqueIndex('displays_previous_token_hash_key').on(t.previousTokenHash),
    check(
      'displays_tenant_count',
      sql`cardinality(${t.tenantIds}) between 1 and ${sql.raw(String(MAX_DISPLAY_TENANTS))}`,
    ),
    check(
      'displays_rotation',
      sql`${t.rotationS} between ${sql.raw(String(MIN_ROTATION_S))} and ${sql.raw(String(MAX_ROTATION_S))}`,
    ),
    check('displays_theme', sql`${t.theme} in ('dark', 'light')`),
    check('displays_text_size', sql`${t.textSize} in ('normal', 'large', 'xlarge')`),
  ],
);

/**
 * A screen's request to be paired: the code it shows (its digest: a code is typed by a person, compared as a
 * digest) and the secret it polls with (its digest too). Valid 10 minutes; approved once (display_id), and
 * consumed by the first poll that collects the credential.
 */
export const displayPairings = pgTable(
  'display_pairings',
  {
    id: uuid('id')
      .primaryKey()
      .default(sql`gen_random_uuid()`),
    codeHash: text('code_hash').notNull(),
    pollSecretHash: text('poll_secret_hash').notNull(),
    createdIp: text('created_ip').notNull(),
    createdAt: createdAt(),
    expiresAt: at('expires_at').notNull(),
    /** Set when an approver claimed the code; display_id once the display is written. */
    approvedAt: at('approved_at'),
    displayId: uuid('display_id').references(() => displays.id, { onDelete: 'cascade' }),
    consumedAt: at('consumed_at'),
  },
  (t) => [
    uniqueIndex('display_pairings_code_hash_key').on(t.codeHash),
    index('display_pairings_expires_idx').on(t.expiresAt),
  ],
);
