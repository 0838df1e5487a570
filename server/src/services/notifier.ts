import { and, asc, eq, isNotNull, isNull, or } from 'drizzle-orm';
import type { Database } from '../db/client.ts';
import {
  memberships,
  tenants,
  users,
  type NotificationKind,
  type NotificationLevel,
  type TeamRole,
} from '../db/schema.ts';
import { withTenant, type TenantDb, type TenantId } from '../db/tenant-scope.ts';
import { presentNotification, type Notification } from '../presenters/notification.ts';
import {
  notificationView,
  NotificationsRepository,
  type Audience,
  type NotificationView,
  type OverdueFinding,
  type OverdueItem,
  type Recipient,
} from '../repositories/notifications.ts';
import { BODY_MAX, TITLE_MAX } from '../schemas/notifications.ts';
import { createMailer, type Mailer } from './mailer.ts';
import { SystemSettingsStore } from './system-settings.ts';

/** What a notification says; the recipients are chosen separately. */
export interface Notice {
  kind: NotificationKind;
  level: NotificationLevel;
  title: string;
  body?: string;
  link?: string | null;
  /** Same key, same recipient, once (e.g. 'kev:CVE-2024-1234'); null when every event is new. */
  dedupeKey?: string | null;
  createdBy?: number | null;
}

/** A notification written in a transaction, waiting for publish() once that transaction committed. */
export interface Created {
  notification: NotificationView;
  recipient: Recipient;
}

export type BusEvent = { type: 'notification'; notification: Notification } | { type: 'read' };
type Listener = (event: BusEvent) => void;

