import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import type { TenantDb } from '../../../db/tenant-scope.ts';
import { todayUtc } from '../../../domain/risk-scoring.ts';
import { currentTenant, signedIn } from '../../../plugins/app/authorization.ts';
import { canCreateProject } from '../../../policies/index.ts';
import { pagedResponse } from '../../../presenters/paged.ts';
import {
  presentProject,
  presentProjectDashboard,
  presentTeamMember,
  ProjectDashboardSchema,
  ProjectSchema,
  TeamMemberSchema,
} from '../../../presenters/project.ts';
import type { ProjectRecord } from '../../../repositories/project-access.ts';
import { IdParams, NoContent, Paged, replies, Type, type TSchema } from '../../../schemas/common.ts';
import {
  ListProjectsQuery,
  MemberBody,
  ProjectBody,
  projectFields,
  readMember,
  readProjectQuery,
  readRemovedMember,
  validateProject,
} from '../../../schemas/projects/projects.ts';
import { displayName, notifierOf } from '../../../services/notifier.ts';
import type { ProjectNeed } from '../../../services/projects/access.ts';
import { ProjectService } from '../../../services/projects/projects.ts';
import { accessGuards } from '../shared.ts';

const LIST_PATH = '/api/projects/';
const ITEM_PATH = `${LIST_PATH}:id/`;

