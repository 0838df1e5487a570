import { SystemSettingsStore } from '../../server/src/services/system-settings.ts';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { and, asc, eq, gt, inArray, like } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  assets,
  correctiveActions,
  cves,
  mailOutbox,
  notifications,
  projectTasks,
  remediationPlans,
  risks,
  vulnerabilities,
  type NotificationKind,
} from '../../server/src/db/schema.ts';
import { notifierOf } from '../../server/src/services/notifier.ts';
import { TASKS } from '../../server/src/tasks/index.ts';
import { NOTIFY_OVERDUE } from '../../server/src/tasks/notification-tasks.ts';
import type { TaskDefinition } from '../../server/src/tasks/types.ts';
import { createTestApp, type TestApp } from './helpers.ts';
import { apiFor, jsonOf } from './support/api.ts';
import { backend } from './support/app.ts';
import { multipart } from './support/http.ts';
import { testTask } from './support/tasks.ts';
import { addProject, addUser, seededTenants, userIdsOf } from './support/world.ts';

const LIST = '/api/notifications/notifications/';
const UPDATE_CVES = 'vulnerabilities.tasks.update_cve_database';

/** Fails every time, with no retry: its single run ends in FAILURE. */
const failingPlatform = testTask(
  'tests.notifications.failing',
  'Synchronisation de test',
  'Échoue toujours.',
  async () => {
    throw new Error('Source injoignable');
  },
  { retryLimit: 0 },
);
const failingTenant: TaskDefinition = {
  ...failingPlatform,
  name: 'tests.notifications.failing_tenant',
  scope: 'tenant',
};
/** Fails once, then succeeds on its retry: no notification, the run ends in SUCCESS. */
let flakyCalls = 0;
const flaky: TaskDefinition = {
  ...failingPlatform,
  name: 'tests.notifications.flaky',
  retryLimit: 1,
  async run() {
    flakyCalls++;
    if (flakyCalls === 1) throw new Error('Première tentative ratée');
    return { result: 'ok' };
  },
};

/** Polls until `ok` holds: the failure notification is written just after the run's FAILURE is visible. */
async function until<T>(read: () => Promise<T>, ok: (value: T) => boolean, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (ok(value) || Date.now() > deadline) return value;
    await new Promise((r) => setTimeout(r, 25));
  }
}

interface Json {
  id: number;
  title: string;
  body: string;
  level: string;
  link: string | null;
  kind: NotificationKind;
  tenant_id: string;
  read: boolean;
}

/** A Trivy report whose findings are rated by the scanner alone (CVE ids unknown to the store). */
function trivyReport(image: string, vulns: { id: string; severity: string; title: string }[]): string {
  return JSON.stringify({
    SchemaVersion: 2,
    ArtifactName: image,
    ArtifactType: 'container_image',
    Results: [
      {
        Target: `${image} (alpine 3.19)`,
        Class: 'os-pkgs',
        Type: 'alpine',
        Vulnerabilities: vulns.map((v) => ({
          VulnerabilityID: v.id,
          PkgName: 'openssl',
          InstalledVersion: '3.1.0',
          FixedVersion: '3.1.5',
          Title: v.title,
          Description: 'Description de test.',
          Severity: v.severity,
        })),
      },
    ],
  });
}

