/**
 * Projects and their team (docs/api-projects.md "Projects"): the operations of /api/projects/ that read or write
 * more than one row, each appending to the project's activity in the caller's transaction.
 */
import type { TenantDb } from '../../db/tenant-scope.ts';
import { ApiError, notFound } from '../../domain/errors.ts';
import { hasProjectAccess, projectAccess, type Actor } from '../../policies/index.ts';
import type { ActivityEntry, ProjectRecord } from '../../repositories/project-access.ts';
import {
  displayName,
  ProjectsRepository,
  type ProjectRow,
  type ProjectValues,
  type TeamMemberRow,
} from '../../repositories/projects.ts';
import { invalid } from '../../schemas/fields.ts';
import { PROJECT_MESSAGES as MESSAGES, type readProjectQuery } from '../../schemas/projects/projects.ts';
import type { TeamRole } from '../../domain/project-vocabulary.ts';
import type { Created, NoticeActor, Notifier } from '../notifier.ts';
import { ProjectAccessDenied, ProjectGate, type ProjectNeed } from './access.ts';
import { pageWindow } from '../../schemas/query.ts';

/** The caller's access to a listed project, from its team as the list loaded it. */
function accessIn(actor: Actor, row: ProjectRow) {
  const member = row.team.find((m) => m.userId === actor.userId);
  const isOwner = row.ownerId === actor.userId;
  const seat = member ? { role: member.role, isOwner } : isOwner ? { role: 'ADMIN' as const, isOwner } : null;
  return projectAccess(actor, seat);
}

/** A summary of what changed, for the project's activity. */
function changeSummary(before: ProjectRecord, after: ProjectRecord, ownerName: string | undefined): string {
  const details: string[] = [];
  if (before.status !== after.status) details.push(`statut : ${before.status} → ${after.status}`);
  if (ownerName !== undefined && before.ownerId !== after.ownerId) details.push(`propriétaire : ${ownerName}`);
  return `Projet « ${after.name} » modifié${details.length > 0 ? ` (${details.join(', ')})` : ''}`;
}

export class ProjectService {
  readonly repo = new ProjectsRepository();
  readonly gate = new ProjectGate();

  constructor(private readonly notifier: Notifier) {}

  private record(tx: TenantDb, actor: Actor, entry: Omit<ActivityEntry, 'userId'>) {
    return this.gate.repo.record(tx, { ...entry, userId: actor.userId });
  }

  /** A page of the projects the caller can read, each with the caller's access. */
  async page(tx: TenantDb, actor: Actor, { paging, filters, ordering }: ReturnType<typeof readProjectQuery>) {
    const { count, rows } = await this.repo.page(tx, {
      readable: this.gate.repo.readable(actor),
      filters,
      ordering,
      ...pageWindow(paging),
    });
    const granted = rows.flatMap((row) => {
      const access = accessIn(actor, row);
      return access === 'none' ? [] : [{ row, access }];
    });
    return { count, rows: granted };
  }

  /** A new project, its creator its owner. */
  async create(tx: TenantDb, actor: Actor, values: ProjectValues): Promise<ProjectRow> {
    const created = await this.repo.create(tx, { ...values, name: values.name! }, actor.userId);
    const id = created.id;
    const summary = `Projet « ${created.name} » créé`;
    await this.record(tx, actor, { projectId: id, action: 'created', objectType: 'project', objectId: id, summary });
    return (await this.repo.detail(tx, id))!;
  }

  /** Changes a project; changing the owner is for those who manage it, the other fields for those who edit it. */
  async update(
    tx: TenantDb,
    actor: Actor,
    project: ProjectRecord,
    access: ProjectNeed,
    values: ProjectValues,
  ): Promise<ProjectRow> {
    const id = project.id;
    if (values.ownerId === undefined || values.ownerId === project.ownerId) delete values.ownerId;
    else if (!hasProjectAccess(access, 'manage')) throw new ProjectAccessDenied(id, 'manage');
    let ownerName: string | undefined;
    if (values.ownerId !== undefined && values.ownerId !== null) {
      const owner = await this.repo.tenantMember(tx, values.ownerId);
      if (!owner) throw invalid('owner_id', MESSAGES.ownerUnknown);
      ownerName = owner.name;
    } else if (values.ownerId === null) ownerName = 'aucun';
    const updated = (await this.repo.update(tx, id, values))!;
    const summary = changeSummary(project, updated, ownerName);
    await this.record(tx, actor, { projectId: id, action: 'updated', objectType: 'project', objectId: id, summary });
    return (await this.repo.detail(tx, id))!;
  }

  /**
   * Adds a member to the team, or changes the role of one already on it; a new member is told (the notices, to
   * publish once committed).
   */
  async putMember(
    tx: TenantDb,
    actor: NoticeActor,
    project: ProjectRecord,
    { userId, role }: { userId: number; role: TeamRole },
  ): Promise<{ member: TeamMemberRow; added: boolean; notices: Created[] }> {
    const id = project.id;
    const person = await this.repo.tenantMember(tx, userId);
    if (!person) throw invalid('user_id', MESSAGES.userUnknown);
    if (person.id === project.ownerId && role !== 'ADMIN') throw invalid('role', MESSAGES.ownerStaysAdmin);
    const before = await this.repo.memberRole(tx, id, userId);
    await this.repo.putMember(tx, id, userId, role);
    const added = before === undefined;
    await this.gate.repo.record(tx, {
      projectId: id,
      userId: actor.id,
      action: added ? 'member_added' : 'member_updated',
      objectType: 'team_member',
      objectId: userId,
      summary: added ? `Membre ${person.name} ajouté (${role})` : `Rôle de ${person.name} : ${before} → ${role}`,
    });
    const team = await this.repo.team(tx, project);
    const notices = added
      ? await this.notifier.memberAdded(tx, actor, { projectId: id, projectName: project.name, userId, role })
      : [];
    return { member: team.find((m) => m.userId === userId)!, added, notices };
  }

  /** Takes a member off the team (404 when not on it); answers the name the activity gave. */
  async removeMember(tx: TenantDb, actor: Actor, project: ProjectRecord, userId: number): Promise<string> {
    const id = project.id;
    const member = (await this.repo.team(tx, project)).find((m) => m.userId === userId);
    if (!(await this.repo.removeMember(tx, id, userId))) throw new ApiError(404, 'not_found', MESSAGES.notOnTeam);
    const name = member ? displayName(member) : `n°${userId}`;
    const summary = `Membre ${name} retiré`;
    await this.record(tx, actor, {
      projectId: id,
      action: 'member_removed',
      objectType: 'team_member',
      objectId: userId,
      summary,
    });
    return name;
  }

  /** Deletes a project; its activity goes with it. */
  async remove(tx: TenantDb, id: number): Promise<void> {
    if (!(await this.repo.remove(tx, id))) throw notFound();
  }
}
