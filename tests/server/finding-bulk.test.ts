import { beforeAll, describe, expect, it } from 'vitest';
import { and, eq, inArray, like } from 'drizzle-orm';
import { auditEvents, findingEvents, vulnerabilities } from '../../server/src/db/schema.ts';
import { LIFECYCLE_MESSAGES } from '../../server/src/domain/finding-lifecycle.ts';
import { apiFor, jsonOf } from './support/api.ts';
import { backend, useTestApp } from './support/app.ts';
import { addFinding, addUser, seededTenants, userIdOf } from './support/world.ts';

const BULK = '/api/vulnerabilities/bulk/';

describe(`bulk work on findings (${backend})`, () => {
  const t = useTestApp({ runJobs: false });
  const { call } = apiFor(t);
  let acme: string;
  let horizon: string;
  beforeAll(async () => {
    ({ acme, horizon } = await seededTenants(t.database.db));
    await addUser(t.database.db, 'lecteur-lot', [acme, 'readonly']);
  });

  let batch = 0;
  /** `n` findings of a fresh batch, titled so a text filter names exactly them. */
  const findings = async (n: number, tenantId = acme, extra: Partial<typeof vulnerabilities.$inferInsert> = {}) => {
    const tag = `lot-${++batch}-${Date.now()}`;
    const ids: number[] = [];
    for (let i = 0; i < n; i++) {
      ids.push((await addFinding(t.database.db, { tenantId, title: `${tag} n° ${i}`, severity: 'high', ...extra })).id);
    }
    return { tag, ids };
  };
  const rows = (ids: number[]) => t.database.db.select().from(vulnerabilities).where(inArray(vulnerabilities.id, ids));
  const bulk = (user: string, body: Record<string, unknown>) => call(user, 'POST', BULK, { payload: body });

  it('assigns ten ticked findings in one request: a history line and an audit event for each', async () => {
    const { ids } = await findings(10);
    const analyst = await userIdOf(t.database.db, 'analyste');
    const result = jsonOf(await bulk('analyste', { ids, action: 'assign', assignee_id: analyst }), 200);
    expect(result).toEqual({ selected: 10, changed: 10, unchanged: 0, refused: 0 });
    expect((await rows(ids)).every((r) => r.assigneeId === analyst)).toBe(true);
    const lines = await t.database.db.select().from(findingEvents).where(inArray(findingEvents.vulnerabilityId, ids));
    expect(lines).toHaveLength(10);
    expect(lines.every((l) => l.kind === 'assignee' && l.toValue === String(analyst) && l.userId === analyst)).toBe(
      true,
    );
    const audit = await t.database.db
      .select()
      .from(auditEvents)
      .where(
        and(eq(auditEvents.tenantId, acme), like(auditEvents.description, '%assignation modifiée (action groupée)')),
      );
    const audited = audit.map((a) => (a.details as { vulnerability_id: number }).vulnerability_id);
    expect(audited).toEqual(expect.arrayContaining(ids));
    expect(audit.find((a) => (a.details as { vulnerability_id: number }).vulnerability_id === ids[0])).toMatchObject({
      eventType: 'data_change',
      username: 'analyste',
      description: `Vulnérabilité #${ids[0]} : assignation modifiée (action groupée)`,
    });
    // Again: nothing changes, nothing more is written.
    expect(jsonOf(await bulk('analyste', { ids, action: 'assign', assignee_id: analyst }), 200)).toEqual({
      selected: 10,
      changed: 0,
      unchanged: 10,
      refused: 0,
    });
  });

  it('moves every finding a filter matches, chosen on the server; those the lifecycle refuses stay and are counted', async () => {
    const { tag, ids } = await findings(6);
    const closed = await findings(2, acme, { isResolved: true, state: 'verified' });
    // The verified ones share the text filter: « en cours » is refused from there.
    await t.database.db
      .update(vulnerabilities)
      .set({ title: `${tag} fermée` })
      .where(inArray(vulnerabilities.id, closed.ids));
    const result = jsonOf(
      await bulk('analyste', { filter: { text: tag }, action: 'transition', state: 'in_progress', comment: 'Lot 12' }),
      200,
    );
    expect(result).toEqual({ selected: 8, changed: 6, unchanged: 0, refused: 2 });
    expect((await rows(ids)).map((r) => r.state)).toEqual(Array(6).fill('in_progress'));
    expect((await rows(closed.ids)).map((r) => r.state)).toEqual(['verified', 'verified']);
    const audit = await t.database.db
      .select({ description: auditEvents.description })
      .from(auditEvents)
      .where(
        eq(
          auditEvents.description,
          `Vulnérabilité #${ids[0]} : « Nouvelle » → « En cours de correction » (action groupée)`,
        ),
      );
    expect(audit).toHaveLength(1);
    // Resolving by filter keeps is_resolved in step, with who and when.
    const fixed = jsonOf(await bulk('analyste', { filter: { text: tag }, action: 'transition', state: 'fixed' }), 200);
    expect(fixed).toEqual({ selected: 8, changed: 6, unchanged: 0, refused: 2 });
    const analyst = await userIdOf(t.database.db, 'analyste');
    for (const r of await rows(ids)) expect(r).toMatchObject({ isResolved: true, resolvedBy: analyst, state: 'fixed' });
  });

  it('sets a due date on a selection, and clears it', async () => {
    const { ids } = await findings(3);
    expect(jsonOf(await bulk('analyste', { ids, action: 'due_date', due_date: '2027-01-31' }), 200)).toMatchObject({
      changed: 3,
    });
    expect((await rows(ids)).map((r) => r.dueDate)).toEqual(['2027-01-31', '2027-01-31', '2027-01-31']);
    expect(jsonOf(await bulk('analyste', { ids, action: 'due_date', due_date: null }), 200)).toMatchObject({
      changed: 3,
    });
    expect((await rows(ids)).map((r) => r.dueDate)).toEqual([null, null, null]);
  });

  it('asks the same as one move: a justification, an approver for a risk acceptance', async () => {
    const { ids } = await findings(2);
    const bare = await bulk('analyste', { ids, action: 'transition', state: 'false_positive' });
    expect(bare.statusCode).toBe(400);
    expect(bare.json().detail).toBe(LIFECYCLE_MESSAGES.justification('false_positive'));
    const until = new Date(Date.now() + 30 * 86_400_000).toISOString().slice(0, 10);
    const acceptance = { ids, action: 'transition', state: 'accepted', comment: 'Segmenté', accepted_until: until };
    const byAnalyst = await bulk('analyste', acceptance);
    expect(byAnalyst.statusCode).toBe(403);
    expect(byAnalyst.json().detail).toBe(LIFECYCLE_MESSAGES.approver);
    expect(jsonOf(await bulk('manager', acceptance), 200)).toMatchObject({ changed: 2 });
    const manager = await userIdOf(t.database.db, 'manager');
    for (const r of await rows(ids))
      expect(r).toMatchObject({
        state: 'accepted',
        acceptedUntil: until,
        acceptedBy: manager,
        stateReason: 'Segmenté',
      });
  });

  it('refuses a malformed body in French, and a reader', async () => {
    const { ids } = await findings(1);
    const cases: [Record<string, unknown>, string][] = [
      [{ action: 'assign', assignee_id: null }, 'Choisissez les vulnérabilités'],
      [{ ids, filter: { severity: 'high' }, action: 'assign', assignee_id: null }, 'Choisissez les vulnérabilités'],
      [
        { ids: Array.from({ length: 1001 }, (_, i) => i + 1), action: 'assign', assignee_id: null },
        'Sélection invalide',
      ],
      [{ ids, action: 'supprimer' }, 'Action invalide'],
      [{ ids, action: 'assign' }, 'Valeur requise'],
      [{ filter: { severity: 'grave' }, action: 'assign', assignee_id: null }, 'Sévérité invalide'],
      [{ ids, action: 'assign', assignee_id: await userIdOf(t.database.db, 'lecteur-lot') }, 'membre'],
    ];
    for (const [body, message] of cases) {
      const res = await bulk('analyste', body);
      expect(res.statusCode, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(res.json().detail).toContain(message);
    }
    expect((await bulk('lecteur-lot', { ids, action: 'due_date', due_date: null })).statusCode).toBe(403);
  });

  it('never reaches another tenant’s findings, by id or by filter', async () => {
    const theirs = await findings(3, horizon);
    expect(
      jsonOf(await bulk('analyste', { ids: theirs.ids, action: 'due_date', due_date: '2027-02-01' }), 200),
    ).toEqual({
      selected: 0,
      changed: 0,
      unchanged: 0,
      refused: 0,
    });
    expect(
      jsonOf(await bulk('analyste', { filter: { text: theirs.tag }, action: 'transition', state: 'confirmed' }), 200),
    ).toMatchObject({ selected: 0, changed: 0 });
    for (const r of await rows(theirs.ids))
      expect(r).toMatchObject({ state: 'new', dueDate: expect.not.stringMatching(/2027-02-01/) });
  });
});
