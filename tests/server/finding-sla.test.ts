import { beforeAll, describe, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { cves, notifications, vulnerabilities } from '../../server/src/db/schema.ts';
import { notifierOf } from '../../server/src/services/notifier.ts';
import { apiFor, jsonOf } from './support/api.ts';
import { backend, useTestApp } from './support/app.ts';
import { addFinding, addUser, auditEventsOf, seededTenants, userIdOf } from './support/world.ts';

const LIST = '/api/vulnerabilities/vulnerabilities/';
const SLA = '/api/vulnerabilities/sla/';
const day = (offset: number, from = new Date()) => {
  const d = new Date(Date.UTC(from.getUTCFullYear(), from.getUTCMonth(), from.getUTCDate()));
  d.setUTCDate(d.getUTCDate() + offset);
  return d.toISOString().slice(0, 10);
};

describe(`finding SLA (${backend})`, () => {
  const t = useTestApp({ runJobs: false });
  const { call } = apiFor(t);
  let acme: string;
  let horizon: string;
  beforeAll(async () => {
    ({ acme, horizon } = await seededTenants(t.database.db));
    await addUser(t.database.db, 'admin-sla', [acme, 'admin']);
    await t.database.db.insert(cves).values({
      cveId: 'CVE-2099-7001',
      title: 'Exploitée, échéance CISA proche',
      description: '',
      severity: 'high',
      cvss3Score: 8.1,
      kev: true,
      kevDateAdded: day(-2),
      kevDueDate: day(5),
    });
  });

  const create = async (body: Record<string, unknown>, user = 'analyste') =>
    jsonOf<{ id: number; due_date: string | null }>(await call(user, 'POST', LIST, { payload: body }), 201);

  it('sets a new open finding’s due date from the default SLA, counted from the day it is first seen', async () => {
    expect(jsonOf(await call('analyste', 'GET', SLA), 200)).toEqual({
      critical: 7,
      high: 30,
      medium: 90,
      low: 180,
      info: null,
      unrated: null,
      epss_threshold: 0.1,
    });
    expect((await create({ title: 'SLA critique', severity: 'critical' })).due_date).toBe(day(7));
    expect((await create({ title: 'SLA faible', severity: 'low' })).due_date).toBe(day(180));
    expect((await create({ title: 'SLA info', severity: 'info' })).due_date).toBeNull();
    // « Non évaluée »: no deadline by default, not Info's borrowed either way.
    expect((await create({ title: 'SLA non évaluée' })).due_date).toBeNull();
    // Given by the analyst, it stays; a finding recorded as resolved has none.
    expect((await create({ title: 'SLA donnée', severity: 'critical', due_date: day(40) })).due_date).toBe(day(40));
    const resolved = await addFinding(t.database.db, {
      tenantId: acme,
      title: 'SLA résolue',
      severity: 'critical',
      isResolved: true,
      state: 'verified',
    });
    expect(resolved.dueDate).toBeNull();
  });

  it('gives a KEV finding CISA’s due date when it is earlier than the SLA', async () => {
    // High: 30 days by the SLA, 5 by CISA.
    expect((await create({ title: 'KEV', cve_id: 'CVE-2099-7001' })).due_date).toBe(day(5));
  });

  it('lets the tenant’s administrators set the SLA, per tenant, and new findings follow it', async () => {
    const refused = await call('analyste', 'PUT', SLA, {
      payload: { critical: 2, high: 10, medium: 30, low: 60, info: null },
    });
    expect(refused.statusCode).toBe(403);
    const bad = await call('admin-sla', 'PUT', SLA, {
      payload: { critical: 0, high: 10, medium: 30, low: 60, info: null },
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().detail).toMatch(/^Délai invalide/);
    const saved = jsonOf(
      await call('admin-sla', 'PUT', SLA, { payload: { critical: 2, high: 10, medium: 30, low: 60, info: 365 } }),
      200,
    );
    expect(saved).toEqual({
      critical: 2,
      high: 10,
      medium: 30,
      low: 60,
      info: 365,
      unrated: null,
      epss_threshold: 0.1,
    });
    expect((await create({ title: 'SLA réglée', severity: 'critical' })).due_date).toBe(day(2));
    expect((await create({ title: 'SLA info réglée', severity: 'info' })).due_date).toBe(day(365));
    expect((await create({ title: 'SLA non évaluée, sans délai' })).due_date).toBeNull();
    // Its own days when set; left out of a later PUT (an older client), they stay.
    const withUnrated = { critical: 2, high: 10, medium: 30, low: 60, info: 365, unrated: 14 };
    expect(jsonOf(await call('admin-sla', 'PUT', SLA, { payload: withUnrated }), 200)).toMatchObject({ unrated: 14 });
    expect((await create({ title: 'SLA non évaluée réglée' })).due_date).toBe(day(14));
    expect(
      jsonOf(await call('admin-sla', 'PUT', SLA, { payload: { ...withUnrated, unrated: undefined } }), 200),
    ).toMatchObject({ unrated: 14, info: 365 });
    expect(
      await auditEventsOf(t.database.db, {
        eventType: 'configuration_change',
        description: 'Délais de traitement des vulnérabilités modifiés',
      }),
    ).toHaveLength(3);
    // Another tenant keeps the defaults.
    const other = await addFinding(t.database.db, { tenantId: horizon, title: 'Horizon', severity: 'critical' });
    expect(other.dueDate).toBe(day(7));
    expect(jsonOf(await call('manager', 'GET', SLA, { tenant: 'Banque Horizon' }), 200)).toMatchObject({ critical: 7 });
  });

  it('reports overdue, due soon and on-time resolutions', async () => {
    const before = jsonOf<Record<string, number>>(
      await call('analyste', 'GET', '/api/vulnerabilities/sla-report/'),
      200,
    );
    const late = await addFinding(t.database.db, {
      tenantId: acme,
      title: 'En retard',
      severity: 'high',
      dueDate: day(-3),
    });
    await addFinding(t.database.db, { tenantId: acme, title: 'Bientôt', severity: 'high', dueDate: day(2) });
    // Resolved today: one by its due date, one after it.
    for (const [title, due] of [
      ['À temps', day(1)],
      ['Hors délai', day(-1)],
    ] as const) {
      const f = await addFinding(t.database.db, { tenantId: acme, title, severity: 'medium', dueDate: due });
      jsonOf(await call('analyste', 'POST', `${LIST}${f.id}/mark_resolved/`), 200);
    }
    const after = jsonOf<Record<string, number>>(
      await call('analyste', 'GET', '/api/vulnerabilities/sla-report/'),
      200,
    );
    expect(after.overdue! - before.overdue!).toBe(1);
    expect(after.due_soon! - before.due_soon!).toBe(1);
    expect(after.resolved_in_window! - before.resolved_in_window!).toBe(2);
    expect(after.resolved_on_time! - before.resolved_on_time!).toBe(1);
    expect(after.window_days).toBe(90);
    expect(late.id).toBeGreaterThan(0);
  });

  it('tells the assignee of an overdue finding once per due date', async () => {
    const analyst = await userIdOf(t.database.db, 'analyste');
    const f = await addFinding(t.database.db, {
      tenantId: acme,
      title: 'Assignée et en retard',
      cveId: null,
      severity: 'critical',
      dueDate: day(-1),
      assigneeId: analyst,
    });
    const mine = () =>
      t.database.db
        .select()
        .from(notifications)
        .where(and(eq(notifications.userId, analyst), eq(notifications.kind, 'finding_overdue')));
    const first = await notifierOf(t.database).overdue(day(0));
    expect(first.findings).toBeGreaterThanOrEqual(1);
    const sent = (await mine()).filter((n) => n.link === `/vulnerabilities/${f.id}`);
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({
      level: 'warning',
      title: 'Vulnérabilité en retard : Assignée et en retard',
      tenantId: acme,
    });
    await notifierOf(t.database).overdue(day(0));
    expect((await mine()).filter((n) => n.link === `/vulnerabilities/${f.id}`)).toHaveLength(1);
    // A new due date, past again, is told again; a resolved finding is not.
    await t.database.db
      .update(vulnerabilities)
      .set({ dueDate: day(-2) })
      .where(eq(vulnerabilities.id, f.id));
    await notifierOf(t.database).overdue(day(0));
    expect((await mine()).filter((n) => n.link === `/vulnerabilities/${f.id}`)).toHaveLength(2);
  });
});
