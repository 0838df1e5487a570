import { beforeAll, describe, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import {
  FINDING_STATES,
  FINDING_TRANSITIONS,
  isResolvedState,
  type FindingState,
} from '../../contract/finding-states.ts';
import { findingEvents, vulnerabilities } from '../../server/src/db/schema.ts';
import { LIFECYCLE_MESSAGES, planMove, stateForResolved } from '../../server/src/domain/finding-lifecycle.ts';
import { apiFor, jsonOf } from './support/api.ts';
import { backend, useTestApp } from './support/app.ts';
import { FORBIDDEN } from './support/http.ts';
import { addFinding, addUser, auditEventsOf, seededTenants, userIdOf } from './support/world.ts';

const LIST = '/api/vulnerabilities/vulnerabilities/';
const TODAY = '2026-11-29';
const at = (state: FindingState) => ({ state, resolvedAt: null, resolvedBy: null });
const ask = (to: FindingState, extra: Partial<Parameters<typeof planMove>[1]> = {}) => ({
  to,
  comment: '',
  userId: 7,
  mayAcceptRisk: false,
  today: TODAY,
  ...extra,
});
const inDays = (days: number) => {
  const d = new Date();
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
};

describe('finding lifecycle rules (domain)', () => {
  it('allows exactly the table’s moves, every other one refused with a French 409', () => {
    for (const from of FINDING_STATES)
      for (const to of FINDING_STATES) {
        if (from === to) continue;
        const allowed = FINDING_TRANSITIONS[from].includes(to);
        const request = ask(to, { comment: 'justifié', mayAcceptRisk: true, acceptedUntil: '2027-01-15' });
        if (to !== 'accepted') delete (request as { acceptedUntil?: string }).acceptedUntil;
        if (allowed) expect(planMove(at(from), request)?.state, `${from} → ${to}`).toBe(to);
        else expect(() => planMove(at(from), request), `${from} → ${to}`).toThrow(/Changement d'état impossible/);
      }
  });

  it('keeps is_resolved in step with the state, and the first resolution when moving between resolved states', () => {
    const first = new Date('2026-11-01T10:00:00Z');
    const fixed = planMove(at('new'), ask('fixed'))!;
    expect(fixed).toMatchObject({ state: 'fixed', isResolved: true, resolvedBy: 7 });
    const verified = planMove({ state: 'fixed', resolvedAt: first, resolvedBy: 3 }, ask('verified'))!;
    expect(verified).toMatchObject({ isResolved: true, resolvedAt: first, resolvedBy: 3 });
    expect(planMove({ state: 'verified', resolvedAt: first, resolvedBy: 3 }, ask('confirmed'))).toMatchObject({
      isResolved: false,
      resolvedAt: null,
      resolvedBy: null,
    });
    for (const s of FINDING_STATES)
      expect(isResolvedState(s)).toBe(['fixed', 'verified', 'false_positive', 'accepted', 'out_of_scope'].includes(s));
  });

  it('changes nothing when the finding is there already (a replayed request)', () => {
    expect(planMove(at('confirmed'), ask('confirmed'))).toBeUndefined();
  });

  it('asks a justification for a false positive, an acceptance and an out-of-scope finding', () => {
    for (const to of ['false_positive', 'out_of_scope'] as const) {
      expect(() => planMove(at('new'), ask(to, { comment: '   ' }))).toThrow(LIFECYCLE_MESSAGES.justification(to));
      expect(planMove(at('new'), ask(to, { comment: ' Scanner trompé par la bannière ' }))?.stateReason).toBe(
        'Scanner trompé par la bannière',
      );
    }
    expect(() => planMove(at('new'), ask('accepted', { mayAcceptRisk: true, acceptedUntil: '2027-01-01' }))).toThrow(
      LIFECYCLE_MESSAGES.justification('accepted'),
    );
  });

  it('lets only an approver accept a risk, with an expiry after today and within a year', () => {
    const accept = (extra: Partial<Parameters<typeof planMove>[1]>) =>
      planMove(at('confirmed'), ask('accepted', { comment: 'Compensé par le WAF', ...extra }));
    expect(() => accept({ acceptedUntil: '2027-01-01' })).toThrow(LIFECYCLE_MESSAGES.approver);
    expect(() => accept({ mayAcceptRisk: true })).toThrow(LIFECYCLE_MESSAGES.expiryRequired);
    expect(() => accept({ mayAcceptRisk: true, acceptedUntil: TODAY })).toThrow(LIFECYCLE_MESSAGES.expiryPast);
    expect(() => accept({ mayAcceptRisk: true, acceptedUntil: '2027-12-01' })).toThrow(LIFECYCLE_MESSAGES.expiryTooFar);
    expect(accept({ mayAcceptRisk: true, acceptedUntil: '2027-11-30' })).toMatchObject({
      state: 'accepted',
      acceptedBy: 7,
      acceptedUntil: '2027-11-30',
      stateReason: 'Compensé par le WAF',
    });
    // Leaving the acceptance clears it.
    expect(planMove(at('accepted'), ask('confirmed'))).toMatchObject({ acceptedBy: null, acceptedUntil: null });
    expect(() => planMove(at('new'), ask('fixed', { acceptedUntil: '2027-01-01' }))).toThrow(
      LIFECYCLE_MESSAGES.expiryOnlyAccepted,
    );
  });

  it('maps §7 is_resolved onto the lifecycle', () => {
    expect(stateForResolved('new', true)).toBe('fixed');
    expect(stateForResolved('in_progress', true)).toBe('fixed');
    expect(stateForResolved('false_positive', true)).toBe('false_positive');
    expect(stateForResolved('verified', false)).toBe('confirmed');
    expect(stateForResolved('confirmed', false)).toBe('confirmed');
  });
});

describe(`finding lifecycle API (${backend})`, () => {
  const t = useTestApp({ runJobs: false });
  const { call } = apiFor(t);
  let acme: string;
  let horizon: string;
  let asset: number;
  beforeAll(async () => {
    ({ acme, horizon } = await seededTenants(t.database.db));
    // A tenant manager without the staff flag: the approver role itself.
    await addUser(t.database.db, 'resp-acme', [acme, 'manager']);
    await addUser(t.database.db, 'lecteur-acme', [acme, 'readonly']);
    const [row] = await t.database.db
      .select({ id: vulnerabilities.assetId })
      .from(vulnerabilities)
      .where(eq(vulnerabilities.tenantId, acme))
      .limit(1);
    asset = row!.id!;
  });

  let n = 0;
  const newFinding = async (tenantId = acme) =>
    (await addFinding(t.database.db, { tenantId, title: `Constat de cycle ${++n}`, severity: 'high' })).id;
  const move = (user: string, id: number, body: Record<string, unknown>) =>
    call(user, 'POST', `${LIST}${id}/transition/`, { payload: body });
  const history = async (id: number, user = 'analyste') =>
    jsonOf<{ kind: string; from_value: string | null; to_value: string | null; comment: string; username: string }[]>(
      await call(user, 'GET', `${LIST}${id}/history/`),
      200,
    );

  it('moves a finding through confirmed, in progress, fixed and verified, each move in its history and the audit trail', async () => {
    const id = await newFinding();
    for (const state of ['confirmed', 'in_progress', 'fixed', 'verified'] as const) {
      const body = jsonOf<Record<string, unknown>>(
        await move('analyste', id, { state, comment: `vers ${state}` }),
        200,
      );
      expect(body).toMatchObject({ id, state, is_resolved: isResolvedState(state) });
    }
    const lines = await history(id);
    expect(lines.map((l) => [l.from_value, l.to_value, l.comment, l.username])).toEqual([
      ['new', 'confirmed', 'vers confirmed', 'analyste'],
      ['confirmed', 'in_progress', 'vers in_progress', 'analyste'],
      ['in_progress', 'fixed', 'vers fixed', 'analyste'],
      ['fixed', 'verified', 'vers verified', 'analyste'],
    ]);
    const audit = await auditEventsOf(t.database.db, {
      eventType: 'data_change',
      description: `Vulnérabilité #${id} : « Corrigée (à vérifier) » → « Vérifiée (clôturée) »`,
    });
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({ tenantId: acme, username: 'analyste' });
    // A replay changes nothing and writes no second line.
    jsonOf(await move('analyste', id, { state: 'verified' }), 200);
    expect(await history(id)).toHaveLength(4);
  });

  it('refuses a move the lifecycle does not allow, and a missing justification, in French', async () => {
    const id = await newFinding();
    jsonOf(await move('analyste', id, { state: 'false_positive', comment: 'Bannière mal lue par le scanner' }), 200);
    const refused = await move('analyste', id, { state: 'in_progress' });
    expect(refused.statusCode).toBe(409);
    expect(refused.json().detail).toBe(LIFECYCLE_MESSAGES.refused('false_positive', 'in_progress'));
    const other = await newFinding();
    const bare = await move('analyste', other, { state: 'out_of_scope' });
    expect(bare.statusCode).toBe(400);
    expect(bare.json()).toMatchObject({
      detail: LIFECYCLE_MESSAGES.justification('out_of_scope'),
      fields: { comment: expect.any(Array) },
    });
    const unknown = await move('analyste', other, { state: 'closed' });
    expect(unknown.statusCode).toBe(400);
    expect((await t.database.db.select().from(vulnerabilities).where(eq(vulnerabilities.id, other)))[0]!.state).toBe(
      'new',
    );
  });

  it('accepts a risk only by a manager or an administrator, with its expiry', async () => {
    const id = await newFinding();
    const body = { state: 'accepted', comment: 'Compensé par la segmentation réseau', accepted_until: inDays(90) };
    const byAnalyst = await move('analyste', id, body);
    expect(byAnalyst.statusCode).toBe(403);
    expect(byAnalyst.json().detail).toBe(LIFECYCLE_MESSAGES.approver);
    const accepted = jsonOf<Record<string, unknown>>(await move('resp-acme', id, body), 200);
    expect(accepted).toMatchObject({
      state: 'accepted',
      is_resolved: true,
      accepted_until: inDays(90),
      accepted_by: await userIdOf(t.database.db, 'resp-acme'),
      state_reason: 'Compensé par la segmentation réseau',
    });
    const past = await move('resp-acme', await newFinding(), { ...body, accepted_until: inDays(-1) });
    expect(past.json()).toMatchObject({ detail: LIFECYCLE_MESSAGES.expiryPast });
    // Reopened, the acceptance is gone.
    expect(jsonOf(await move('analyste', id, { state: 'confirmed' }), 200)).toMatchObject({
      accepted_until: null,
      accepted_by: null,
      is_resolved: false,
    });
  });

  it('refuses a reader, another tenant’s finding and an unknown one', async () => {
    const id = await newFinding();
    expect((await move('lecteur-acme', id, { state: 'confirmed' })).statusCode).toBe(403);
    expect((await move('lecteur-acme', id, { state: 'confirmed' })).json()).toEqual(FORBIDDEN);
    const theirs = await newFinding(horizon);
    expect((await move('analyste', theirs, { state: 'confirmed' })).statusCode).toBe(404);
    expect((await call('analyste', 'GET', `${LIST}${theirs}/history/`)).statusCode).toBe(404);
    expect(
      (await call('analyste', 'POST', `${LIST}${theirs}/comments/`, { payload: { comment: 'x' } })).statusCode,
    ).toBe(404);
    expect((await move('analyste', 999_999_999, { state: 'confirmed' })).statusCode).toBe(404);
    // Nothing was written in the other tenant.
    const [row] = await t.database.db.select().from(vulnerabilities).where(eq(vulnerabilities.id, theirs));
    expect(row!.state).toBe('new');
    expect(await t.database.db.select().from(findingEvents).where(eq(findingEvents.vulnerabilityId, theirs))).toEqual(
      [],
    );
  });

  it('keeps §7 mark_resolved working: resolving claims it fixed, reopening confirms it', async () => {
    const id = await newFinding();
    const resolved = jsonOf<Record<string, unknown>>(
      await call('analyste', 'POST', `${LIST}${id}/mark_resolved/`),
      200,
    );
    expect(resolved).toMatchObject({
      is_resolved: true,
      state: 'fixed',
      resolved_by: await userIdOf(t.database.db, 'analyste'),
    });
    const reopened = jsonOf<Record<string, unknown>>(
      await call('analyste', 'POST', `${LIST}${id}/mark_resolved/`, { payload: { is_resolved: false } }),
      200,
    );
    expect(reopened).toMatchObject({ is_resolved: false, state: 'confirmed', resolved_at: null });
    expect((await history(id)).map((l) => l.to_value)).toEqual(['fixed', 'confirmed']);
    // PATCH is_resolved takes the same path.
    expect(
      jsonOf(await call('analyste', 'PATCH', `${LIST}${id}/`, { payload: { is_resolved: true } }), 200),
    ).toMatchObject({
      state: 'fixed',
    });
  });

  it('assigns a finding to a member who may act on it and sets its due date, both in the history', async () => {
    const id = await newFinding();
    const analyst = await userIdOf(t.database.db, 'analyste');
    const body = jsonOf<Record<string, unknown>>(
      await call('resp-acme', 'PATCH', `${LIST}${id}/`, { payload: { assignee_id: analyst, due_date: '2026-12-15' } }),
      200,
    );
    expect(body).toMatchObject({ assignee_id: analyst, due_date: '2026-12-15' });
    const refusals = [
      await userIdOf(t.database.db, 'lecteur-acme'), // read only
      await userIdOf(t.database.db, 'lecteur'), // another tenant's
      2_147_483_647,
    ];
    for (const assignee of refusals) {
      const res = await call('resp-acme', 'PATCH', `${LIST}${id}/`, { payload: { assignee_id: assignee } });
      expect(res.statusCode, String(assignee)).toBe(400);
      expect(res.json().fields.assignee_id).toBeDefined();
    }
    expect(
      (await call('resp-acme', 'PATCH', `${LIST}${id}/`, { payload: { due_date: '15/12/2026' } })).statusCode,
    ).toBe(400);
    const lines = await history(id);
    expect(lines.map((l) => [l.kind, l.from_value, l.to_value])).toEqual([
      ['assignee', null, String(analyst)],
      // The SLA had set it (high: 30 days).
      ['due_date', inDays(30), '2026-12-15'],
    ]);
  });

  it('lists whom a finding may be assigned to: active members who may act, of this tenant only', async () => {
    const people = jsonOf<{ id: number; username: string; name: string }[]>(
      await call('lecteur-acme', 'GET', '/api/vulnerabilities/assignees/'),
      200,
    );
    const names = people.map((p) => p.username);
    expect(names).toEqual(expect.arrayContaining(['admin', 'manager', 'analyste', 'resp-acme']));
    expect(names).not.toContain('lecteur-acme');
    expect(names).not.toContain('lecteur');
    expect(people.find((p) => p.username === 'analyste')).toMatchObject({ name: 'Marc Lefèvre' });
    expect(Object.keys(people[0]!).sort()).toEqual(['id', 'name', 'username']);
  });

  it('keeps comments in the history, refusing an empty one', async () => {
    const id = await newFinding();
    const added = jsonOf<Record<string, unknown>>(
      await call('analyste', 'POST', `${LIST}${id}/comments/`, { payload: { comment: ' Correctif planifié mardi ' } }),
      201,
    );
    expect(added).toMatchObject({ kind: 'comment', comment: 'Correctif planifié mardi', username: 'analyste' });
    expect((await call('analyste', 'POST', `${LIST}${id}/comments/`, { payload: { comment: '  ' } })).statusCode).toBe(
      400,
    );
    expect(
      (await call('lecteur-acme', 'POST', `${LIST}${id}/comments/`, { payload: { comment: 'lu' } })).statusCode,
    ).toBe(403);
    expect((await history(id, 'lecteur-acme')).map((l) => l.comment)).toEqual(['Correctif planifié mardi']);
  });

  it('lets the database refuse a state that contradicts is_resolved', async () => {
    await expect(
      t.database.db.insert(vulnerabilities).values({
        tenantId: acme,
        assetId: asset,
        findingKey: `contradiction:${Date.now()}`,
        title: 'Incohérente',
        isResolved: true,
        state: 'new',
      }),
    ).rejects.toThrow();
    const rows = await t.database.db
      .select()
      .from(vulnerabilities)
      .where(and(eq(vulnerabilities.tenantId, acme), eq(vulnerabilities.title, 'Incohérente')));
    expect(rows).toEqual([]);
  });
});
