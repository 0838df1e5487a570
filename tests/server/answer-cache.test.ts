import { beforeAll, describe, expect, it } from 'vitest';
import { eq, sql } from 'drizzle-orm';
import { cves, taskRuns, tenantWrites, users, type TaskMeta } from '../../server/src/db/schema.ts';
import { withTenant, type TenantId } from '../../server/src/db/tenant-scope.ts';
import { dataVersionRepo } from '../../server/src/repositories/data-versions.ts';
import { AnswerCache } from '../../server/src/services/answer-cache.ts';
import { apiFor } from './support/api.ts';
import { backend, useTestApp } from './support/app.ts';
import { ACME, addFinding, addProject, addThreat, addUser, HORIZON, seededTenants } from './support/world.ts';

const SUMMARY = '/api/vulnerabilities/summary/';
const HOME = '/api/dashboard/summary/';
const THREATS = '/api/threats/summary/';

/**
 * Issue 18: the dashboards answer from a cache checked against the tenant's data version (migration 0019). An
 * answer computed once is served again (same generated_at) until a write of its tenant commits, from this process or
 * any other (the write log is in the database); never across tenants.
 */
describe(`dashboard answers under the data version (${backend})`, () => {
  const t = useTestApp({ runJobs: false });
  const api = apiFor(t);
  let acme: string;
  let horizon: string;
  beforeAll(async () => {
    ({ acme, horizon } = await seededTenants(t.database.db));
  });
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- each answer's shape is its route's schema
  const read = async (url: string, user = 'analyste', tenant = ACME): Promise<any> => {
    const res = await api.call(user, 'GET', url, { tenant });
    expect(res.statusCode, res.body).toBe(200);
    return res.json();
  };
  /** The user's own write through the API. */
  const markResolved = async (id: number) => {
    const res = await api.call('analyste', 'POST', `/api/vulnerabilities/vulnerabilities/${id}/mark_resolved/`, {
      tenant: ACME,
      payload: {},
    });
    expect(res.statusCode, res.body).toBe(200);
  };

  it('serves the summary again until a finding of the tenant changes, then shows the change at once', async () => {
    const first = await read(SUMMARY);
    const again = await read(SUMMARY);
    expect(again).toEqual(first);

    // The user's own write through the API: the next read shows it.
    const [open] = (await read('/api/vulnerabilities/vulnerabilities/?severity=critical&is_resolved=false')).results;
    expect(open).toBeDefined();
    await markResolved(open.id);
    const after = await read(SUMMARY);
    expect(after.severity_distribution.critical).toBe(first.severity_distribution.critical - 1);
    expect(after.resolved_count).toBe(first.resolved_count + 1);
    expect(after.generated_at).not.toBe(first.generated_at);

    // A write made elsewhere (another process, a task: here the owner connection) counts as well.
    await addFinding(t.database.db, { tenantId: acme, title: 'Écrit par un autre processus', severity: 'critical' });
    const elsewhere = await read(SUMMARY);
    expect(elsewhere.severity_distribution.critical).toBe(after.severity_distribution.critical + 1);
    expect(elsewhere.recently_added[0].title).toBe('Écrit par un autre processus');
  });

  it('keys answers by tenant and by query: another tenant’s write leaves them, and no answer crosses tenants', async () => {
    const acmeCritical = await read(`${SUMMARY}?severity=critical`);
    const acmeAll = await read(SUMMARY);
    expect(acmeCritical.total_vulnerabilities).not.toBe(acmeAll.total_vulnerabilities);
    const horizonBefore = await read(SUMMARY, 'manager', HORIZON);
    expect(horizonBefore.total_vulnerabilities).not.toBe(acmeAll.total_vulnerabilities);

    await addFinding(t.database.db, { tenantId: horizon, title: 'Constat de Banque Horizon', severity: 'high' });
    expect(await read(SUMMARY)).toEqual(acmeAll);
    expect(await read(`${SUMMARY}?severity=critical`)).toEqual(acmeCritical);
    const horizonAfter = await read(SUMMARY, 'manager', HORIZON);
    expect(horizonAfter.total_vulnerabilities).toBe(horizonBefore.total_vulnerabilities + 1);
  });

  it('refreshes the threat summary, the home page and a project dashboard after their own writes', async () => {
    const threats = await read(THREATS);
    expect(await read(THREATS)).toEqual(threats);
    await addThreat(t.database.db, { tenantId: acme, title: 'Hameçonnage ciblé', severity: 'high', status: 'ACTIVE' });
    const threatsAfter = await read(THREATS);
    expect(threatsAfter.threats_count).toBe(threats.threats_count + 1);
    expect(threatsAfter.recent_threats[0].title).toBe('Hameçonnage ciblé');

    const home = await read(HOME);
    expect(await read(HOME)).toEqual(home);
    // A platform task's run shows on every tenant's home page.
    await t.database.db.insert(taskRuns).values({
      id: crypto.randomUUID(),
      taskName: 'vulnerabilities.tasks.update_cve_database',
      status: 'FAILURE',
      meta: { progress: 0 } as TaskMeta,
      tenantId: null,
      trigger: 'system',
      dateDone: new Date(),
    });
    const homeAfter = await read(HOME);
    expect(homeAfter.tasks.failed_24h).toBe(home.tasks.failed_24h + 1);

    const project = await addProject(t.database.db, acme, 'Projet du tableau de bord');
    const dashboard = await read(`/api/projects/${project}/dashboard/`, 'admin');
    expect(await read(`/api/projects/${project}/dashboard/`, 'admin')).toEqual(dashboard);
    const task = await api.call('admin', 'POST', '/api/projects/tasks/', {
      tenant: ACME,
      payload: { project, title: 'Vérifier les correctifs', status: 'TODO' },
    });
    expect(task.statusCode, task.body).toBe(201);
    const dashboardAfter = await read(`/api/projects/${project}/dashboard/`, 'admin');
    expect(dashboardAfter.tasks_by_status.TODO).toBe(dashboard.tasks_by_status.TODO + 1);
  });

  it('keeps the first list page until a write: the user’s own, or a CVE score update, shows at once', async () => {
    const LIST = '/api/vulnerabilities/vulnerabilities/?ordering=-cvss_score';
    const first = await read(LIST);
    expect(await read(LIST)).toEqual(first);
    const later = await read(`${LIST}&page=2`);
    expect(later.results[0].id).not.toBe(first.results[0].id);

    const open = first.results.find((v: { is_resolved: boolean }) => !v.is_resolved);
    await markResolved(open.id);
    const after = await read(LIST);
    expect(after.results.find((v: { id: number }) => v.id === open.id).is_resolved).toBe(true);

    // The rows show the CVE store's EPSS score: a platform write (the EPSS import, another process) counts too.
    const withCve = after.results.find((v: { cve_id: string | null }) => v.cve_id !== null);
    expect(withCve).toBeDefined();
    await t.database.db.update(cves).set({ epssScore: 0.4242 }).where(eq(cves.cveId, withCve.cve_id));
    const rescored = await read(LIST);
    expect(rescored.results.find((v: { id: number }) => v.id === withCve.id).epss_score).toBe(0.4242);

    // Never another tenant's page.
    const horizon = await read(LIST, 'manager', HORIZON);
    const acmeIds = new Set(rescored.results.map((v: { id: number }) => v.id));
    expect(horizon.results.some((v: { id: number }) => acmeIds.has(v.id))).toBe(false);
  });

  it('keeps later list pages too, until a write of the tenant', async () => {
    const PAGE_3 = '/api/vulnerabilities/vulnerabilities/?ordering=title&page_size=5&page=3';
    const page = await read(PAGE_3);
    const row = page.results[0] as { id: number; title: string };
    // Changed with the write log's triggers off (as a restore does before it says so): only a kept page misses it.
    await t.database.db.transaction(async (tx) => {
      await tx.execute(sql`set local session_replication_role = replica`);
      await tx.execute(sql`update vulnerabilities set title = ${`${row.title} (modifié)`} where id = ${row.id}`);
    });
    expect((await read(PAGE_3)).results[0].title).toBe(row.title);
    await addFinding(t.database.db, { tenantId: acme, title: 'zzz Dernière', severity: 'low' });
    expect((await read(PAGE_3)).results[0].title).toBe(`${row.title} (modifié)`);
  });

  it('keeps the projects list per reader until a write, its people’s names included', async () => {
    const id = await addProject(t.database.db, acme, 'Projet suivi', {
      owner: 'manager',
      team: { manager: 'ADMIN', analyste: 'MEMBER' },
    });
    type Listed = {
      id: number;
      owner: { id: number; name: string } | null;
      team_members: { id: number; last_active: string }[];
    };
    const mine = async (user: string): Promise<Listed> => {
      const { results } = (await read('/api/projects/?page_size=100', user)) as { results: Listed[] };
      return results.find((p) => p.id === id)!;
    };
    const first = await mine('admin');
    expect(await mine('admin')).toEqual(first);
    // Each reader has their own answer (what one may read depends on who they are).
    expect((await mine('analyste')).id).toBe(id);

    // The owner renamed on their account (a platform row): the list says so at once.
    await t.database.db
      .update(users)
      .set({ firstName: 'Morgane', lastName: 'Le Guen' })
      .where(eq(users.username, 'manager'));
    expect((await mine('admin')).owner?.name).toBe('Morgane Le Guen');
    expect((await mine('analyste')).owner?.name).toBe('Morgane Le Guen');
  });

  it('checks the version of a tenant the user is not a member of (a superuser elsewhere)', async () => {
    await addUser(t.database.db, 'racine', [acme, 'admin'], { superuser: true });
    const before = await read(SUMMARY, 'racine', HORIZON);
    expect(await read(SUMMARY, 'racine', HORIZON)).toEqual(before);
    await addFinding(t.database.db, { tenantId: horizon, title: 'Vu par le superutilisateur', severity: 'low' });
    const after = await read(SUMMARY, 'racine', HORIZON);
    expect(after.total_vulnerabilities).toBe(before.total_vulnerabilities + 1);
  });

  it('keeps each tenant’s version through the pruning of the write log', async () => {
    const version = (tenant: string) =>
      withTenant(t.database.db, tenant as TenantId, (tx) => dataVersionRepo.current(tx, false));
    await addFinding(t.database.db, { tenantId: acme, title: 'Avant l’élagage', severity: 'low' });
    const [acmeBefore, horizonBefore] = [await version(acme), await version(horizon)];
    expect(acmeBefore).toBeGreaterThan(0);
    const rows = async () =>
      Number(
        (
          await t.database.db
            .select({ n: sql<string>`count(*)` })
            .from(tenantWrites)
            .where(eq(tenantWrites.tenantId, acme))
        )[0]!.n,
      );
    expect(await rows()).toBeGreaterThan(1);
    await dataVersionRepo.prune(t.database.db);
    expect(await rows()).toBe(1);
    expect([await version(acme), await version(horizon)]).toEqual([acmeBefore, horizonBefore]);

    // A restore writes with the triggers off, then gives every tenant a new version.
    await dataVersionRepo.bumpAll(t.database.db);
    expect(await version(acme)).toBeGreaterThan(acmeBefore);
    expect(await version(horizon)).toBeGreaterThan(horizonBefore);
  });

  it('never lets the tenant role read the write log itself', async () => {
    const refused = await withTenant(t.database.db, acme as TenantId, (tx) => tx.select().from(tenantWrites)).then(
      () => 'read',
      (err: Error & { cause?: Error }) => err.cause?.message ?? err.message,
    );
    expect(refused).toMatch(/permission denied/);
  });
});

