import { beforeAll, describe, expect, it } from 'vitest';
import { and, eq, inArray, like } from 'drizzle-orm';
import { auditEvents, projectActivity, projectVulnerabilities, vulnerabilities } from '../../server/src/db/schema.ts';
import { apiFor, jsonOf } from './support/api.ts';
import { backend, useTestApp } from './support/app.ts';
import { FORBIDDEN, NOT_FOUND } from './support/http.ts';
import { addFinding, addProject, addUser, auditEventsOf, seededTenants } from './support/world.ts';

const BULK = '/api/vulnerabilities/bulk/';
const EXPORT = '/api/vulnerabilities/export/';

/** Issue 21's bulk work on a selection: linking it to a project (and back), and exporting exactly it. */
describe(`bulk project links and the export of a selection (${backend})`, () => {
  const t = useTestApp({ runJobs: false });
  const { call } = apiFor(t);
  const db = () => t.database.db;
  let acme: string;
  let horizon: string;
  /** Owned by analyste; equipier-lot is on its team as a VIEWER only. */
  let audit: number;
  let theirs: number;

  beforeAll(async () => {
    ({ acme, horizon } = await seededTenants(db()));
    await addUser(db(), 'equipier-lot', [acme, 'user']);
    await addUser(db(), 'hors-equipe-lot', [acme, 'user']);
    audit = await addProject(db(), acme, 'Audit par lot', {
      owner: 'analyste',
      team: { analyste: 'ADMIN', 'equipier-lot': 'VIEWER' },
    });
    theirs = await addProject(db(), horizon, 'Projet Horizon', { owner: 'manager' });
  });

  let batch = 0;
  /** `n` findings of a fresh batch, titled so a text filter names exactly them. */
  const findings = async (n: number, tenantId = acme) => {
    const tag = `sel-${++batch}-${Date.now()}`;
    const ids: number[] = [];
    for (let i = 0; i < n; i++) {
      ids.push((await addFinding(db(), { tenantId, title: `${tag} n° ${i}`, severity: 'medium' })).id);
    }
    return { tag, ids };
  };
  const bulk = (user: string, body: Record<string, unknown>) => call(user, 'POST', BULK, { payload: body });
  const linkedTo = async (projectId: number, ids: number[]) =>
    (
      await db()
        .select({ id: projectVulnerabilities.vulnerabilityId })
        .from(projectVulnerabilities)
        .where(
          and(eq(projectVulnerabilities.projectId, projectId), inArray(projectVulnerabilities.vulnerabilityId, ids)),
        )
    )
      .map((r) => r.id)
      .sort((a, b) => a - b);
  const bulkAudit = (ids: number[], verb: string) =>
    db()
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.tenantId, acme), like(auditEvents.description, `% : ${verb} « Audit par lot » %`)))
      .then((rows) => rows.filter((a) => ids.includes((a.details as { vulnerability_id: number }).vulnerability_id)));

  it('links ticked findings to a project in one request: one audit event each, one activity line, as one link shows', async () => {
    const { ids } = await findings(4);
    const first = ids.slice(0, 3);
    expect(jsonOf(await bulk('analyste', { ids: first, action: 'link_project', project_id: audit }), 200)).toEqual({
      selected: 3,
      changed: 3,
      unchanged: 0,
      refused: 0,
    });
    expect(await linkedTo(audit, ids)).toEqual(first);
    const events = await bulkAudit(ids, 'liée au projet');
    expect(events).toHaveLength(3);
    expect(events.find((a) => (a.details as { vulnerability_id: number }).vulnerability_id === first[0])).toMatchObject(
      {
        eventType: 'data_change',
        username: 'analyste',
        description: `Vulnérabilité #${first[0]} : liée au projet « Audit par lot » (action groupée)`,
        details: expect.objectContaining({ bulk: true, project_id: audit, action: 'linked' }),
      },
    );
    const activity = await db()
      .select()
      .from(projectActivity)
      .where(and(eq(projectActivity.projectId, audit), eq(projectActivity.action, 'linked')));
    expect(activity.map((a) => a.summary)).toContain('3 vulnérabilités liées au projet (action groupée)');
    // The project's own API lists them as if linked one by one.
    const listed = jsonOf<{ results: { vulnerability_id: number }[] }>(
      await call('analyste', 'GET', `/api/projects/vulnerabilities/?project=${audit}&page_size=100`),
      200,
    );
    expect(listed.results.map((r) => r.vulnerability_id)).toEqual(expect.arrayContaining(first));

    // Again with one more: the three already linked are unchanged, and get no second audit event.
    expect(jsonOf(await bulk('analyste', { ids, action: 'link_project', project_id: audit }), 200)).toEqual({
      selected: 4,
      changed: 1,
      unchanged: 3,
      refused: 0,
    });
    expect(await linkedTo(audit, ids)).toEqual(ids);
    expect(await bulkAudit(ids, 'liée au projet')).toHaveLength(4);
  });

  it('links every finding a filter matches, never another tenant’s, and unlinks them the same way', async () => {
    const { tag, ids } = await findings(5);
    // Horizon's findings share the text: the filter runs in the caller's tenant only.
    const foreign = await findings(2, horizon);
    await db()
      .update(vulnerabilities)
      .set({ title: `${tag} ailleurs` })
      .where(inArray(vulnerabilities.id, foreign.ids));
    expect(
      jsonOf(await bulk('manager', { filter: { text: tag }, action: 'link_project', project_id: audit }), 200),
    ).toEqual({ selected: 5, changed: 5, unchanged: 0, refused: 0 });
    expect(await linkedTo(audit, [...ids, ...foreign.ids])).toEqual(ids);

    // Unlinking two ticked ones and one never linked: two removed, one unchanged, an audit event for each removed.
    const never = (await findings(1)).ids[0]!;
    expect(
      jsonOf(await bulk('manager', { ids: [ids[0], ids[1], never], action: 'unlink_project', project_id: audit }), 200),
    ).toEqual({ selected: 3, changed: 2, unchanged: 1, refused: 0 });
    expect(await linkedTo(audit, ids)).toEqual(ids.slice(2));
    const removed = await bulkAudit(ids, 'retirée du projet');
    expect(removed.map((a) => (a.details as { vulnerability_id: number }).vulnerability_id).sort()).toEqual(
      ids.slice(0, 2).sort(),
    );
    const activity = await db().select().from(projectActivity).where(eq(projectActivity.projectId, audit));
    expect(activity.map((a) => a.summary)).toContain('2 vulnérabilités retirées du projet (action groupée)');
    // The rest by filter.
    expect(
      jsonOf(await bulk('manager', { filter: { text: tag }, action: 'unlink_project', project_id: audit }), 200),
    ).toMatchObject({ selected: 5, changed: 3, unchanged: 2 });
    expect(await linkedTo(audit, ids)).toEqual([]);
  });

  it('refuses another tenant’s project, a project out of reach and one the caller may only read', async () => {
    const { ids } = await findings(2);
    // Another tenant's project, and a project of Acme its caller is not on the team of: unknown.
    const foreign = await bulk('manager', { ids, action: 'link_project', project_id: theirs });
    expect(foreign.statusCode).toBe(404);
    expect(foreign.json()).toEqual(NOT_FOUND);
    const outside = await bulk('hors-equipe-lot', { ids, action: 'link_project', project_id: audit });
    expect(outside.statusCode).toBe(404);
    expect(outside.json()).toEqual(NOT_FOUND);
    expect((await bulk('manager', { ids, action: 'link_project', project_id: 987_654_321 })).statusCode).toBe(404);
    // A VIEWER of the team reads the project but may not change it: 403, audited as in the projects area.
    const viewer = await bulk('equipier-lot', { ids, action: 'link_project', project_id: audit });
    expect(viewer.statusCode).toBe(403);
    expect(viewer.json()).toEqual(FORBIDDEN);
    const refusals = await auditEventsOf(db(), { eventType: 'permission_denied', username: 'equipier-lot' });
    expect(refusals.map((a) => a.description)).toContain('Accès refusé : action réservée à l’équipe du projet');
    expect((await bulk('equipier-lot', { ids, action: 'unlink_project', project_id: audit })).statusCode).toBe(403);
    // Nothing was linked, nothing audited as linked.
    expect(await linkedTo(audit, ids)).toEqual([]);
    expect(await bulkAudit(ids, 'liée au projet')).toHaveLength(0);
    const horizonLinks = await db()
      .select()
      .from(projectVulnerabilities)
      .where(eq(projectVulnerabilities.projectId, theirs));
    expect(horizonLinks).toHaveLength(0);
  });

  it('says what is wrong with a link body in French', async () => {
    const { ids } = await findings(1);
    const cases: [Record<string, unknown>, string, string][] = [
      [{ ids, action: 'link_project' }, 'project_id', 'Valeur requise pour cette action.'],
      [{ ids, action: 'unlink_project' }, 'project_id', 'Valeur requise pour cette action.'],
      [
        { ids, action: 'link_project', project_id: 0 },
        'project_id',
        'Projet invalide : l’identifiant d’un projet est attendu.',
      ],
      [{ ids, action: 'link_project', project_id: 'Audit' }, 'project_id', 'Projet invalide'],
      [{ ids, action: 'lier' }, 'action', 'link_project, unlink_project'],
    ];
    for (const [body, field, message] of cases) {
      const res = await bulk('analyste', body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().detail).toContain(message);
      expect(Object.keys(res.json().fields ?? {}), JSON.stringify(res.json())).toContain(field);
    }
  });

  it('exports exactly the ids given, in CSV and JSON, never another tenant’s, audited with them', async () => {
    const { tag, ids } = await findings(4);
    const foreign = await findings(1, horizon);
    const chosen = [ids[0]!, ids[2]!, foreign.ids[0]!];
    const json = await call('analyste', 'GET', `${EXPORT}?format=json&ids=${chosen.join(',')}`);
    expect(json.statusCode, json.body).toBe(200);
    expect(json.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(
      json
        .json<{ id: number }[]>()
        .map((r) => r.id)
        .sort((a, b) => a - b),
    ).toEqual([ids[0], ids[2]]);
    const csv = await call('analyste', 'GET', `${EXPORT}?ids=${chosen.join(',')}`);
    expect(csv.statusCode).toBe(200);
    expect(csv.headers['content-type']).toBe('text/csv; charset=utf-8');
    const lines = csv.body
      .replace(/^\uFEFF/, '')
      .trim()
      .split(/\r?\n/);
    expect(lines).toHaveLength(3);
    expect(lines.slice(1).map((l) => Number(l.split(',')[0]))).toEqual([ids[0], ids[2]]);
    // The filters still apply: ids and a text that only two of them match.
    const both = await call('analyste', 'GET', `${EXPORT}?format=json&ids=${ids.join(',')}&text=${tag}%20n°%201`);
    expect(both.json<{ id: number }[]>().map((r) => r.id)).toEqual([ids[1]]);
    // Only Horizon's: nothing (the header alone).
    const none = await call('analyste', 'GET', `${EXPORT}?format=json&ids=${foreign.ids[0]}`);
    expect(none.json()).toEqual([]);
    const [event] = await auditEventsOf(
      db(),
      { eventType: 'sensitive_data_access', username: 'analyste' },
      { newestFirst: true, limit: 1 },
    );
    expect(event!.details).toMatchObject({ format: 'json', ids: [foreign.ids[0]] });
  });

  it('refuses malformed ids in French', async () => {
    const tooMany = Array.from({ length: 1001 }, (_, i) => i + 1).join(',');
    for (const ids of ['1,x', '0', '1,,2', '-3', tooMany, '1'.repeat(17_001)]) {
      const res = await call('analyste', 'GET', `${EXPORT}?format=csv&ids=${ids}`);
      expect(res.statusCode, ids.slice(0, 40)).toBe(400);
      expect(res.json().detail).toBe('Sélection invalide : de 1 à 1 000 identifiants de vulnérabilités.');
    }
    // Repeats are one id; a thousand distinct ones are accepted.
    const thousand = Array.from({ length: 1000 }, (_, i) => i + 1).join(',');
    expect((await call('analyste', 'GET', `${EXPORT}?format=json&ids=${thousand}`)).statusCode).toBe(200);
    expect((await call('analyste', 'GET', `${EXPORT}?format=json&ids=5,5,5`)).statusCode).toBe(200);
  });
});
