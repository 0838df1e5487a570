import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq, inArray, like, sql } from 'drizzle-orm';
import pino from 'pino';
import type { Database } from '../../server/src/db/client.ts';
import { auditEvents, tenants, users } from '../../server/src/db/schema.ts';
import { withTenant, type TenantId } from '../../server/src/db/tenant-scope.ts';
import { purgeExpiredAuditEvents } from '../../server/src/repositories/audit-events.ts';
import { auditTasks, purgeAuditEvents, PURGE_AUDIT_EVENTS } from '../../server/src/tasks/audit-tasks.ts';
import { TASKS } from '../../server/src/tasks/index.ts';
import type { TaskContext } from '../../server/src/tasks/types.ts';
import { freshDatabase, onPostgres } from './helpers.ts';

const DAY = 86_400_000;

/** The whole error chain's text (drivers and Drizzle wrap the database's message). */
async function failure(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (err) {
    const parts: string[] = [];
    for (let e: unknown = err; e instanceof Error; e = e.cause) parts.push(e.message);
    return parts.join(' | ');
  }
  throw new Error('expected the statement to be refused');
}

describe(`audit_events is append-only (${onPostgres ? 'PostgreSQL' : 'PGlite'})`, () => {
  let database: Database;
  let drop: () => Promise<void>;
  let acme: TenantId;

  const insert = async (marker: string, ages: number[], tenantId: string | null = acme) => {
    const rows = await database.db
      .insert(auditEvents)
      .values(
        ages.map((days, i) => ({
          tenantId,
          timestamp: new Date(Date.now() - days * DAY),
          eventType: 'test',
          description: `${marker} ${i}`,
        })),
      )
      .returning({ id: auditEvents.id });
    return rows.map((r) => r.id);
  };
  const descriptions = async (marker: string) =>
    (
      await database.db
        .select({ d: auditEvents.description })
        .from(auditEvents)
        .where(like(auditEvents.description, `${marker} %`))
    )
      .map((r) => r.d)
      .sort();

  beforeAll(async () => {
    ({ database, drop } = await freshDatabase());
    const [t] = await database.db.select({ id: tenants.id }).from(tenants).where(eq(tenants.name, 'Acme Sécurité'));
    acme = t!.id as TenantId;
  });
  afterAll(async () => drop());

  it('refuses UPDATE, DELETE and TRUNCATE on the owner connection, recent and old rows alike', async () => {
    const ids = await insert('owner', [0, 400]);
    for (const id of ids) {
      const db = database.db;
      expect(await failure(db.update(auditEvents).set({ description: 'x' }).where(eq(auditEvents.id, id)))).toMatch(
        /ajout seul : UPDATE interdit/,
      );
      expect(await failure(db.delete(auditEvents).where(eq(auditEvents.id, id)))).toMatch(/ajout seul : DELETE/);
    }
    expect(await failure(database.db.execute(sql`truncate audit_events`))).toMatch(/ajout seul : TRUNCATE/);
    expect(await descriptions('owner')).toEqual(['owner 0', 'owner 1']);
  });

  it('refuses UPDATE and DELETE to the request role, even with the purge flag set', async () => {
    const [recent, old] = await insert('app', [0, 400]);
    expect(
      await failure(
        withTenant(database.db, acme, (tx) =>
          tx.update(auditEvents).set({ description: 'x' }).where(eq(auditEvents.id, recent!)),
        ),
      ),
    ).toMatch(/permission denied/);
    expect(
      await failure(withTenant(database.db, acme, (tx) => tx.delete(auditEvents).where(eq(auditEvents.id, old!)))),
    ).toMatch(/permission denied/);
    expect(
      await failure(
        withTenant(database.db, acme, async (tx) => {
          await tx.execute(sql`select set_config('vigie.audit_purge', 'on', true)`);
          await tx.execute(sql`select set_config('vigie.audit_purge_days', '1', true)`);
          return tx.delete(auditEvents).where(eq(auditEvents.id, old!));
        }),
      ),
    ).toMatch(/permission denied/);
    // Nor may it run the purge.
    expect(
      await failure(withTenant(database.db, acme, (tx) => tx.execute(sql`select audit_purge_expired(1)`))),
    ).toMatch(/permission denied/);
    // Inserting stays allowed.
    await withTenant(database.db, acme, (tx) =>
      tx.insert(auditEvents).values({ tenantId: acme, eventType: 'test', description: 'app 2' }),
    );
    expect(await descriptions('app')).toEqual(['app 0', 'app 1', 'app 2']);
  });

  it('does not let the flag alone delete a recent row on the owner connection', async () => {
    const [recent] = await insert('flag', [2]);
    const attempt = database.db.transaction(async (tx) => {
      await tx.execute(sql`select set_config('vigie.audit_purge', 'on', true)`);
      await tx.execute(sql`select set_config('vigie.audit_purge_days', '30', true)`);
      await tx.delete(auditEvents).where(eq(auditEvents.id, recent!));
    });
    expect(await failure(attempt)).toMatch(/ajout seul : DELETE/);
    expect(await descriptions('flag')).toEqual(['flag 0']);
  });

  it('purges only the rows older than N days and returns how many', async () => {
    await insert('purge', [45, 31, 29, 1, 0]);
    await insert('purge-platform', [90, 5], null);
    const before = await database.db.select({ n: sql<number>`count(*)::int` }).from(auditEvents);
    // Every older row goes, the earlier tests' 400-day-old rows included.
    const removed = await purgeExpiredAuditEvents(database.db, 30);
    expect(removed).toBe(5);
    expect(await descriptions('purge')).toEqual(['purge 2', 'purge 3', 'purge 4']);
    expect(await descriptions('purge-platform')).toEqual(['purge-platform 1']);
    const after = await database.db.select({ n: sql<number>`count(*)::int` }).from(auditEvents);
    expect(after[0]!.n).toBe(before[0]!.n - 5);
    expect(await purgeExpiredAuditEvents(database.db, 30)).toBe(0);
    expect(await failure(purgeExpiredAuditEvents(database.db, 0))).toMatch(/Durée de conservation invalide/);
    // The flag does not outlive the purge's transaction work.
    const [recent] = await insert('after-purge', [40]);
    expect(await failure(database.db.delete(auditEvents).where(eq(auditEvents.id, recent!)))).toMatch(/ajout seul/);
  });

  it('still lets the foreign keys act: a deleted account leaves its events, unlinked', async () => {
    const [u] = await database.db
      .insert(users)
      .values({ username: 'ephemere', email: 'ephemere@example.test', passwordHash: 'x' })
      .returning({ id: users.id });
    const [id] = await database.db
      .insert(auditEvents)
      .values({ tenantId: acme, userId: u!.id, username: 'ephemere', eventType: 'test', description: 'fk 0' })
      .returning({ id: auditEvents.id });
    await database.db.delete(users).where(eq(users.id, u!.id));
    const [row] = await database.db.select().from(auditEvents).where(eq(auditEvents.id, id!.id));
    expect(row).toMatchObject({ userId: null, username: 'ephemere', description: 'fk 0' });
    // Clearing the link of a live account by hand is still refused.
    const [live] = await database.db.select({ id: users.id }).from(users).where(eq(users.username, 'manager'));
    const [linked] = await database.db
      .insert(auditEvents)
      .values({ tenantId: acme, userId: live!.id, username: 'manager', eventType: 'test', description: 'fk 1' })
      .returning({ id: auditEvents.id });
    expect(
      await failure(
        database.db
          .update(auditEvents)
          .set({ userId: null })
          .where(inArray(auditEvents.id, [linked!.id])),
      ),
    ).toMatch(/ajout seul/);
  });

  describe('the purge task', () => {
    it('is a daily platform task at 03:00 UTC, known to the queue', () => {
      const task = TASKS.find((d) => d.name === PURGE_AUDIT_EVENTS);
      expect(task).toBe(auditTasks[0]);
      expect(task).toMatchObject({ scope: 'platform', schedule: { cron: '0 3 * * *' } });
    });

    it('deletes the events older than the retention and reports the count', async () => {
      await insert('task', [60, 31, 10]);
      await insert('task-custom', [25, 8]);
      const progress: unknown[] = [];
      const ctx = (args: Record<string, unknown>): TaskContext => ({
        taskId: 'test',
        tenantId: null,
        args,
        requestedBy: null,
        database,
        filesDir: '/nonexistent',
        log: pino({ level: 'silent' }),
        signal: new AbortController().signal,
        progress: async (p, meta) => void progress.push([p, meta]),
      });
      // Two of these, and the 40-day-old row the purge test left behind.
      const outcome = await purgeAuditEvents(ctx({}));
      expect(outcome).toEqual({
        result: '3 événements d’audit de plus de 30 jours supprimés',
        meta: { removed: 3, retention_days: 30 },
      });
      expect(await descriptions('task')).toEqual(['task 2']);
      // A launch may name the retention: 20 days takes this 25-day-old row and the purge test's 29-day-old one.
      expect((await purgeAuditEvents(ctx({ days: 20 }))).meta).toEqual({ removed: 2, retention_days: 20 });
      expect(await descriptions('task-custom')).toEqual(['task-custom 1']);
      expect(await descriptions('task')).toEqual(['task 2']);
      await expect(purgeAuditEvents(ctx({ days: 0 }))).rejects.toThrow(/days/);
      expect(progress[0]).toEqual([100, { removed: 3, retention_days: 30 }]);
    });
  });
});
