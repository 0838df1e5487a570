import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { PROJECT_STATUS_LABELS } from '../../../../../contract/projects.ts';
import {
  PROJECT_PRIORITIES,
  PROJECT_STATUSES,
  TEAM_ROLES,
  type ProjectPriority,
  type ProjectStatus,
  type TeamRole,
} from '../../../db/schema.ts';
import type { TenantDb } from '../../../db/tenant-scope.ts';
import { ApiError, FieldErrors, notFound } from '../../../domain/errors.ts';
import { signedIn } from '../../../plugins/app/authorization.ts';
import {
  canCreateProject,
  hasProjectAccess,
  projectAccess,
  type Actor,
  type ProjectAccess,
} from '../../../policies/index.ts';
import {
  presentProject,
  presentProjectDashboard,
  presentTeamMember,
  ProjectDashboardSchema,
  ProjectSchema,
  TeamMemberSchema,
} from '../../../presenters/project.ts';
import type { ProjectRecord } from '../../../repositories/project-access.ts';
import {
  PROJECT_ORDERINGS,
  ProjectsRepository,
  type ProjectOrderField,
  type ProjectRow,
  type ProjectValues,
} from '../../../repositories/projects.ts';
import {
  IdParams,
  ListQuery,
  NoContent,
  OrNull as orNull,
  Paged,
  replies,
  type Static,
  Type,
  WriteBody as writeBody,
} from '../../../schemas/common.ts';
import { displayName, notifierOf } from '../../../services/notifier.ts';
import { todayUtc } from '../../../services/risk-scoring.ts';
import { projectGate, ProjectAccessDenied, type ProjectNeed } from './access.ts';
import { accessGuards } from '../shared.ts';
import { pagedResponse } from '../../../presenters/paged.ts';
import { parseId, parseOrdering, parsePaging, parseText } from '../../../schemas/query.ts';

const LIST_PATH = '/api/projects/';
const ITEM_PATH = `${LIST_PATH}:id/`;
const MAX_PAGE_SIZE = 100;
const MAX_NAME = 200;
const MAX_DESCRIPTION = 20_000;
const MAX_USER_ID = 2_147_483_647;

/** docs/api-projects.md: the status changes a project may go through (PLANNED and PLANNING freely between them). */
const TRANSITIONS: Record<ProjectStatus, readonly ProjectStatus[]> = {
  PLANNED: ['PLANNING', 'IN_PROGRESS', 'ON_HOLD', 'CANCELLED'],
  PLANNING: ['PLANNED', 'IN_PROGRESS', 'ON_HOLD', 'CANCELLED'],
  IN_PROGRESS: ['ON_HOLD', 'COMPLETED', 'CANCELLED'],
  ON_HOLD: ['IN_PROGRESS', 'CANCELLED'],
  COMPLETED: ['IN_PROGRESS'],
  CANCELLED: ['PLANNED'],
};

const MESSAGES = {
  nameRequired: 'Le nom du projet est requis.',
  nameTooLong: `Le nom ne doit pas dépasser ${MAX_NAME} caractères.`,
  descriptionTooLong: `La description ne doit pas dépasser ${MAX_DESCRIPTION} caractères.`,
  status: `Statut invalide. Valeurs possibles : ${PROJECT_STATUSES.join(', ')}.`,
  priority: `Priorité invalide. Valeurs possibles : ${PROJECT_PRIORITIES.join(', ')}.`,
  transition: (from: ProjectStatus, to: ProjectStatus) =>
    `Changement de statut impossible : « ${PROJECT_STATUS_LABELS[from]} » (${from}) → « ${PROJECT_STATUS_LABELS[to]} » (${to}).`,
  date: 'Date invalide : le format attendu est AAAA-MM-JJ.',
  deadlineBeforeStart: 'L’échéance ne peut pas précéder la date de début.',
  ownerOnCreate: 'Le créateur du projet en devient le propriétaire ; le propriétaire se change ensuite.',
  ownerUnknown: 'Cet utilisateur n’est pas membre de l’organisation.',
  userRequired: 'L’utilisateur est requis.',
  userInvalid: 'Identifiant d’utilisateur invalide : un entier positif est attendu.',
  userUnknown: 'Cet utilisateur n’est pas membre de l’organisation.',
  role: `Rôle invalide. Valeurs possibles : ${TEAM_ROLES.join(', ')}.`,
  ownerStaysAdmin: 'Le propriétaire du projet reste administrateur (ADMIN) de l’équipe.',
  ownerNotRemovable: 'Le propriétaire du projet ne peut pas être retiré de l’équipe.',
  notOnTeam: 'Cet utilisateur ne fait pas partie de l’équipe du projet.',
} as const;

