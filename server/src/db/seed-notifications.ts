import { and, asc, desc, eq, inArray, lt } from 'drizzle-orm';
import type { Db } from './client.ts';
import {
  correctiveActions,
  notifications,
  projects,
  projectTasks,
  users,
  vulnerabilities,
  type NotificationKind,
  type NotificationLevel,
} from './schema.ts';
import { BODY_MAX, clip, TITLE_MAX } from '../services/notifier.ts';

const HOUR = 3_600_000;

interface DemoNotification {
  key: string;
  user: 'analyste' | 'manager';
  tenant: 'acme' | 'horizon';
  kind: NotificationKind;
  level: NotificationLevel;
  title: string;
  body: string;
  link: string | null;
  hoursAgo: number;
  read?: boolean;
  from?: 'manager';
}

/**
 * A few notifications for the demo accounts, so the bell has something to show: the analyst's assignment and
 * overdue reminder, a critical finding and a KEV match for the manager, a manager's message. Links point at the
 * seeded project and finding. Runs in the seed's transaction after the projects; the demo keys make a rerun add
 * nothing.
 */
export async function seedNotificationDemo(db: Db, tenants: { acme: string; horizon: string }): Promise<void> {
  const people = await db
    .select({ id: users.id, username: users.username })
    .from(users)
    .where(inArray(users.username, ['analyste', 'manager']));
  const userIds = new Map(people.map((u) => [u.username, u.id]));
  const [project] = await db
    .select({ id: projects.id, name: projects.name })
    .from(projects)
    .where(eq(projects.tenantId, tenants.acme))
    .orderBy(asc(projects.id))
    .limit(1);
  const [task] = project
    ? await db
        .select({ title: projectTasks.title })
        .from(projectTasks)
        .where(and(eq(projectTasks.tenantId, tenants.acme), eq(projectTasks.projectId, project.id)))
        .orderBy(asc(projectTasks.id))
        .limit(1)
    : [];
  const [finding] = await db
    .select({ id: vulnerabilities.id, title: vulnerabilities.title, cveId: vulnerabilities.cveId })
    .from(vulnerabilities)
    .where(
      and(
        eq(vulnerabilities.tenantId, tenants.acme),
        eq(vulnerabilities.severity, 'critical'),
        eq(vulnerabilities.isResolved, false),
      ),
    )
    .orderBy(desc(vulnerabilities.kev), asc(vulnerabilities.id))
    .limit(1);

  // The analyst's overdue action, keyed as the daily reminder keys it: that task will not send it again.
  const today = new Date().toISOString().slice(0, 10);
  const [late] = await db
    .select({ id: correctiveActions.id, title: correctiveActions.title, dueDate: correctiveActions.dueDate })
    .from(correctiveActions)
    .where(
      and(
        eq(correctiveActions.tenantId, tenants.acme),
        eq(correctiveActions.assigneeId, userIds.get('analyste') ?? 0),
        lt(correctiveActions.dueDate, today),
        lt(correctiveActions.progress, 100),
      ),
    )
    .orderBy(asc(correctiveActions.id))
    .limit(1);

  const projectName = project?.name ?? 'Audit de sécurité';
  const projectLink = (tab: string) => (project ? `/projects/${project.id}?tab=${tab}` : '/projects');
  const taskTitle = task?.title ?? 'Revue des droits d’accès';
  const cve = finding?.cveId ?? 'CVE-2024-3400';

  const demo: DemoNotification[] = [
    {
      key: 'demo:analyste:task',
      user: 'analyste',
      tenant: 'acme',
      kind: 'task_assigned',
      level: 'info',
      title: `Tâche assignée : ${taskTitle}`,
      body: `Claire Dubois vous a assigné la tâche « ${taskTitle} » dans le projet « ${projectName} ».`,
      link: projectLink('tasks'),
      hoursAgo: 3,
    },
    {
      key: late?.dueDate ? `overdue:action:${late.id}:${late.dueDate}` : 'demo:analyste:overdue',
      user: 'analyste',
      tenant: 'acme',
      kind: 'action_overdue',
      level: 'warning',
      title: `Échéance dépassée : ${late?.title ?? 'Durcissement de la configuration VPN'}`,
      body: `L’action corrective « ${late?.title ?? 'Durcissement de la configuration VPN'} » du projet « ${projectName} » est en retard sur son échéance.`,
      link: projectLink('remediation'),
      hoursAgo: 20,
    },
    {
      key: 'demo:analyste:message',
      user: 'analyste',
      tenant: 'acme',
      kind: 'manual',
      level: 'info',
      title: 'Comité sécurité jeudi à 10 h',
      body: 'Merci de mettre à jour l’avancement de vos actions correctives avant le comité.',
      link: null,
      hoursAgo: 48,
      read: true,
      from: 'manager',
    },
    {
      key: 'demo:manager:critical',
      user: 'manager',
      tenant: 'acme',
      kind: 'critical_vulnerability',
      level: 'critical',
      title: finding ? `Vulnérabilité critique détectée : ${finding.title}` : 'Vulnérabilité critique détectée',
      body: 'L’import du dernier rapport de scan a créé une vulnérabilité critique.',
      link: finding ? `/vulnerabilities/${finding.id}` : '/vulnerabilities/list?severity=critical',
      hoursAgo: 6,
    },
    {
      key: 'demo:manager:kev',
      user: 'manager',
      tenant: 'acme',
      kind: 'kev_match',
      level: 'critical',
      title: `${cve} activement exploitée (catalogue KEV)`,
      body: `La CVE ${cve} figure au catalogue KEV de la CISA des vulnérabilités exploitées : une vulnérabilité ouverte de l’organisation est concernée.`,
      link: `/vulnerabilities/list?text=${encodeURIComponent(cve)}`,
      hoursAgo: 30,
    },
    {
      key: 'demo:manager:horizon',
      user: 'manager',
      tenant: 'horizon',
      kind: 'task_failed',
      level: 'critical',
      title: 'Échec de la tâche « Mise à jour quotidienne des CVE »',
      body: 'La tâche s’est terminée en échec après 3 tentatives : source NVD injoignable.',
      link: '/tasks',
      hoursAgo: 72,
      read: true,
    },
  ];

  const now = Date.now();
  const rows = demo.flatMap((n) => {
    const userId = userIds.get(n.user);
    if (userId === undefined) return [];
    const createdAt = new Date(now - n.hoursAgo * HOUR);
    return [
      {
        tenantId: tenants[n.tenant],
        userId,
        kind: n.kind,
        level: n.level,
        title: clip(n.title, TITLE_MAX),
        body: clip(n.body, BODY_MAX),
        link: n.link,
        dedupeKey: n.key,
        read: n.read ?? false,
        readAt: n.read ? new Date(createdAt.getTime() + HOUR) : null,
        createdBy: n.from ? (userIds.get(n.from) ?? null) : null,
        createdAt,
      },
    ];
  });
  if (rows.length === 0) return;
  await db
    .insert(notifications)
    .values(rows)
    .onConflictDoNothing({ target: [notifications.tenantId, notifications.userId, notifications.dedupeKey] });
}
