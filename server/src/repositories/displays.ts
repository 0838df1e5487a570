import { and, desc, eq, gt, inArray, isNotNull, isNull, lt, or, sql } from 'drizzle-orm';
import type { Db } from '../db/client.ts';
import type { TenantDb } from '../db/tenant-scope.ts';
import { displayPairings, displays, tenants, users } from '../db/schema.ts';
import type { DisplayPanel, DisplayTextSize, DisplayTheme } from '../domain/displays.ts';

export type DisplayRow = typeof displays.$inferSelect;
export type PairingRow = typeof displayPairings.$inferSelect;

/** What an approver chooses for a display, and what may change later. */
export interface DisplaySettings {
  name: string;
  tenantIds: string[];
  panels: DisplayPanel[];
  rotationS: number;
  theme: DisplayTheme;
  textSize: DisplayTextSize;
}

/** A display with the names it shows: its tenants' (in its order) and its approver's. */
export interface DisplayView {
  row: DisplayRow;
  tenants: { id: string; name: string }[];
  createdBy: string | null;
}

const current = sql`app_current_tenant()`;

/**
 * A tenant's wall screens, as its administrators and managers see and change them: always inside the tenant's
 * transaction (row-level security keeps each tenant's displays its own).
 */
export class DisplaysRepository {
  /** Newest first, revoked ones too. */
  list(tx: TenantDb): Promise<DisplayRow[]> {
    return tx
      .select()
      .from(displays)
      .where(eq(displays.tenantId, current))
      .orderBy(desc(displays.createdAt), desc(displays.id));
  }

  async find(tx: TenantDb, id: string): Promise<DisplayRow | undefined> {
    const [row] = await tx
      .select()
      .from(displays)
      .where(and(eq(displays.tenantId, current), eq(displays.id, id)));
    return row;
  }

  async create(tx: TenantDb, settings: DisplaySettings, createdBy: number): Promise<DisplayRow> {
    const [row] = await tx
      .insert(displays)
      .values({ tenantId: current, ...settings, createdBy })
      .returning();
    return row!;
  }

  /** The changed settings of a display that is not revoked; undefined when there is none such. */
  async update(tx: TenantDb, id: string, changes: Partial<DisplaySettings>): Promise<DisplayRow | undefined> {
    if (Object.keys(changes).length === 0) {
      const row = await this.find(tx, id);
      return row?.revokedAt ? undefined : row;
    }
    const [row] = await tx
      .update(displays)
      .set(changes)
      .where(and(eq(displays.tenantId, current), eq(displays.id, id), isNull(displays.revokedAt)))
      .returning();
    return row;
  }

  /** Off the list: only a revoked display (the route says why not otherwise). */
  async removeRevoked(tx: TenantDb, id: string): Promise<DisplayRow | undefined> {
    const [row] = await tx
      .delete(displays)
      .where(and(eq(displays.tenantId, current), eq(displays.id, id), isNotNull(displays.revokedAt)))
      .returning();
    return row;
  }

  /** Revoked at once: its credentials forgotten. A display revoked before keeps its date. */
  async revoke(tx: TenantDb, id: string, now: Date): Promise<DisplayRow | undefined> {
    const [row] = await tx
      .update(displays)
      .set({
        revokedAt: sql`coalesce(${displays.revokedAt}, ${now})`,
        tokenHash: null,
        previousTokenHash: null,
        previousTokenExpiresAt: null,
      })
      .where(and(eq(displays.tenantId, current), eq(displays.id, id)))
      .returning();
    return row;
  }
}

/** A display recognised by its credential, and whether the credential was the one a renewal replaced. */
export interface RecognisedDisplay {
  row: DisplayRow;
  viaPrevious: boolean;
}

/**
 * The credential side of displays, on the owner connection: a device is recognised before any tenant is known (as an
 * account is at sign-in), and its tenants' names are platform rows.
 */
