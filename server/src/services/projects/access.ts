/**
 * What every project operation goes through: the gate (a project out of reach is 404, one the caller may not
 * change is 403), the loader of objects that belong to a project, and the journal of a write (the project's
 * activity lines and the notifications it made, audited and published by the route once committed).
 */
import type { TenantDb } from '../../db/tenant-scope.ts';
import { ApiError, notFound } from '../../domain/errors.ts';
import { charCount, clipText } from '../../../../contract/text.ts';
import { FORBIDDEN_MESSAGE, hasProjectAccess, type Actor, type ProjectAccess } from '../../policies/index.ts';
import { ProjectAccessRepository, type ActivityEntry, type ProjectRecord } from '../../repositories/project-access.ts';
import type { Created, Notifier } from '../notifier.ts';

export type ProjectNeed = Exclude<ProjectAccess, 'none'>;

/** A title quoted in an activity summary, kept short. */
export const quoted = (text: string) => `« ${charCount(text) > 120 ? `${clipText(text, 119)}…` : text} »`;

/**
 * A refusal on a project the caller can read. Thrown inside the tenant transaction; the projects area audits it
 * once the transaction is over (PGlite has a single connection: writing the audit row from inside would wait on
 * the very transaction that waits for it).
 */
export class ProjectAccessDenied extends ApiError {
  constructor(
    readonly projectId: number,
    readonly need: ProjectNeed,
  ) {
    super(403, 'permission_denied', FORBIDDEN_MESSAGE);
  }
}

/**
 * The gate every project operation goes through: a project of another tenant, or one the caller cannot read, is
 * 404 (its existence is not revealed); a readable one the caller may not change is 403 (ProjectAccessDenied).
 */
export class ProjectGate {
  readonly repo = new ProjectAccessRepository();

  async require(
    tx: TenantDb,
    actor: Actor,
    projectId: number,
    need: ProjectNeed,
  ): Promise<{ project: ProjectRecord; access: ProjectNeed }> {
    const found = await this.repo.load(tx, projectId, actor);
    if (!found || found.access === 'none') throw notFound();
    if (!hasProjectAccess(found.access, need)) throw new ProjectAccessDenied(projectId, need);
    return { project: found.project, access: found.access };
  }

  /** The gate for a project named in a body: an unknown or invisible one is `invalid` (a field error), not a 404. */
  async requireNamed(tx: TenantDb, actor: Actor, projectId: number, invalid: () => ApiError) {
    try {
      return await this.require(tx, actor, projectId, 'edit');
    } catch (err) {
      if (err instanceof ApiError && err.statusCode === 404) throw invalid();
      throw err;
    }
  }

  /**
   * The loader of the objects that belong to a project: the one `find` answers, then its project through the
   * gate — 404 when either is out of reach, 403 when the caller may not `need` it.
   */
  loader<R extends { projectId: number }>(find: (tx: TenantDb, id: number) => Promise<R | undefined>) {
    return async (tx: TenantDb, actor: Actor, id: number, need: ProjectNeed): Promise<R> => {
      const row = await find(tx, id);
      if (!row) throw notFound();
      await this.require(tx, actor, row.projectId, need);
      return row;
    };
  }
}

/**
 * One write's journal: the activity lines it appended to projects, and the notifications it wrote, in its
 * transaction; the route audits the lines and publishes the notifications once that transaction committed.
 */
export class ProjectJournal {
  readonly entries: ActivityEntry[] = [];
  readonly notices: Created[] = [];

  constructor(
    private readonly gate: ProjectGate,
    private readonly notifier: Notifier,
    readonly actor: Actor,
    /** The actor's display name, for the notifications' wording. */
    readonly actorName: string,
  ) {}

  /** Appends a line to the project's activity, as written by the actor. */
  async record(tx: TenantDb, entry: Omit<ActivityEntry, 'userId'>): Promise<void> {
    const line = { ...entry, userId: this.actor.userId };
    await this.gate.repo.record(tx, line);
    this.entries.push(line);
  }

  /** Tells an assignee of a task or a corrective action. */
  async assigned(
    tx: TenantDb,
    kind: 'task_assigned' | 'action_assigned',
    row: { assigneeId?: number | null; projectId: number; title: string },
  ): Promise<void> {
    const actor = { id: this.actor.userId, name: this.actorName };
    const { assigneeId = null, projectId, title } = row;
    this.notices.push(...(await this.notifier.assigned(tx, actor, { kind, assigneeId, projectId, title })));
  }
}