describe('AnswerCache', () => {
  it('computes once per version, shares a computation under way, and drops a failed one', async () => {
    const cache = new AnswerCache();
    let computed = 0;
    const compute = async () => {
      computed++;
      await new Promise((r) => setTimeout(r, 5));
      return { n: computed };
    };
    const [a, b] = await Promise.all([cache.answer(1, 'k', compute), cache.answer(1, 'k', compute)]);
    expect([a, b, computed]).toEqual([{ n: 1 }, { n: 1 }, 1]);
    expect(await cache.answer(2, 'k', compute)).toEqual({ n: 2 });
    expect(await cache.answer(2, 'k', compute)).toEqual({ n: 2 });
    await expect(cache.answer(2, 'bad', async () => Promise.reject(new Error('panne')))).rejects.toThrow('panne');
    await new Promise((r) => setTimeout(r, 0));
    expect(await cache.answer(2, 'bad', async () => 'rétabli')).toBe('rétabli');
  });

  it('recomputes what is older than its age limit and forgets the least recently used first', async () => {
    let now = 0;
    const cache = new AnswerCache({ maxEntries: 2, maxAgeMs: 1000, now: () => now });
    let n = 0;
    const next = async () => ++n;
    expect(await cache.answer(1, 'a', next)).toBe(1);
    now = 999;
    expect(await cache.answer(1, 'a', next)).toBe(1);
    now = 1000;
    expect(await cache.answer(1, 'a', next)).toBe(2);
    await cache.answer(1, 'b', next); // 3
    await cache.answer(1, 'a', next); // still 2: a is now the most recent
    await cache.answer(1, 'c', next); // 4, b goes
    expect(cache.size).toBe(2);
    expect(await cache.answer(1, 'a', next)).toBe(2);
    expect(await cache.answer(1, 'b', next)).toBe(5);
  });
});