/** The minimum of a logger this service needs (Fastify's and pino's loggers fit). */
export interface Log {
  error(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

/** Who caused an event, for the wording. */
export interface NoticeActor {
  id: number;
  name: string;
}

export type NotifyEmail = 'off' | 'critical' | 'all';

// The API's limits on a manager's message; the product's longer texts are clipped to them.
export { BODY_MAX, TITLE_MAX };
const ERROR_MAX = 500;

const TEAM_ROLE_LABELS: Record<TeamRole, string> = {
  ADMIN: 'administrateur',
  MEMBER: 'membre',
  VIEWER: 'lecteur',
};

/** VIGIE_NOTIFY_EMAIL: off (default), critical (critical notifications only) or all. */
export function notifyEmailMode(env: NodeJS.ProcessEnv = process.env): NotifyEmail {
  const raw = env.VIGIE_NOTIFY_EMAIL?.trim().toLowerCase();
  return raw === 'critical' || raw === 'all' ? raw : 'off';
}

/** Cuts a text to `max` characters, ending with an ellipsis when it was longer. */
export function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/** A person's name as the notifications show it. */
export function displayName(u: { firstName: string; lastName: string; username: string }): string {
  return `${u.firstName} ${u.lastName}`.trim() || u.username;
}

const frenchDay = new Intl.DateTimeFormat('fr-FR', { timeZone: 'UTC' });
const dayOf = (isoDay: string) => frenchDay.format(new Date(`${isoDay}T00:00:00Z`));

const consoleLog: Log = {
  error: (obj, msg) => console.error(msg, obj),
  warn: (obj, msg) => console.warn(msg, obj),
};

/** The database channel every process hears notifications and read-state changes on. */
export const BUS_CHANNEL = 'vigie_notifications';
// NOTIFY carries 8000 bytes at most: a longer notification goes by id, and listeners read it.
const MAX_PAYLOAD_BYTES = 7900;

interface BusMessage {
  u: number;
  e: BusEvent | { type: 'notification'; id: number };
}

/**
 * Delivery to the open notification streams of every process, by recipient: an event goes out as a NOTIFY on
 * the database, and each process hands what it hears to its own streams of that user (docs/SCALING.md).
 */
export class NotificationBus {
  private readonly listenersOf = new Map<number, Set<Listener>>();
  private listening: Promise<void> | undefined;
  private stopListening: (() => Promise<void>) | undefined;
  private closed = false;

  constructor(
    private readonly database: Database,
    private readonly log: () => Log,
  ) {}

  subscribe(userId: number, listener: Listener): () => void {
    let set = this.listenersOf.get(userId);
    if (!set) this.listenersOf.set(userId, (set = new Set()));
    set.add(listener);
    void this.ready().catch(() => {});
    return () => {
      set.delete(listener);
      if (set.size === 0 && this.listenersOf.get(userId) === set) this.listenersOf.delete(userId);
    };
  }

  /** Resolves once this process hears the bus (a stream opened after this gets every later event). */
  ready(): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.listening ??= this.database
      .listen(BUS_CHANNEL, (payload) => void this.heard(payload))
      .then((stop) => {
        this.stopListening = stop;
      })
      .catch((err: unknown) => {
        this.listening = undefined;
        this.log().warn({ err }, 'notification bus: cannot listen');
        throw err;
      });
    return this.listening;
  }

  /** How many streams of this user are listening here (tests, diagnostics). */
  listeners(userId: number): number {
    return this.listenersOf.get(userId)?.size ?? 0;
  }

  /** Sends `event` to every process; when the database cannot carry it, this process's streams still get it. */
  async emit(userId: number, event: BusEvent): Promise<void> {
    let payload = JSON.stringify({ u: userId, e: event } satisfies BusMessage);
    if (Buffer.byteLength(payload) > MAX_PAYLOAD_BYTES && event.type === 'notification') {
      payload = JSON.stringify({
        u: userId,
        e: { type: 'notification', id: event.notification.id },
      } satisfies BusMessage);
    }
    try {
      await this.database.notify(BUS_CHANNEL, payload);
    } catch (err) {
      this.log().warn({ err }, 'notification bus: notify failed, delivered in this process only');
      this.dispatch(userId, event);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.listening?.catch(() => {});
    await this.stopListening?.().catch(() => {});
  }

  private async heard(payload: string): Promise<void> {
    try {
      const { u, e } = JSON.parse(payload) as BusMessage;
      if (!this.listenersOf.has(u)) return;
      if (e.type === 'notification' && 'id' in e) {
        const view = await notificationView(this.database.db, e.id);
        if (view) this.dispatch(u, { type: 'notification', notification: presentNotification(view) });
        return;
      }
      this.dispatch(u, e);
    } catch (err) {
      this.log().warn({ err }, 'notification bus: unreadable message');
    }
  }

  private dispatch(userId: number, event: BusEvent): void {
    for (const listener of this.listenersOf.get(userId) ?? []) {
      try {
        listener(event);
      } catch (err) {
        this.log().warn({ err }, 'notification listener failed');
      }
    }
  }
}

/**
 * The one place notifications are made (docs/api-notifications.md). Writing happens in a tenant transaction —
 * the caller's, so a notification commits or rolls back with its event — and publishing (the in-process bus of
 * the streams, e-mail) only after that transaction committed: `publish(await tx-work())`. Event triggers are best
 * effort: a notification that cannot be written is logged, never the cause of the event's failure (a savepoint
 * keeps the caller's transaction usable).
 */
export class Notifier {
  readonly bus: NotificationBus;
  private readonly repo = new NotificationsRepository();
  private mailer: Mailer | undefined;
  private readonly pending = new Set<Promise<void>>();
  private readonly settings: SystemSettingsStore;

  constructor(
    private readonly database: Database,
    private log: Log = consoleLog,
    private readonly env: NodeJS.ProcessEnv = process.env,
  ) {
    this.settings = SystemSettingsStore.of(database.db);
    this.bus = new NotificationBus(database, () => this.log);
  }

  /** The application's logger replaces the console fallback (the first component with one provides it). */
  useLog(log: Log): void {
    if (this.log === consoleLog) this.log = log;
  }

  // -------------------------------------------------------------------------------------------------------------
  // Writing and publishing

  /**
   * Writes `notice` for every active member of the current tenant in `audience`. Best effort unless `strict`
   * (a manager's message, where the notification is the event itself).
   */
  async write(tx: TenantDb, audience: Audience, notice: Notice, opts: { strict?: boolean } = {}): Promise<Created[]> {
    return this.guarded(tx, opts.strict ?? false, (sp) => this.writeIn(sp, audience, notice));
  }

  /** Sends what was written to the open streams at once, and by e-mail (VIGIE_NOTIFY_EMAIL) in the background. */
  publish(created: readonly Created[]): void {
    for (const c of created) {
      const notification = presentNotification(c.notification);
      void this.bus.emit(c.notification.userId, { type: 'notification', notification });
    }
    const mode = notifyEmailMode(this.env);
    if (mode === 'off') return;
    const mails = created.filter((c) => mode === 'all' || c.notification.level === 'critical');
    if (mails.length === 0) return;
    const sending = this.sendMails(mails);
    this.pending.add(sending);
    void sending.finally(() => this.pending.delete(sending));
  }

  /** A recipient's read state changed: their streams send the new unread count. */
  changed(userId: number): void {
    void this.bus.emit(userId, { type: 'read' });
  }

  /** Resolves once the e-mails in flight are written (tests, shutdown). */
  async idle(): Promise<void> {
    while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
  }

  /** Waits for the e-mails in flight, stops hearing the bus and releases the mail transport. */
  async close(): Promise<void> {
    await this.idle();
    await this.bus.close();
    this.mailer?.close();
    this.mailer = undefined;
  }

  private async guarded(tx: TenantDb, strict: boolean, fn: (tx: TenantDb) => Promise<Created[]>) {
    if (strict) return fn(tx);
    try {
      // A savepoint: a failing insert rolls back alone and the caller's transaction goes on.
      return await tx.transaction((sp) => fn(sp as unknown as TenantDb));
    } catch (err) {
      this.log.error({ err }, 'notification write failed');
      return [];
    }
  }

  private async writeIn(tx: TenantDb, audience: Audience, notice: Notice): Promise<Created[]> {
    const recipients = await this.repo.recipients(tx, audience);
    return this.store(
      tx,
      recipients.map((recipient) => ({ recipient, notice })),
    );
  }

  private async store(tx: TenantDb, items: { recipient: Recipient; notice: Notice }[]): Promise<Created[]> {
    if (items.length === 0) return [];
    const rows = await this.repo.insert(
      tx,
      items.map(({ recipient, notice }) => ({
        userId: recipient.id,
        kind: notice.kind,
        level: notice.level,
        title: clip(notice.title, TITLE_MAX),
        body: clip(notice.body ?? '', BODY_MAX),
        link: notice.link ?? null,
        dedupeKey: notice.dedupeKey ?? null,
        createdBy: notice.createdBy ?? null,
      })),
    );
    if (rows.length === 0) return [];
    const tenantName = await this.repo.tenantName(tx);
    const byId = new Map(items.map((i) => [i.recipient.id, i.recipient]));
    return rows.map((row) => ({ notification: { ...row, tenantName }, recipient: byId.get(row.userId)! }));
  }

  private async sendMails(created: readonly Created[]): Promise<void> {
    // The system setting « notifications » switches e-mail delivery off for the whole platform (in-app stays).
    if (!(await this.settings.get()).notifications) return;
    this.mailer ??= createMailer(this.database.db, this.env);
    const mailer = this.mailer;
    for (const { notification: n, recipient } of created) {
      const lines = [
        `Bonjour ${recipient.firstName || recipient.username},`,
        '',
        n.title,
        ...(n.body ? ['', n.body] : []),
        ...(n.link ? ['', `Ouvrir dans Vigie : ${mailer.link(n.link)}`] : []),
        '',
        `Organisation : ${n.tenantName}`,
        '',
        'Vous recevez ce message parce que les notifications par e-mail sont activées sur ce serveur Vigie.',
      ];
      try {
        // A title is one line in a subject, whatever it holds.
        const subject = `[Vigie] ${n.title.replace(/\s+/g, ' ')}`;
        await mailer.send({ to: recipient.email, subject, text: lines.join('\n') });
      } catch (err) {
        this.log.error({ err, notification: n.id }, 'notification mail failed');
      }
    }
  }

  /** Runs `fn` in the tenant's own transaction and publishes what it wrote once committed. */
  private async inTenant(tenantId: string, fn: (tx: TenantDb) => Promise<Created[]>): Promise<Created[]> {
    const created = await withTenant(this.database.db, tenantId as TenantId, fn);
    this.publish(created);
    return created;
  }

  // -------------------------------------------------------------------------------------------------------------
  // Triggers (docs/api-notifications.md § kinds). Those taking a tx write in the caller's transaction; the caller
  // publishes the result after commit. The others run their own transactions and publish themselves.

  /** A task or corrective action created with, or changed to, an assignee (not the one who assigned it). */
  async assigned(
    tx: TenantDb,
    actor: NoticeActor,
    a: {
      kind: 'task_assigned' | 'action_assigned';
      assigneeId: number | null | undefined;
      projectId: number;
      title: string;
    },
  ): Promise<Created[]> {
    if (a.assigneeId === null || a.assigneeId === undefined || a.assigneeId === actor.id) return [];
    const task = a.kind === 'task_assigned';
    return this.guarded(tx, false, async (sp) => {
      const project = (await this.repo.projectName(sp, a.projectId)) ?? `n°${a.projectId}`;
      return this.writeIn(
        sp,
        { users: [a.assigneeId] },
        {
          kind: a.kind,
          level: 'info',
          title: `${task ? 'Tâche assignée' : 'Action corrective assignée'} : ${a.title}`,
          body: `${actor.name} vous a assigné ${task ? 'la tâche' : 'l’action corrective'} « ${a.title} » dans le projet « ${project} ».`,
          link: `/projects/${a.projectId}?tab=${task ? 'tasks' : 'remediation'}`,
          createdBy: actor.id,
        },
      );
    });
  }

  /** A user added to a project's team (not by themselves). */
  async memberAdded(
    tx: TenantDb,
    actor: NoticeActor,
    m: { projectId: number; projectName: string; userId: number; role: TeamRole },
  ): Promise<Created[]> {
    if (m.userId === actor.id) return [];
    return this.write(
      tx,
      { users: [m.userId] },
      {
        kind: 'project_member_added',
        level: 'info',
        title: `Ajout à l’équipe du projet « ${m.projectName} »`,
        body: `${actor.name} vous a ajouté à l’équipe du projet « ${m.projectName} » (rôle : ${TEAM_ROLE_LABELS[m.role]}).`,
        link: `/projects/${m.projectId}`,
      },
    );
  }

  /**
   * The critical findings a scan report import created (`found`): who launched the import and the tenant's
   * admins and managers hear of it once per import (the first new finding's id keys the event).
   */
  async criticalFindings(
    tx: TenantDb,
    scan: { id: number; name: string; launchedBy: number | null },
    found: readonly { id: number; title: string }[],
  ): Promise<Created[]> {
    return this.guarded(tx, false, async (sp) => {
      const first = found[0];
      if (!first) return [];
      const one = found.length === 1;
      return this.writeIn(
        sp,
        { users: [scan.launchedBy], roles: ['admin', 'manager'] },
        {
          kind: 'critical_vulnerability',
          level: 'critical',
          title: one
            ? `Vulnérabilité critique détectée : ${first.title}`
            : `${found.length} vulnérabilités critiques détectées`,
          body: one
            ? `L’import du scan « ${scan.name} » a créé une vulnérabilité critique : ${first.title}.`
            : `L’import du scan « ${scan.name} » a créé ${found.length} vulnérabilités critiques.`,
          link: one ? `/vulnerabilities/${first.id}` : `/vulnerabilities/list?severity=critical&scan=${scan.id}`,
          dedupeKey: `critical:scan:${scan.id}:${first.id}`,
        },
      );
    });
  }

  /**
   * CVEs the KEV import just marked known exploited: every tenant with an open finding on one of them tells its
   * admins and managers, once per CVE. Best effort per tenant; returns how many notifications were written.
   */
  async kevMatches(cveIds: readonly string[]): Promise<number> {
    if (cveIds.length === 0) return 0;
    let written = 0;
    for (const tenant of await this.activeTenants()) {
      try {
        const created = await this.inTenant(tenant, async (tx) => {
          const matches = await this.repo.openFindingsByCve(tx, cveIds);
          if (matches.length === 0) return [];
          const recipients = await this.repo.recipients(tx, { roles: ['admin', 'manager'] });
          return this.store(
            tx,
            matches.flatMap((m) =>
              recipients.map((recipient) => ({
                recipient,
                notice: {
                  kind: 'kev_match' as const,
                  level: 'critical' as const,
                  title: `${m.cveId} activement exploitée (catalogue KEV)`,
                  body:
                    `La CVE ${m.cveId} vient d’entrer au catalogue KEV de la CISA des vulnérabilités exploitées : ` +
                    `${m.n === 1 ? 'une vulnérabilité ouverte' : `${m.n} vulnérabilités ouvertes`} de l’organisation ${m.n === 1 ? 'est concernée' : 'sont concernées'}.`,
                  link: `/vulnerabilities/list?text=${encodeURIComponent(m.cveId)}`,
                  dedupeKey: `kev:${m.cveId}`,
                },
              })),
            ),
          );
        });
        written += created.length;
      } catch (err) {
        this.log.error({ err, tenant }, 'KEV notifications failed');
      }
    }
    return written;
  }

  /**
   * A background task run ended in FAILURE (no retry left). Who launched it hears of it (in the run's tenant, or
   * their default one); a run nobody launched goes to its tenant's admins, or for a platform run to the superusers
   * and staff, each in their default tenant. Never throws.
   */
  async taskFailed(run: {
    id: string;
    label: string;
    tenantId: string | null;
    requestedBy: number | null;
    attempts: number;
    error: string;
  }): Promise<void> {
    const notice: Notice = {
      kind: 'task_failed',
      level: 'critical',
      title: `Échec de la tâche « ${run.label} »`,
      body: `La tâche s’est terminée en échec après ${run.attempts} tentative${run.attempts > 1 ? 's' : ''} : ${clip(run.error, ERROR_MAX)}`,
      link: '/tasks',
      dedupeKey: `task_failed:${run.id}`,
    };
    try {
      let targets: { tenantId: string; audience: Audience }[];
      if (run.requestedBy !== null) {
        const tenantId = run.tenantId ?? (await this.homeTenantOf(run.requestedBy));
        targets = tenantId ? [{ tenantId, audience: { users: [run.requestedBy] } }] : [];
      } else if (run.tenantId !== null) {
        targets = [{ tenantId: run.tenantId, audience: { roles: ['admin'] } }];
      } else {
        targets = (await this.staffHomeTenants()).map((tenantId) => ({ tenantId, audience: { platformStaff: true } }));
      }
      for (const target of targets) {
        await this.inTenant(target.tenantId, (tx) => this.write(tx, target.audience, notice, { strict: true }));
      }
    } catch (err) {
      this.log.error({ err, taskId: run.id }, 'task failure notification failed');
    }
  }

  /**
   * The daily reminder: every assigned task or corrective action past its due date and not finished tells its
   * assignee, once per due date. Runs tenant by tenant; errors fail the run.
   */
  async overdue(today: string): Promise<{ tasks: number; actions: number; findings: number; sent: number }> {
    const totals = { tasks: 0, actions: 0, findings: 0, sent: 0 };
    for (const tenant of await this.activeTenants()) {
      const created = await this.inTenant(tenant, async (tx) => {
        const items = await this.repo.overdueAssignments(tx, today);
        for (const item of items) totals[item.type === 'task' ? 'tasks' : 'actions'] += 1;
        const findings = await this.repo.overdueFindings(tx, today);
        totals.findings += findings.length;
        if (items.length === 0 && findings.length === 0) return [];
        const recipients = new Map(
          (
            await this.repo.recipients(tx, {
              users: [...items.map((i) => i.assigneeId), ...findings.map((f) => f.assigneeId)],
            })
          ).map((r) => [r.id, r]),
        );
        const notices = [
          ...items.map((item) => ({ to: item.assigneeId, notice: overdueNotice(item) })),
          ...findings.map((finding) => ({ to: finding.assigneeId, notice: overdueFindingNotice(finding) })),
        ];
        return this.store(
          tx,
          notices.flatMap(({ to, notice }) => {
            const recipient = recipients.get(to);
            return recipient ? [{ recipient, notice }] : [];
          }),
        );
      });
      totals.sent += created.length;
    }
    return totals;
  }

  private async activeTenants(): Promise<string[]> {
    const rows = await this.database.db
      .select({ id: tenants.id })
      .from(tenants)
      .where(and(eq(tenants.status, 'active'), isNull(tenants.deletedAt)))
      .orderBy(asc(tenants.name));
    return rows.map((r) => r.id);
  }

  /** A user's default tenant when they belong to it, else their first membership. */
  private async homeTenantOf(userId: number): Promise<string | undefined> {
    const rows = await this.database.db
      .select({ tenantId: memberships.tenantId, defaultTenantId: users.defaultTenantId })
      .from(memberships)
      .innerJoin(users, eq(users.id, memberships.userId))
      .where(eq(memberships.userId, userId))
      .orderBy(asc(memberships.createdAt));
    return (rows.find((r) => r.tenantId === r.defaultTenantId) ?? rows[0])?.tenantId;
  }

  /** The default tenants of the active superusers and staff. */
  private async staffHomeTenants(): Promise<string[]> {
    const rows = await this.database.db
      .selectDistinct({ tenantId: users.defaultTenantId })
      .from(users)
      .where(
        and(
          eq(users.isActive, true),
          isNotNull(users.defaultTenantId),
          or(eq(users.isSuperuser, true), eq(users.isStaff, true)),
        ),
      );
    return rows.flatMap((r) => (r.tenantId ? [r.tenantId] : []));
  }
}

function overdueFindingNotice(finding: OverdueFinding): Notice {
  const name = finding.cveId ? `${finding.cveId} — ${finding.title}` : finding.title;
  return {
    kind: 'finding_overdue',
    level: 'warning',
    title: `Vulnérabilité en retard : ${name}`,
    body: `La vulnérabilité « ${name} » qui vous est assignée devait être corrigée le ${dayOf(finding.dueDate)}.`,
    link: `/vulnerabilities/${finding.id}`,
    dedupeKey: `overdue:finding:${finding.id}:${finding.dueDate}`,
  };
}

function overdueNotice(item: OverdueItem): Notice {
  const task = item.type === 'task';
  return {
    kind: task ? 'task_overdue' : 'action_overdue',
    level: 'warning',
    title: `Échéance dépassée : ${item.title}`,
    body: `${task ? 'La tâche' : 'L’action corrective'} « ${item.title} » du projet « ${item.projectName} » devait être terminée le ${dayOf(item.dueDate)}.`,
    link: `/projects/${item.projectId}?tab=${task ? 'tasks' : 'remediation'}`,
    dedupeKey: `overdue:${item.type}:${item.id}:${item.dueDate}`,
  };
}

/** One notifier per open database, shared by the routes, the job queue and the tasks of this process. */
const notifiers = new WeakMap<Database, Notifier>();

export function notifierOf(database: Database, log?: Log): Notifier {
  let notifier = notifiers.get(database);
  if (!notifier) notifiers.set(database, (notifier = new Notifier(database)));
  if (log) notifier.useLog(log);
  return notifier;
}
