import { beforeAll, describe, expect, it } from 'vitest';
import { eq, sql } from 'drizzle-orm';
import { auditEvents, memberships, tenants, users } from '../../server/src/db/schema.ts';
import { withTenant, type TenantId } from '../../server/src/db/tenant-scope.ts';
import { signIn } from './helpers.ts';
import { backend, useTestApp } from './support/app.ts';
import { auditEventsOf, seededTenants } from './support/world.ts';

const count = (result: unknown) => Number((result as { rows: { n: number | string }[] }).rows[0]!.n);

describe(`tenant isolation in the database (${backend})`, () => {
  const t = useTestApp();
  let acme: TenantId;
  let horizon: TenantId;
  beforeAll(async () => {
    const seeded = await seededTenants(t.database.db);
    acme = seeded.acme as TenantId;
    horizon = seeded.horizon as TenantId;
    await t.database.db.insert(auditEvents).values([
      { tenantId: acme, eventType: 'user_login', description: 'a' },
      { tenantId: horizon, eventType: 'user_login', description: 'h' },
    ]);
  });

  it('returns zero rows to the application role when no tenant is set (a forgotten filter sees nothing)', async () => {
    const seen = await t.database.db.transaction(async (tx) => {
      await tx.execute(sql`set local role vigie_app`);
      return {
        memberships: count(await tx.execute(sql`select count(*)::int as n from memberships`)),
        users: count(await tx.execute(sql`select count(*)::int as n from users`)),
        tenants: count(await tx.execute(sql`select count(*)::int as n from tenants`)),
        audit: count(await tx.execute(sql`select count(*)::int as n from audit_events`)),
      };
    });
    expect(seen).toEqual({ memberships: 0, users: 0, tenants: 0, audit: 0 });
    // The owner connection does see them, so the zeros above come from the policies.
    expect(count(await t.database.db.execute(sql`select count(*)::int as n from memberships`))).toBeGreaterThan(0);
  });

  it('shows a tenant only its own rows, even through a query without any WHERE', async () => {
    const inAcme = await withTenant(t.database.db, acme, async (tx) => ({
      users: (await tx.select({ u: users.username }).from(users)).map((r) => r.u).sort(),
      tenants: (await tx.select({ n: tenants.name }).from(tenants)).map((r) => r.n),
      audit: (await tx.select({ d: auditEvents.description }).from(auditEvents)).map((r) => r.d),
    }));
    expect(inAcme.users).toEqual(['admin', 'analyste', 'manager']);
    expect(inAcme.tenants).toEqual(['Acme Sécurité']);
    expect(inAcme.audit).toEqual(['a']);
  });

  it('refuses to write a row into another tenant', async () => {
    const analyste = (await t.database.db.select().from(users).where(eq(users.username, 'analyste')))[0]!;
    await expect(
      withTenant(t.database.db, acme, (tx) =>
        tx.insert(memberships).values({ tenantId: horizon, userId: analyste.id, role: 'admin' }),
      ),
    ).rejects.toThrow();
    const inHorizon = await withTenant(t.database.db, horizon, (tx) =>
      tx.select().from(memberships).where(eq(memberships.userId, analyste.id)),
    );
    expect(inHorizon).toEqual([]);
  });

  it('keeps secret tables out of reach of the application role', async () => {
    for (const table of ['refresh_tokens', 'password_reset_tokens', 'mail_outbox']) {
      await expect(
        withTenant(t.database.db, acme, (tx) => tx.execute(sql.raw(`select count(*) from ${table}`))),
      ).rejects.toThrow();
    }
  });
});

describe(`current tenant per request (${backend})`, () => {
  const t = useTestApp();

  const me = (access: string, tenant?: string) =>
    t.app.inject({
      method: 'GET',
      url: '/api/users/me/',
      headers: { authorization: `Bearer ${access}`, ...(tenant !== undefined ? { 'x-tenant-id': tenant } : {}) },
    });

  it('refuses an X-Tenant-ID the user is not a member of, and malformed ones, with 403', async () => {
    const horizon = (await signIn(t.app, 'lecteur')).user.tenants as { id: string; name: string }[];
    const { access } = await signIn(t.app, 'analyste'); // Acme only
    const res = await me(access, horizon[0]!.id);
    expect(res.statusCode).toBe(403);
    expect(res.json().detail).toBe("Vous n'avez pas les autorisations nécessaires pour accéder à cette ressource");
    const denied = await auditEventsOf(t.database.db, { eventType: 'permission_denied' });
    expect(denied.some((d) => d.username === 'analyste' && d.details.requested_tenant === horizon[0]!.id)).toBe(true);
    expect((await me(access, 'not-a-uuid')).statusCode).toBe(403);
    expect((await me(access, "'; drop table users; --")).statusCode).toBe(403);
  });

  it('lets a superuser act in any active tenant', async () => {
    const { access } = await signIn(t.app, 'admin');
    const [extra] = await t.database.db.insert(tenants).values({ name: 'Tiers', domain: 'tiers.example' }).returning();
    const res = await me(access, extra!.id);
    expect(res.statusCode).toBe(200);
    expect(res.json().current_tenant).toEqual({ id: extra!.id, name: 'Tiers' });
  });
});