const ListProjectsQuery = ListQuery({
  status: `Statuts, séparés par des virgules : ${PROJECT_STATUSES.join(', ')}`,
  priority: `Priorités, séparées par des virgules : ${PROJECT_PRIORITIES.join(', ')}`,
  text: 'Recherche dans le nom et la description',
  ordering: `Tri : ${PROJECT_ORDERINGS.join(', ')} (préfixe - pour décroissant)`,
});

const day = Type.Optional(orNull<string>('string', { maxLength: 64, errorMessage: MESSAGES.date }));
/** A Project's writable fields: types and sizes by the schema; trimming, case, dates and messages by `validateProject`. */
const projectFields = {
  name: Type.Optional(Type.String({ maxLength: 4096 })),
  description: Type.Optional(orNull<string>('string', { maxLength: 100_000 })),
  status: Type.Optional(Type.String({ maxLength: 64, errorMessage: MESSAGES.status })),
  priority: Type.Optional(Type.String({ maxLength: 64, errorMessage: MESSAGES.priority })),
  start_date: day,
  deadline: day,
  is_active: Type.Optional(Type.Boolean()),
  owner_id: Type.Optional(orNull<number>('integer')),
};
const ProjectBody = writeBody(ProjectSchema, projectFields);
type ProjectBody = Static<typeof ProjectBody>;

/** `{user_id, role?}`: the values are checked in code, so a missing user or a wrong type gets a French message. */
const MemberBody = Type.Unsafe<{ user_id?: unknown; role?: unknown } | null>({
  type: ['object', 'null'],
  properties: {
    user_id: { description: 'Identifiant de l’utilisateur (entier, ou texte de chiffres)' },
    role: { description: `Rôle dans l’équipe : ${TEAM_ROLES.join(', ')} (MEMBER par défaut)` },
  },
});

const isStatus = (v: string): v is ProjectStatus => (PROJECT_STATUSES as readonly string[]).includes(v);
const isPriority = (v: string): v is ProjectPriority => (PROJECT_PRIORITIES as readonly string[]).includes(v);
const isTeamRole = (v: string): v is TeamRole => (TEAM_ROLES as readonly string[]).includes(v);

/** YYYY-MM-DD naming a real calendar day; '' and null clear the date. */
function parseDate(errors: FieldErrors, field: string, raw: string | null | undefined): string | null | undefined {
  if (raw === undefined) return undefined;
  const value = raw?.trim() ?? '';
  if (value === '') return null;
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  const day = m ? new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]))) : undefined;
  if (!day || Number.isNaN(day.getTime()) || day.toISOString().slice(0, 10) !== value) {
    errors.add(field, MESSAGES.date);
    return undefined;
  }
  return value;
}

/** One comma list of allowed values (case-insensitive), for the status and priority filters. */
function parseList<T extends string>(
  errors: FieldErrors,
  raw: string | undefined,
  field: string,
  ok: (v: string) => v is T,
  message: string,
): T[] | undefined {
  const values = (raw ?? '')
    .split(',')
    .map((v) => v.trim().toUpperCase())
    .filter((v) => v !== '');
  if (values.length === 0) return undefined;
  if (!values.every(ok)) {
    errors.add(field, message);
    return undefined;
  }
  return values;
}

/**
 * Field checks with French messages. `current` is the project being changed (undefined on creation); PUT requires
 * the name, and like PATCH leaves absent fields as they are.
 */