describe(`notification triggers (${backend})`, () => {
  let t: TestApp;
  let kevDir: string;
  const savedSources = process.env.VIGIE_CVE_SOURCES;
  const { call } = apiFor(() => t);
  let userIds = new Map<string, number>();
  let seeded: { acme: string; horizon: string };
  const acme = () => seeded.acme;
  const horizon = () => seeded.horizon;
  let project: { id: number; name: string };
  let planId: number;

  const posted = async (username: string, url: string, payload: object, status = 201) =>
    jsonOf<{ id: number }>(await call(username, 'POST', url, { payload }), status);
  /** The user's notifications of a kind, newest first, as the API lists them. */
  const inbox = async (username: string, kind: NotificationKind) =>
    jsonOf<{ results: Json[] }>(await call(username, 'GET', `${LIST}?size=200`), 200).results.filter(
      (n) => n.kind === kind,
    );
  const rowsOf = (kind: NotificationKind, dedupeKey?: string) =>
    t.database.db
      .select()
      .from(notifications)
      .where(
        and(eq(notifications.kind, kind), dedupeKey !== undefined ? eq(notifications.dedupeKey, dedupeKey) : undefined),
      )
      .orderBy(asc(notifications.userId));
  const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);

  beforeAll(async () => {
    kevDir = mkdtempSync(path.join(tmpdir(), 'vigie-kev-'));
    // The CVE task reads only configured sources (or the shipped seed data).
    process.env.VIGIE_CVE_SOURCES = kevDir;
    t = await createTestApp({ tasks: [...TASKS, failingPlatform, failingTenant, flaky] });
    const db = t.database.db;
    seeded = await seededTenants(db);
    await addUser(db, 'membre', [acme(), 'user']);
    await addUser(db, 'inactif', [acme(), 'user'], { active: false });
    userIds = await userIdsOf(db);
    const name = 'Projet des notifications';
    project = { id: await addProject(db, acme(), name, { owner: 'manager' }), name };
    const [risk] = await db
      .insert(risks)
      .values({
        tenantId: acme(),
        projectId: project.id,
        title: 'Risque',
        likelihood: 3,
        impact: 3,
        residualLikelihood: 3,
        residualImpact: 3,
      })
      .returning({ id: risks.id });
    const [plan] = await db
      .insert(remediationPlans)
      .values({ tenantId: acme(), riskId: risk!.id, title: 'Plan', targetLikelihood: 1, targetImpact: 1 })
      .returning({ id: remediationPlans.id });
    planId = plan!.id;
  });
  afterAll(async () => {
    await t.close();
    rmSync(kevDir, { recursive: true, force: true });
    if (savedSources === undefined) delete process.env.VIGIE_CVE_SOURCES;
    else process.env.VIGIE_CVE_SOURCES = savedSources;
  });

  describe('assignments', () => {
    it('tells the assignee of a new or reassigned task, not someone assigning themselves', async () => {
      const task = await posted('manager', '/api/projects/tasks/', {
        project: project.id,
        title: 'Revue des pare-feu',
        assignee: userIds.get('analyste'),
      });
      const [n] = await inbox('analyste', 'task_assigned');
      expect(n).toMatchObject({
        title: 'Tâche assignée : Revue des pare-feu',
        level: 'info',
        link: `/projects/${project.id}?tab=tasks`,
        tenant_id: acme(),
        read: false,
      });
      expect(n!.body).toBe(
        `Claire Dubois vous a assigné la tâche « Revue des pare-feu » dans le projet « ${project.name} ».`,
      );

      // Reassigned: the new assignee hears of it; an update that keeps the assignee tells nobody.
      const patch = (payload: object) => call('manager', 'PATCH', `/api/projects/tasks/${task.id}/`, { payload });
      expect((await patch({ assignee: userIds.get('membre') })).statusCode).toBe(200);
      expect((await inbox('membre', 'task_assigned')).map((x) => x.title)).toEqual([
        'Tâche assignée : Revue des pare-feu',
      ]);
      expect((await patch({ title: 'Revue des pare-feu (v2)' })).statusCode).toBe(200);
      expect(await inbox('membre', 'task_assigned')).toHaveLength(1);
      expect((await patch({ assignee: null })).statusCode).toBe(200);

      const before = (await rowsOf('task_assigned')).length;
      await posted('manager', '/api/projects/tasks/', {
        project: project.id,
        title: 'Pour moi',
        assignee: userIds.get('manager'),
      });
      await posted('manager', '/api/projects/tasks/', { project: project.id, title: 'Sans assigné' });
      expect(await rowsOf('task_assigned')).toHaveLength(before);
    });

    it('tells the assignee of a corrective action, created or changed', async () => {
      const action = await posted('manager', '/api/projects/corrective-actions/', {
        remediation_plan: planId,
        title: 'Corriger OpenSSL',
        assignee: userIds.get('analyste'),
      });
      const [n] = await inbox('analyste', 'action_assigned');
      expect(n).toMatchObject({
        title: 'Action corrective assignée : Corriger OpenSSL',
        level: 'info',
        link: `/projects/${project.id}?tab=remediation`,
      });
      const res = await call('manager', 'PUT', `/api/projects/corrective-actions/${action.id}/`, {
        payload: { title: 'Corriger OpenSSL', assignee: userIds.get('membre') },
      });
      expect(res.statusCode, res.body).toBe(200);
      expect((await inbox('membre', 'action_assigned')).map((x) => x.title)).toEqual([
        'Action corrective assignée : Corriger OpenSSL',
      ]);
      // An inactive member may be assigned, but receives nothing.
      await call('manager', 'PATCH', `/api/projects/corrective-actions/${action.id}/`, {
        payload: { assignee: userIds.get('inactif') },
      });
      const rows = await rowsOf('action_assigned');
      expect(rows.some((r) => r.userId === userIds.get('inactif'))).toBe(false);
    });

    it('tells a user added to a project team, once, and not when they add themselves', async () => {
      const url = `/api/projects/${project.id}/add_team_member/`;
      await posted('manager', url, { user_id: userIds.get('membre'), role: 'MEMBER' });
      const [n] = await inbox('membre', 'project_member_added');
      expect(n).toMatchObject({
        title: `Ajout à l’équipe du projet « ${project.name} »`,
        level: 'info',
        link: `/projects/${project.id}`,
      });
      expect(n!.body).toContain('(rôle : membre)');
      // A role change is not an addition.
      await posted('manager', url, { user_id: userIds.get('membre'), role: 'VIEWER' }, 200);
      expect(await inbox('membre', 'project_member_added')).toHaveLength(1);
      await posted('manager', url, { user_id: userIds.get('manager'), role: 'ADMIN' });
      expect(await inbox('manager', 'project_member_added')).toHaveLength(0);
    });
  });

  describe('critical findings from a scan import', () => {
    const upload = async (report: string) => {
      const { payload, headers } = multipart([{ name: 'file', value: report, filename: 'trivy.json' }]);
      const res = await call('analyste', 'POST', '/api/vulnerabilities/scans/import/', { payload, headers });
      expect(res.statusCode, res.body).toBe(201);
      const scan = res.json<{ id: number; task_id: string }>();
      expect((await t.jobs.waitFor(scan.task_id)).status).toBe('SUCCESS');
      return scan;
    };

    it('tells the launcher and the tenant’s admins and managers, once per import that creates critical findings', async () => {
      const scan = await upload(
        trivyReport('registry.acme/paiement:1.0', [
          { id: 'CVE-2099-10001', severity: 'CRITICAL', title: 'Exécution de code à distance' },
          { id: 'CVE-2099-10002', severity: 'CRITICAL', title: 'Contournement d’authentification' },
          { id: 'CVE-2099-10003', severity: 'LOW', title: 'Fuite mineure' },
        ]),
      );
      const key = (await rowsOf('critical_vulnerability')).find((r) => r.link?.endsWith(`scan=${scan.id}`))?.dedupeKey;
      expect(key).toMatch(new RegExp(`^critical:scan:${scan.id}:\\d+$`));
      const rows = await rowsOf('critical_vulnerability', key!);
      expect(rows.map((r) => r.userId).sort()).toEqual(
        ['admin', 'manager', 'analyste'].map((u) => userIds.get(u)!).sort(),
      );
      const [n] = await inbox('analyste', 'critical_vulnerability');
      expect(n).toMatchObject({
        title: '2 vulnérabilités critiques détectées',
        level: 'critical',
        link: `/vulnerabilities/list?severity=critical&scan=${scan.id}`,
        tenant_id: acme(),
      });
      // A user of the tenant who did not launch it hears nothing.
      expect(await inbox('membre', 'critical_vulnerability')).toHaveLength(0);

      // Re-processing updates the same findings: nothing new, no notification.
      const before = (await rowsOf('critical_vulnerability')).length;
      const restarted = await call('analyste', 'POST', `/api/vulnerabilities/scans/${scan.id}/restart/`);
      expect(restarted.statusCode, restarted.body).toBe(200);
      await t.jobs.waitFor(restarted.json<{ task_id: string }>().task_id);
      expect(await rowsOf('critical_vulnerability')).toHaveLength(before);

      // One new critical finding: the link opens it.
      await upload(
        trivyReport('registry.acme/facturation:2.1', [
          { id: 'CVE-2099-10004', severity: 'CRITICAL', title: 'Injection SQL' },
        ]),
      );
      const [finding] = await t.database.db
        .select({ id: vulnerabilities.id })
        .from(vulnerabilities)
        .where(eq(vulnerabilities.cveId, 'CVE-2099-10004'));
      const [latest] = await inbox('manager', 'critical_vulnerability');
      expect(latest).toMatchObject({
        title: 'Vulnérabilité critique détectée : Injection SQL',
        link: `/vulnerabilities/${finding!.id}`,
      });
    });
  });

  describe('KEV match', () => {
    const writeKev = (name: string, ids: string[]) => {
      const file = path.join(kevDir, name);
      writeFileSync(
        file,
        JSON.stringify({
          title: 'CISA Catalog of Known Exploited Vulnerabilities',
          catalogVersion: '2099.01.01',
          count: ids.length,
          vulnerabilities: ids.map((cveID) => ({
            cveID,
            vendorProject: 'Exemple',
            product: 'Passerelle',
            vulnerabilityName: 'Exemple Passerelle Vulnerability',
            dateAdded: '2099-01-01',
            shortDescription: 'An example vulnerability.',
            requiredAction: 'Apply updates.',
            dueDate: '2099-01-22',
            knownRansomwareCampaignUse: 'Unknown',
            notes: '',
            cwes: [],
          })),
        }),
      );
      return file;
    };
    const runImport = async (file: string) => {
      const run = await t.jobs.launch(UPDATE_CVES, { sources: [file] }, { tenantId: null, requestedBy: null });
      const done = await t.jobs.waitFor(run.id);
      expect(done.status, JSON.stringify(done.meta)).toBe('SUCCESS');
    };

    it('tells the admins and managers of each tenant with an open finding on a CVE newly in KEV, once per CVE', async () => {
      const db = t.database.db;
      let hosts = 0;
      const finding = async (tenantId: string, cveId: string, isResolved = false) => {
        const [asset] = await db
          .insert(assets)
          .values({ tenantId, name: `hôte-kev-${++hosts}` })
          .returning({ id: assets.id });
        await db.insert(vulnerabilities).values({
          tenantId,
          assetId: asset!.id,
          cveId,
          findingKey: cveId,
          title: cveId,
          isResolved,
          state: isResolved ? 'verified' : 'new',
        });
      };
      await finding(acme(), 'CVE-2099-20001');
      await finding(acme(), 'CVE-2099-20001');
      // Horizon: only a resolved finding on it, and an open one on a CVE already in KEV.
      await finding(horizon(), 'CVE-2099-20001', true);
      await db.insert(cves).values({ cveId: 'CVE-2099-20002', kev: true });
      await finding(horizon(), 'CVE-2099-20002');

      await runImport(writeKev('kev-1.json', ['CVE-2099-20001', 'CVE-2099-20002', 'CVE-2099-20003']));
      // The demo seed holds a KEV notification of its own (key demo:…).
      const kevRows = async () => (await rowsOf('kev_match')).filter((r) => r.dedupeKey?.startsWith('kev:'));
      const rows = await kevRows();
      expect(rows.map((r) => [r.tenantId, r.userId, r.dedupeKey])).toEqual(
        [
          [acme(), userIds.get('admin'), 'kev:CVE-2099-20001'],
          [acme(), userIds.get('manager'), 'kev:CVE-2099-20001'],
        ].sort((a, b) => Number(a[1]) - Number(b[1])),
      );
      const [n] = await inbox('manager', 'kev_match');
      expect(n).toMatchObject({
        title: 'CVE-2099-20001 activement exploitée (catalogue KEV)',
        level: 'critical',
        link: '/vulnerabilities/list?text=CVE-2099-20001',
        tenant_id: acme(),
      });
      expect(n!.body).toContain('2 vulnérabilités ouvertes');
      expect(await inbox('analyste', 'kev_match')).toHaveLength(0);

      // The same catalogue again, then a changed entry of it: nothing is newly exploited, nobody is told twice.
      await runImport(writeKev('kev-2.json', ['CVE-2099-20001']));
      await db.update(cves).set({ kevDueDate: '2099-02-01' }).where(eq(cves.cveId, 'CVE-2099-20001'));
      await runImport(writeKev('kev-3.json', ['CVE-2099-20001']));
      expect(await kevRows()).toHaveLength(2);
    });
  });

  describe('background task failure', () => {
    const failed = async (
      name: string,
      opts: { tenantId: string | null; requestedBy: number | null },
      expected: number,
    ) => {
      const run = await t.jobs.launch(name, {}, { ...opts, trigger: opts.requestedBy ? 'user' : 'schedule' });
      expect((await t.jobs.waitFor(run.id)).status).toBe('FAILURE');
      return until(
        () => rowsOf('task_failed', `task_failed:${run.id}`),
        (rows) => rows.length >= expected,
      );
    };

    it('tells who launched a run that ended in FAILURE, in their default tenant', async () => {
      const rows = await failed(failingPlatform.name, { tenantId: null, requestedBy: userIds.get('manager')! }, 1);
      expect(rows.map((r) => [r.tenantId, r.userId])).toEqual([[acme(), userIds.get('manager')]]);
      const [n] = await inbox('manager', 'task_failed');
      expect(n).toMatchObject({
        title: 'Échec de la tâche « Synchronisation de test »',
        level: 'critical',
        link: '/tasks',
      });
      expect(n!.body).toBe('La tâche s’est terminée en échec après 1 tentative : Source injoignable');
    });

    it('tells superusers and staff of a platform run nobody launched, and admins of a tenant run', async () => {
      const platform = await failed(failingPlatform.name, { tenantId: null, requestedBy: null }, 2);
      expect(platform.map((r) => [r.tenantId, r.userId])).toEqual(
        [
          [acme(), userIds.get('admin')],
          [acme(), userIds.get('manager')],
        ].sort((a, b) => Number(a[1]) - Number(b[1])),
      );
      const tenantRun = await failed(failingTenant.name, { tenantId: horizon(), requestedBy: null }, 1);
      expect(tenantRun.map((r) => [r.tenantId, r.userId])).toEqual([[horizon(), userIds.get('admin')]]);
    });

    it('says nothing about a run that succeeds on its retry', async () => {
      const before = (await rowsOf('task_failed')).length;
      const run = await t.jobs.launch(flaky.name, {}, { tenantId: null, requestedBy: userIds.get('manager')! });
      expect((await t.jobs.waitFor(run.id)).status).toBe('SUCCESS');
      expect(flakyCalls).toBe(2);
      expect(await rowsOf('task_failed')).toHaveLength(before);
    });
  });

  describe('overdue reminders', () => {
    it('is a daily platform task at 06:00 UTC', () => {
      const def = TASKS.find((d) => d.name === NOTIFY_OVERDUE);
      expect(def).toMatchObject({
        label: "Rappels d'échéances dépassées",
        scope: 'platform',
        schedule: { cron: '0 6 * * *' },
      });
    });

    it('reminds assignees of overdue tasks and actions once per due date, however often it runs', async () => {
      const db = t.database.db;
      const task = async (title: string, assignee: string, due: string, progress = 0) =>
        (
          await db
            .insert(projectTasks)
            .values({
              tenantId: acme(),
              projectId: project.id,
              title,
              assigneeId: userIds.get(assignee)!,
              dueDate: due,
              progress,
              status: progress === 100 ? 'DONE' : 'TODO',
            })
            .returning({ id: projectTasks.id })
        )[0]!.id;
      const late = await task('Inventaire en retard', 'analyste', day(-3));
      await task('Terminée en retard', 'analyste', day(-3), 100);
      await task('Pas encore due', 'analyste', day(2));
      await task('Pour un compte désactivé', 'inactif', day(-3));
      const [action] = await db
        .insert(correctiveActions)
        .values({
          tenantId: acme(),
          planId,
          title: 'Action en retard',
          assigneeId: userIds.get('membre')!,
          dueDate: day(-1),
          progress: 40,
        })
        .returning({ id: correctiveActions.id });

      for (let i = 0; i < 2; i++) {
        const run = await t.jobs.launch(NOTIFY_OVERDUE, {}, { tenantId: null, requestedBy: null });
        const done = await t.jobs.waitFor(run.id);
        expect(done.status).toBe('SUCCESS');
        expect(done.result).toMatch(
          /rappels? envoyés? \(\d+ tâches?, \d+ actions? correctives? et \d+ vulnérabilités? assignées? en retard\)$/,
        );
        if (i === 1) expect(done.meta).toMatchObject({ sent: 0 });
      }
      const taskRows = await rowsOf('task_overdue', `overdue:task:${late}:${day(-3)}`);
      expect(taskRows.map((r) => r.userId)).toEqual([userIds.get('analyste')]);
      const actionRows = await rowsOf('action_overdue', `overdue:action:${action!.id}:${day(-1)}`);
      expect(actionRows.map((r) => r.userId)).toEqual([userIds.get('membre')]);
      const titles = (await rowsOf('task_overdue')).map((r) => r.title);
      expect(titles).not.toContain('Échéance dépassée : Terminée en retard');
      expect(titles).not.toContain('Échéance dépassée : Pas encore due');
      expect((await rowsOf('task_overdue')).some((r) => r.userId === userIds.get('inactif'))).toBe(false);

      const [n] = (await inbox('analyste', 'task_overdue')).filter((x) => x.title.includes('Inventaire'));
      expect(n).toMatchObject({
        title: 'Échéance dépassée : Inventaire en retard',
        level: 'warning',
        link: `/projects/${project.id}?tab=tasks`,
      });
      expect(n!.body).toContain(`du projet « ${project.name} » devait être terminée le `);
      const [a] = await inbox('membre', 'action_overdue');
      expect(a).toMatchObject({ level: 'warning', link: `/projects/${project.id}?tab=remediation` });

      // A new due date is a new reminder.
      await db
        .update(projectTasks)
        .set({ dueDate: day(-2) })
        .where(eq(projectTasks.id, late));
      const run = await t.jobs.launch(NOTIFY_OVERDUE, {}, { tenantId: null, requestedBy: null });
      await t.jobs.waitFor(run.id);
      expect(await rowsOf('task_overdue', `overdue:task:${late}:${day(-2)}`)).toHaveLength(1);
    });
  });

  describe('e-mail', () => {
    const saved = process.env.VIGIE_NOTIFY_EMAIL;
    afterAll(() => {
      if (saved === undefined) delete process.env.VIGIE_NOTIFY_EMAIL;
      else process.env.VIGIE_NOTIFY_EMAIL = saved;
    });
    const mailsSince = async (id: number) =>
      t.database.db.select().from(mailOutbox).where(gt(mailOutbox.id, id)).orderBy(asc(mailOutbox.id));
    const lastMailId = async () =>
      (await t.database.db.select({ id: mailOutbox.id }).from(mailOutbox)).reduce((m, r) => Math.max(m, r.id), 0);
    const sendTo = async (username: string, level: string, title: string) => {
      const res = await call('manager', 'POST', LIST, {
        payload: { title, level, link: '/vulnerabilities/list', user: userIds.get(username) },
      });
      expect(res.statusCode, res.body).toBe(201);
      await notifierOf(t.database).idle();
    };

    it('sends nothing by default, critical ones with VIGIE_NOTIFY_EMAIL=critical, everything with all', async () => {
      delete process.env.VIGIE_NOTIFY_EMAIL;
      let mark = await lastMailId();
      await sendTo('analyste', 'critical', 'Critique sans e-mail');
      expect(await mailsSince(mark)).toHaveLength(0);

      process.env.VIGIE_NOTIFY_EMAIL = 'critical';
      mark = await lastMailId();
      await sendTo('analyste', 'info', 'Simple information');
      await sendTo('analyste', 'critical', 'Alerte critique');
      const mails = await mailsSince(mark);
      expect(mails).toHaveLength(1);
      expect(mails[0]).toMatchObject({
        recipient: 'marc.lefevre@acme-securite.fr',
        subject: '[Vigie] Alerte critique',
      });
      expect(mails[0]!.body).toContain('Bonjour Marc,');
      expect(mails[0]!.body).toContain('Ouvrir dans Vigie : /vulnerabilities/list');
      expect(mails[0]!.body).toContain('Organisation : Acme Sécurité');

      process.env.VIGIE_NOTIFY_EMAIL = 'all';
      mark = await lastMailId();
      await sendTo('membre', 'info', 'Pour information');
      expect((await mailsSince(mark)).map((m) => [m.recipient, m.subject])).toEqual([
        ['membre@acme-securite.fr', '[Vigie] Pour information'],
      ]);
    });

    it('sends no e-mail while the system setting « notifications » is off, and the in-app notification stays', async () => {
      process.env.VIGIE_NOTIFY_EMAIL = 'all';
      const store = SystemSettingsStore.of(t.database.db);
      await store.update({ notifications: false }, userIds.get('manager')!);
      try {
        const mark = await lastMailId();
        await sendTo('analyste', 'critical', 'Sans e-mail : réglage coupé');
        expect(await mailsSince(mark)).toHaveLength(0);
        const kept = await t.database.db
          .select()
          .from(notifications)
          .where(eq(notifications.title, 'Sans e-mail : réglage coupé'));
        expect(kept).toHaveLength(1);
      } finally {
        await store.update({ notifications: true }, userIds.get('manager')!);
      }
      const mark = await lastMailId();
      await sendTo('analyste', 'critical', 'Avec e-mail : réglage rétabli');
      expect(await mailsSince(mark)).toHaveLength(1);
    });

    it('mails a trigger’s critical notification too (task failure)', async () => {
      process.env.VIGIE_NOTIFY_EMAIL = 'critical';
      const mark = await lastMailId();
      const run = await t.jobs.launch(
        failingPlatform.name,
        {},
        { tenantId: null, requestedBy: userIds.get('manager')! },
      );
      await t.jobs.waitFor(run.id);
      const mails = await until(
        async () => {
          await notifierOf(t.database).idle();
          return t.database.db
            .select()
            .from(mailOutbox)
            .where(and(gt(mailOutbox.id, mark), like(mailOutbox.subject, '%Synchronisation de test%')));
        },
        (rows) => rows.length > 0,
      );
      expect(mails.map((m) => m.recipient)).toEqual(['claire.dubois@acme-securite.fr']);
      const unused = await t.database.db
        .select()
        .from(notifications)
        .where(inArray(notifications.userId, [userIds.get('inactif')!]));
      expect(unused).toHaveLength(0);
    });
  });
});