export const displayCredentialRepo = {
  /** The live display whose credential (or replaced credential, within its grace) has this digest. */
  async recognise(db: Db, digest: string, now: Date): Promise<RecognisedDisplay | undefined> {
    const [row] = await db
      .select()
      .from(displays)
      .where(
        and(
          isNull(displays.revokedAt),
          or(
            eq(displays.tokenHash, digest),
            and(eq(displays.previousTokenHash, digest), gt(displays.previousTokenExpiresAt, now)),
          ),
        ),
      )
      .limit(1);
    return row ? { row, viaPrevious: row.tokenHash !== digest } : undefined;
  },

  /** The first credential of a display (the pairing collected); undefined when it was revoked meanwhile. */
  async issue(db: Db, id: string, digest: string, now: Date): Promise<DisplayRow | undefined> {
    const [row] = await db
      .update(displays)
      .set({ tokenHash: digest, tokenIssuedAt: now, previousTokenHash: null, previousTokenExpiresAt: null })
      .where(and(eq(displays.id, id), isNull(displays.revokedAt)))
      .returning();
    return row;
  },

  /**
   * A new credential in place of the one presented. Presented as the current one, that one stays valid until
   * `graceUntil`; presented as the replaced one (the renewed answer never arrived), the replaced one keeps its own
   * grace and the lost one is forgotten. One statement: two renewals at once leave one current credential.
   */
  async renew(db: Db, id: string, presented: string, digest: string, now: Date, graceUntil: Date) {
    const wasCurrent = sql`${displays.tokenHash} = ${presented}`;
    const [row] = await db
      .update(displays)
      .set({
        previousTokenHash: sql`case when ${wasCurrent} then ${displays.tokenHash} else ${displays.previousTokenHash} end`,
        previousTokenExpiresAt: sql`case when ${wasCurrent} then ${graceUntil}::timestamptz else ${displays.previousTokenExpiresAt} end`,
        tokenHash: digest,
        tokenIssuedAt: now,
      })
      .where(
        and(
          eq(displays.id, id),
          isNull(displays.revokedAt),
          or(eq(displays.tokenHash, presented), eq(displays.previousTokenHash, presented)),
        ),
      )
      .returning();
    return row;
  },

  /** Last seen, from where and with which version of the app. */
  async seen(
    db: Db,
    id: string,
    seen: { at: Date; ip: string; version: string | null },
  ): Promise<DisplayRow | undefined> {
    const [row] = await db
      .update(displays)
      .set({ lastSeenAt: seen.at, lastIp: seen.ip, version: seen.version })
      .where(eq(displays.id, id))
      .returning();
    return row;
  },

  async find(db: Db, id: string): Promise<DisplayRow | undefined> {
    const [row] = await db.select().from(displays).where(eq(displays.id, id));
    return row;
  },

  /** The named tenants that are not deleted (and active, when asked), in the order given. */
  async tenantsIn(db: Db, ids: readonly string[], activeOnly: boolean): Promise<{ id: string; name: string }[]> {
    if (ids.length === 0) return [];
    const rows = await db
      .select({ id: tenants.id, name: tenants.name })
      .from(tenants)
      .where(
        and(
          inArray(tenants.id, [...ids]),
          isNull(tenants.deletedAt),
          activeOnly ? eq(tenants.status, 'active') : undefined,
        ),
      );
    return ids.flatMap((id) => rows.filter((r) => r.id === id));
  },

  /** Usernames by id. */
  async usernames(db: Db, ids: readonly number[]): Promise<Map<number, string>> {
    if (ids.length === 0) return new Map();
    const rows = await db
      .select({ id: users.id, username: users.username })
      .from(users)
      .where(inArray(users.id, [...ids]));
    return new Map(rows.map((r) => [r.id, r.username]));
  },
};

/** Pairings: platform rows, asked by a screen that belongs to no tenant yet. */
export const displayPairingRepo = {
  /** A new pairing; undefined when its code is already taken (the caller draws another). */
  async create(
    db: Db,
    values: { codeHash: string; pollSecretHash: string; createdIp: string; createdAt: Date; expiresAt: Date },
  ): Promise<PairingRow | undefined> {
    const [row] = await db.insert(displayPairings).values(values).onConflictDoNothing().returning();
    return row;
  },

  /** Forgets pairings that expired before `before`. */
  async purge(db: Db, before: Date): Promise<void> {
    await db.delete(displayPairings).where(lt(displayPairings.expiresAt, before));
  },

  async find(db: Db, id: string): Promise<PairingRow | undefined> {
    const [row] = await db.select().from(displayPairings).where(eq(displayPairings.id, id));
    return row;
  },

  /** Claims a live, unapproved code for one approver (two approvals at once: one wins); its pairing's id. */
  async claim(db: Db, codeHash: string, now: Date): Promise<string | undefined> {
    const [row] = await db
      .update(displayPairings)
      .set({ approvedAt: now })
      .where(
        and(
          eq(displayPairings.codeHash, codeHash),
          gt(displayPairings.expiresAt, now),
          isNull(displayPairings.approvedAt),
        ),
      )
      .returning({ id: displayPairings.id });
    return row?.id;
  },

  /** Gives a claimed code back (the display could not be written). */
  async release(db: Db, id: string): Promise<void> {
    await db
      .update(displayPairings)
      .set({ approvedAt: null })
      .where(and(eq(displayPairings.id, id), isNull(displayPairings.displayId)));
  },

  async link(db: Db, id: string, displayId: string): Promise<void> {
    await db.update(displayPairings).set({ displayId }).where(eq(displayPairings.id, id));
  },

  /** Consumes an approved pairing once: its display's id for the first caller, undefined for any other. */
  async collect(db: Db, id: string, now: Date): Promise<string | undefined> {
    const [row] = await db
      .update(displayPairings)
      .set({ consumedAt: now })
      .where(and(eq(displayPairings.id, id), isNotNull(displayPairings.displayId), isNull(displayPairings.consumedAt)))
      .returning({ displayId: displayPairings.displayId });
    return row?.displayId ?? undefined;
  },
};