/** /api/projects/ (docs/api-projects.md "Projects"): projects, their team and their dashboard. */
const projectRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const notifier = notifierOf(app.database);
  const projects = new ProjectService(notifier);
  const guard = accessGuards(app);
  const tags = ['Projets'];
  // Creating a project: a contributor of the tenant (canWrite), who may create projects.
  const canCreate = {
    preValidation: [
      ...guard.write.preValidation,
      async (request: FastifyRequest) => app.authorize(request, canCreateProject(signedIn(request).actor)),
    ],
  };
  // The gate, not the tenant-wide write guard, answers a project's routes: an invisible project is 404 even to a
  // tenant viewer.
  const item = (response: Record<number, TSchema>, ...errors: number[]) => ({
    ...guard.read,
    schema: { tags, params: IdParams, response: replies.signedIn(response, 404, ...errors) },
  });

  const audit = (request: FastifyRequest, description: string, extra: Record<string, unknown>) =>
    app.audit.record(request, { eventType: 'data_change', description, extra });

  /** Runs fn in the tenant transaction once the gate let the caller through (404 / 403 otherwise). */
  const withProject = <T>(
    request: FastifyRequest,
    need: ProjectNeed,
    fn: (tx: TenantDb, project: ProjectRecord, access: ProjectNeed) => Promise<T>,
  ): Promise<T> =>
    request.tenantDb(async (tx) => {
      const id = Number((request.params as { id: string }).id);
      const { project, access } = await projects.gate.require(tx, signedIn(request).actor, id, need);
      return fn(tx, project, access);
    });

  app.get(
    LIST_PATH,
    {
      ...guard.read,
      schema: { tags, querystring: ListProjectsQuery, response: replies.signedIn({ 200: Paged(ProjectSchema) }, 400) },
    },
    async (request, reply) => {
      const query = readProjectQuery(request.query);
      const { actor } = signedIn(request);
      // Kept under the tenant's data version (every table the page reads is written down, its people's names too:
      // migrations 0019 and 0022), per reader (what one may read depends on who they are), 30 s at most (members' last
      // sign-in).
      const key = `project-list|${currentTenant(request)}|${JSON.stringify(actor)}|${JSON.stringify(request.query)}`;
      return reply.cachedAnswer(
        key,
        false,
        (tx) => projects.page(tx, actor, query),
        'people-lists',
        ({ count, rows }) =>
          pagedResponse(
            LIST_PATH,
            request.query,
            ListProjectsQuery,
            query.paging,
            count,
            rows.map(({ row, access }) => presentProject(row, access)),
          ),
      );
    },
  );

  app.post(
    LIST_PATH,
    { ...canCreate, schema: { tags, body: ProjectBody, response: replies.signedIn({ 201: ProjectSchema }, 400) } },
    async (request, reply) => {
      const values = validateProject(request.body, undefined, true);
      const row = await request.tenantDb((tx) => projects.create(tx, signedIn(request).actor, values));
      await audit(request, `Projet « ${row.name} » créé`, { project_id: row.id });
      return reply.code(201).send(presentProject(row, 'manage'));
    },
  );

  app.get(ITEM_PATH, item({ 200: ProjectSchema }), async (request) => {
    const { row, access } = await withProject(request, 'read', async (tx, project, access) => ({
      row: (await projects.repo.detail(tx, project.id))!,
      access,
    }));
    return presentProject(row, access);
  });

  for (const method of ['put', 'patch'] as const) {
    const options = item({ 200: ProjectSchema }, 400);
    app[method](ITEM_PATH, { ...options, schema: { ...options.schema, body: ProjectBody } }, async (request) => {
      const { row, access } = await withProject(request, 'edit', async (tx, project, access) => {
        const values = validateProject(request.body, project, method === 'put');
        return { row: await projects.update(tx, signedIn(request).actor, project, access, values), access };
      });
      await audit(request, `Projet « ${row.name} » modifié`, {
        project_id: row.id,
        fields: Object.keys(request.body).filter((k) => k in projectFields),
      });
      return presentProject(row, access);
    });
  }

  app.delete(ITEM_PATH, item({ 204: NoContent }), async (request, reply) => {
    // The project's activity goes with it, so the audit trail is the record of the deletion.
    const project = await withProject(request, 'manage', async (tx, project) => {
      await projects.remove(tx, project.id);
      return project;
    });
    await audit(request, `Projet « ${project.name} » supprimé`, { project_id: project.id });
    return reply.code(204).send();
  });

  app.get(`${ITEM_PATH}dashboard/`, item({ 200: ProjectDashboardSchema }), async (request, reply) => {
    const version = await request.dataVersion(false);
    // After the gate: the answer is the project's, the same for everyone it lets through.
    const prepared = await withProject(request, 'read', async (tx, project) => {
      const today = todayUtc();
      const key = `project-dashboard|${currentTenant(request)}|${project.id}|${today}`;
      return app.answers.answer(version, key, async () => {
        const row = (await projects.repo.detail(tx, project.id))!;
        return reply.prepare(presentProjectDashboard(row, await projects.repo.dashboard(tx, project.id, today)));
      });
    });
    return prepared.send(reply);
  });

  app.get(`${ITEM_PATH}team-members/`, item({ 200: Type.Array(TeamMemberSchema) }), async (request) => {
    const team = await withProject(request, 'read', (tx, project) => projects.repo.team(tx, project));
    return team.map(presentTeamMember);
  });

  const member = (response: Record<number, TSchema>) => {
    const options = item(response, 400);
    return { ...options, schema: { ...options.schema, body: MemberBody } };
  };

  app.post(
    `${ITEM_PATH}add_team_member/`,
    member({ 200: TeamMemberSchema, 201: TeamMemberSchema }),
    async (request, reply) => {
      const { actor, user } = signedIn(request);
      const { member, added, notices } = await withProject(request, 'manage', (tx, project) =>
        projects.putMember(tx, { id: actor.userId, name: displayName(user) }, project, readMember(request.body)),
      );
      notifier.publish(notices);
      const shown = presentTeamMember(member);
      await audit(
        request,
        added
          ? `Membre ${shown.name} ajouté à l’équipe d’un projet`
          : `Rôle de ${shown.name} changé dans l’équipe d’un projet`,
        { project_id: member.projectId, user_id: shown.id, role: shown.role },
      );
      return reply.code(added ? 201 : 200).send(shown);
    },
  );

  app.post(`${ITEM_PATH}remove_team_member/`, member({ 204: NoContent }), async (request, reply) => {
    const removed = await withProject(request, 'manage', async (tx, project) => {
      const userId = readRemovedMember(request.body, project.ownerId);
      return { userId, name: await projects.removeMember(tx, signedIn(request).actor, project, userId) };
    });
    await audit(request, `Membre ${removed.name} retiré de l’équipe d’un projet`, {
      project_id: Number(request.params.id),
      user_id: removed.userId,
    });
    return reply.code(204).send();
  });
};

export default projectRoutes;