function validateProject(body: ProjectBody, current: ProjectRecord | undefined, requireName: boolean): ProjectValues {
  const errors = new FieldErrors();
  const out: ProjectValues = {};
  const name = body.name?.trim();
  if (name === undefined || name === '') {
    if (requireName || name === '') errors.add('name', MESSAGES.nameRequired);
  } else if (name.length > MAX_NAME) errors.add('name', MESSAGES.nameTooLong);
  else out.name = name;
  if (body.description !== undefined) {
    const description = body.description?.trim() ?? '';
    if (description.length > MAX_DESCRIPTION) errors.add('description', MESSAGES.descriptionTooLong);
    else out.description = description;
  }
  if (body.status !== undefined) {
    const status = body.status.trim().toUpperCase();
    if (!isStatus(status)) errors.add('status', MESSAGES.status);
    else if (current && status !== current.status && !TRANSITIONS[current.status].includes(status)) {
      errors.add('status', MESSAGES.transition(current.status, status));
    } else out.status = status;
  }
  if (body.priority !== undefined) {
    const priority = body.priority.trim().toUpperCase();
    if (isPriority(priority)) out.priority = priority;
    else errors.add('priority', MESSAGES.priority);
  }
  const startDate = parseDate(errors, 'start_date', body.start_date);
  if (startDate !== undefined) out.startDate = startDate;
  const deadline = parseDate(errors, 'deadline', body.deadline);
  if (deadline !== undefined) out.deadline = deadline;
  // The rule holds on the result: a PATCH of one date is compared with the other as stored.
  const start = startDate !== undefined ? startDate : (current?.startDate ?? null);
  const end = deadline !== undefined ? deadline : (current?.deadline ?? null);
  const datesParsed = !(body.start_date && startDate === undefined) && !(body.deadline && deadline === undefined);
  if (datesParsed && start !== null && end !== null && end < start) {
    errors.add('deadline', MESSAGES.deadlineBeforeStart);
  }
  if (body.is_active !== undefined) out.isActive = body.is_active;
  if (body.owner_id !== undefined) {
    if (!current) errors.add('owner_id', MESSAGES.ownerOnCreate);
    else out.ownerId = body.owner_id;
  }
  errors.throwIfAny();
  return out;
}

/** A positive integer user id, sent as a JSON number or a string of digits. */
function parseUserId(errors: FieldErrors, raw: unknown): number | undefined {
  if (raw === undefined || raw === null || raw === '') {
    errors.add('user_id', MESSAGES.userRequired);
    return undefined;
  }
  const id =
    typeof raw === 'number'
      ? Number.isSafeInteger(raw) && raw > 0
        ? raw
        : undefined
      : typeof raw === 'string'
        ? parseId(raw.trim())
        : undefined;
  if (id === undefined) errors.add('user_id', MESSAGES.userInvalid);
  // Account ids are 32-bit: a larger one names nobody (and must not reach the database as an integer).
  else if (id > MAX_USER_ID) errors.add('user_id', MESSAGES.userUnknown);
  return id;
}

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

type Granted = Exclude<ProjectAccess, 'none'>;

/** /api/projects/ (docs/api-projects.md "Projects"): projects, their team and their dashboard. */
const projectRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const repo = new ProjectsRepository();
  const gate = projectGate();
  const guard = accessGuards(app);
  const notifier = notifierOf(app.database);
  const tags = ['Projets'];
  // Creating a project: a contributor of the tenant (canWrite), who may create projects.
  const canCreate = {
    preValidation: [
      ...guard.write.preValidation,
      async (request: FastifyRequest) => app.authorize(request, canCreateProject(signedIn(request).actor)),
    ],
  };
  const one = replies.signedIn({ 200: ProjectSchema }, 404);

  const audit = (request: FastifyRequest, description: string, extra: Record<string, unknown>) =>
    app.audit.record(request, { eventType: 'data_change', description, extra });

  /** Runs fn in the tenant transaction once the gate let the caller through (404 / 403 otherwise). */
  const withProject = <T>(
    request: FastifyRequest,
    projectId: number,
    need: ProjectNeed,
    fn: (tx: TenantDb, project: ProjectRecord, granted: Granted) => Promise<T>,
  ): Promise<T> =>
    request.tenantDb(async (tx) => {
      const { project, access } = await gate.require(request, tx, projectId, need);
      // The gate lets through only 'read' and above.
      return fn(tx, project, access as Granted);
    });

  app.get(
    LIST_PATH,
    {
      ...guard.read,
      schema: { tags, querystring: ListProjectsQuery, response: replies.signedIn({ 200: Paged(ProjectSchema) }, 400) },
    },
    async (request) => {
      const errors = new FieldErrors();
      const q = request.query;
      const paging = parsePaging(errors, q, MAX_PAGE_SIZE);
      const statuses = parseList(errors, q.status, 'status', isStatus, MESSAGES.status);
      const priorities = parseList(errors, q.priority, 'priority', isPriority, MESSAGES.priority);
      const text = parseText(errors, q, 'text');
      const ordering = parseOrdering<ProjectOrderField>(errors, q.ordering, PROJECT_ORDERINGS, {
        field: 'created_at',
        desc: true,
      });
      errors.throwIfAny();
      const actor = signedIn(request).actor;
      const { count, rows } = await request.tenantDb((tx) =>
        repo.page(tx, {
          readable: gate.repo.readable(actor),
          filters: { statuses, priorities, text },
          ordering,
          limit: paging.pageSize,
          offset: (paging.page - 1) * paging.pageSize,
        }),
      );
      const results = rows.flatMap((row) => {
        const granted = accessIn(actor, row);
        return granted === 'none' ? [] : [presentProject(row, granted)];
      });
      return pagedResponse(LIST_PATH, q, Object.keys(ListProjectsQuery.properties), paging, count, results);
    },
  );

  app.post(
    LIST_PATH,
    { ...canCreate, schema: { tags, body: ProjectBody, response: replies.signedIn({ 201: ProjectSchema }, 400) } },
    async (request, reply) => {
      const actor = signedIn(request).actor;
      const values = validateProject(request.body, undefined, true);
      const row = await request.tenantDb(async (tx) => {
        const created = await repo.create(tx, { ...values, name: values.name! }, actor.userId);
        await gate.repo.record(tx, {
          projectId: created.id,
          userId: actor.userId,
          action: 'created',
          objectType: 'project',
          objectId: created.id,
          summary: `Projet « ${created.name} » créé`,
        });
        return (await repo.detail(tx, created.id))!;
      });
      await audit(request, `Projet « ${row.name} » créé`, { project_id: row.id });
      return reply.code(201).send(presentProject(row, 'manage'));
    },
  );

  app.get(ITEM_PATH, { ...guard.read, schema: { tags, params: IdParams, response: one } }, async (request) => {
    const id = Number(request.params.id);
    const { row, granted } = await withProject(request, id, 'read', async (tx, _project, granted) => ({
      row: (await repo.detail(tx, id))!,
      granted,
    }));
    return presentProject(row, granted);
  });

  for (const method of ['put', 'patch'] as const) {
    app[method](
      ITEM_PATH,
      // The gate, not the tenant-wide write guard, answers: an invisible project is 404 even to a tenant viewer.
      {
        ...guard.read,
        schema: {
          tags,
          params: IdParams,
          body: ProjectBody,
          response: replies.signedIn({ 200: ProjectSchema }, 400, 404),
        },
      },
      async (request) => {
        const id = Number(request.params.id);
        const actor = signedIn(request).actor;
        const { row, granted } = await withProject(request, id, 'edit', async (tx, project, granted) => {
          const values = validateProject(request.body, project, method === 'put');
          // Changing the owner is for those who manage the project; the other fields for those who edit it.
          if (values.ownerId === undefined || values.ownerId === project.ownerId) delete values.ownerId;
          else if (!hasProjectAccess(granted, 'manage')) throw new ProjectAccessDenied(id, 'manage');
          let ownerName: string | undefined;
          if (values.ownerId !== undefined && values.ownerId !== null) {
            const owner = await repo.tenantMember(tx, values.ownerId);
            if (!owner) {
              throw new ApiError(400, 'invalid', MESSAGES.ownerUnknown, {
                fields: { owner_id: [MESSAGES.ownerUnknown] },
              });
            }
            ownerName = owner.name;
          } else if (values.ownerId === null) ownerName = 'aucun';
          const updated = (await repo.update(tx, id, values))!;
          await gate.repo.record(tx, {
            projectId: id,
            userId: actor.userId,
            action: 'updated',
            objectType: 'project',
            objectId: id,
            summary: changeSummary(project, updated, ownerName),
          });
          return { row: (await repo.detail(tx, id))!, granted };
        });
        await audit(request, `Projet « ${row.name} » modifié`, {
          project_id: id,
          fields: Object.keys(request.body).filter((k) => k in projectFields),
        });
        return presentProject(row, granted);
      },
    );
  }

  app.delete(
    ITEM_PATH,
    { ...guard.read, schema: { tags, params: IdParams, response: replies.signedIn({ 204: NoContent }, 404) } },
    async (request, reply) => {
      const id = Number(request.params.id);
      // The project's activity goes with it, so the audit trail is the record of the deletion.
      const project = await withProject(request, id, 'manage', async (tx, project) => {
        if (!(await repo.remove(tx, id))) throw notFound();
        return project;
      });
      await audit(request, `Projet « ${project.name} » supprimé`, { project_id: id });
      return reply.code(204).send();
    },
  );

  app.get(
    `${ITEM_PATH}dashboard/`,
    {
      ...guard.read,
      schema: { tags, params: IdParams, response: replies.signedIn({ 200: ProjectDashboardSchema }, 404) },
    },
    async (request) => {
      const id = Number(request.params.id);
      return withProject(request, id, 'read', async (tx) => {
        const row = (await repo.detail(tx, id))!;
        return presentProjectDashboard(row, await repo.dashboard(tx, id, todayUtc()));
      });
    },
  );

  app.get(
    `${ITEM_PATH}team-members/`,
    {
      ...guard.read,
      schema: { tags, params: IdParams, response: replies.signedIn({ 200: Type.Array(TeamMemberSchema) }, 404) },
    },
    async (request) => {
      const team = await withProject(request, Number(request.params.id), 'read', (tx, project) =>
        repo.team(tx, project),
      );
      return team.map(presentTeamMember);
    },
  );

  app.post(
    `${ITEM_PATH}add_team_member/`,
    {
      ...guard.read,
      schema: {
        tags,
        params: IdParams,
        body: MemberBody,
        response: replies.signedIn({ 200: TeamMemberSchema, 201: TeamMemberSchema }, 400, 404),
      },
    },
    async (request, reply) => {
      const id = Number(request.params.id);
      const { actor, user } = signedIn(request);
      const body = request.body ?? {};
      const { member, added, notices } = await withProject(request, id, 'manage', async (tx, project) => {
        const errors = new FieldErrors();
        const userId = parseUserId(errors, body.user_id);
        let role: TeamRole = 'MEMBER';
        if (body.role !== undefined && body.role !== null) {
          const raw = typeof body.role === 'string' ? body.role.trim().toUpperCase() : '';
          if (isTeamRole(raw)) role = raw;
          else errors.add('role', MESSAGES.role);
        }
        errors.throwIfAny();
        const person = await repo.tenantMember(tx, userId!);
        if (!person) errors.add('user_id', MESSAGES.userUnknown);
        else if (person.id === project.ownerId && role !== 'ADMIN') errors.add('role', MESSAGES.ownerStaysAdmin);
        errors.throwIfAny();
        const before = await repo.memberRole(tx, id, userId!);
        await repo.putMember(tx, id, userId!, role);
        await gate.repo.record(tx, {
          projectId: id,
          userId: actor.userId,
          action: before === undefined ? 'member_added' : 'member_updated',
          objectType: 'team_member',
          objectId: userId!,
          summary:
            before === undefined
              ? `Membre ${person!.name} ajouté (${role})`
              : `Rôle de ${person!.name} : ${before} → ${role}`,
        });
        const team = await repo.team(tx, project);
        const notices =
          before === undefined
            ? await notifier.memberAdded(
                tx,
                { id: actor.userId, name: displayName(user) },
                { projectId: id, projectName: project.name, userId: userId!, role },
              )
            : [];
        return { member: team.find((m) => m.userId === userId)!, added: before === undefined, notices };
      });
      notifier.publish(notices);
      const shown = presentTeamMember(member);
      await audit(
        request,
        added
          ? `Membre ${shown.name} ajouté à l’équipe d’un projet`
          : `Rôle de ${shown.name} changé dans l’équipe d’un projet`,
        { project_id: id, user_id: shown.id, role: shown.role },
      );
      return reply.code(added ? 201 : 200).send(shown);
    },
  );

  app.post(
    `${ITEM_PATH}remove_team_member/`,
    {
      ...guard.read,
      schema: {
        tags,
        params: IdParams,
        body: MemberBody,
        response: replies.signedIn({ 204: NoContent }, 400, 404),
      },
    },
    async (request, reply) => {
      const id = Number(request.params.id);
      const actor = signedIn(request).actor;
      const body = request.body ?? {};
      const removed = await withProject(request, id, 'manage', async (tx, project) => {
        const errors = new FieldErrors();
        const userId = parseUserId(errors, body.user_id);
        if (userId !== undefined && userId === project.ownerId) errors.add('user_id', MESSAGES.ownerNotRemovable);
        errors.throwIfAny();
        const member = (await repo.team(tx, project)).find((m) => m.userId === userId);
        if (!(await repo.removeMember(tx, id, userId!))) throw new ApiError(404, 'not_found', MESSAGES.notOnTeam);
        const name = member ? presentTeamMember(member).name : `n°${userId}`;
        await gate.repo.record(tx, {
          projectId: id,
          userId: actor.userId,
          action: 'member_removed',
          objectType: 'team_member',
          objectId: userId!,
          summary: `Membre ${name} retiré`,
        });
        return { userId: userId!, name };
      });
      await audit(request, `Membre ${removed.name} retiré de l’équipe d’un projet`, {
        project_id: id,
        user_id: removed.userId,
      });
      return reply.code(204).send();
    },
  );
};

export default projectRoutes;
