import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import type { TObject } from 'typebox';
import { FieldErrors } from '../../../domain/errors.ts';
import { todayUtc } from '../../../domain/risk-scoring.ts';
import { signedIn } from '../../../plugins/app/authorization.ts';
import { pagedResponse } from '../../../presenters/paged.ts';
import {
  CorrectiveActionSchema,
  presentAction,
  presentPlan,
  presentRisk,
  presentTask,
  ProjectTaskSchema,
  RemediationPlanSchema,
  RiskSchema,
} from '../../../presenters/project-work.ts';
import { IdParams, NoContent, Paged, replies, type TSchema, Type } from '../../../schemas/common.ts';
import { invalid } from '../../../schemas/fields.ts';
import {
  ACTION_INPUT,
  PLAN_INPUT,
  ProgressBody,
  RISK_INPUT,
  TASK_INPUT,
  type Read,
} from '../../../schemas/projects/work.ts';
import { PAGE_SIZE } from '../../../schemas/projects/choices.ts';
import { parsePaging, type RawQuery, pageWindow } from '../../../schemas/query.ts';
import { ProjectWork, type Fixed, type WorkKind } from '../../../services/projects/work.ts';
import { accessGuards } from '../shared.ts';
import { journaledWrites } from './access.ts';

const PLANS = '/api/projects/remediation-plans/';

/** One kind of work as its routes answer it: the path, the reply, the inputs (schemas/) and the operations. */
interface WorkRoutes<R, V, F> {
  path: string;
  tags: string[];
  reply: TSchema;
  present: (row: R, today: string) => unknown;
  input: { body: TObject; read: Read<V>; parent: Fixed; query: TObject; filters: (e: FieldErrors, q: RawQuery) => F };
  kind: WorkKind<R & { id: number; projectId: number; title: string }, V, F>;
  /** Statuses the creation may answer besides 400 (a plan's 409). */
  createErrors?: number[];
}

/**
 * Risks, remediation plans, corrective actions and tasks (docs/api-projects.md): the same routes for every kind
 * (services/projects/work.ts does the work), plus a risk's plan and a plan's actions.
 */
const workRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const work = new ProjectWork();
  const guard = accessGuards(app);
  const write = journaledWrites(app, work.gate);
  const idOf = (request: FastifyRequest) => Number((request.params as { id: string }).id);

  /**
   * The paged list of the readable projects' objects, POST, GET, PUT/PATCH and DELETE of one object, and
   * update_progress for tasks and actions.
   */
  function register<R, V, F>({ path, tags, reply, present, input, kind, createErrors = [] }: WorkRoutes<R, V, F>) {
    const item = `${path}:id/`;
    const schema = (response: Record<number, TSchema>, ...errors: number[]) => ({
      tags,
      params: IdParams,
      response: replies.signedIn(response, 404, ...errors),
    });
    const answer = (row: R) => present(row, todayUtc());

    const list = { tags, querystring: input.query, response: replies.signedIn({ 200: Paged(reply) }, 400) };
    app.get(path, { ...guard.read, schema: list }, async (request) => {
      const errors = new FieldErrors();
      const query = request.query as RawQuery;
      const paging = parsePaging(errors, query, PAGE_SIZE);
      const filters = input.filters(errors, query);
      errors.throwIfAny();
      const today = todayUtc();
      const page = pageWindow(paging);
      const readable = work.gate.repo.readable(signedIn(request).actor);
      const { count, rows } = await request.tenantDb((tx) => kind.page(tx, readable, filters, today, page));
      const results = rows.map((row) => present(row, today));
      return pagedResponse(path, query, input.query, paging, count, results);
    });

    const created = replies.signedIn({ 201: reply }, 400, ...createErrors);
    app.post(path, { ...guard.write, schema: { tags, body: input.body, response: created } }, async (request, res) => {
      const { parent, values } = input.read(request.body, true, true);
      const row = await write(request, (tx, journal) => work.create(tx, journal, kind, parent!, values));
      return res.code(201).send(answer(row));
    });

    app.get(item, { ...guard.read, schema: schema({ 200: reply }) }, async (request) =>
      answer(await request.tenantDb((tx) => work.load(tx, signedIn(request).actor, kind, idOf(request), 'read'))),
    );

    for (const method of ['put', 'patch'] as const) {
      const options = { ...guard.write, schema: { ...schema({ 200: reply }, 400), body: input.body } };
      app[method](item, options, async (request) => {
        const sent = input.read(request.body, method === 'put');
        return answer(await write(request, (tx, j) => work.update(tx, j, kind, idOf(request), sent, input.parent)));
      });
    }

    if (kind.assigned) {
      const options = { ...guard.write, schema: { ...schema({ 200: reply }, 400), body: ProgressBody } };
      app.post(`${item}update_progress/`, options, async (request) => {
        const sent = { values: request.body as V };
        return answer(
          await write(request, (tx, j) => work.update(tx, j, kind, idOf(request), sent, input.parent, true)),
        );
      });
    }

    app.delete(item, { ...guard.write, schema: schema({ 204: NoContent }) }, async (request, res) => {
      await write(request, (tx, journal) => work.remove(tx, journal, kind, idOf(request)));
      return res.code(204).send();
    });
  }

  const risks = { path: '/api/projects/risks/', tags: ['Projets — risques'] };
  register({ ...risks, reply: RiskSchema, present: presentRisk, input: RISK_INPUT, kind: work.risks });
  const plans = { path: PLANS, tags: ['Projets — plans de remédiation'], createErrors: [409] };
  register({ ...plans, reply: RemediationPlanSchema, present: presentPlan, input: PLAN_INPUT, kind: work.plans });
  const actions = { path: '/api/projects/corrective-actions/', tags: ['Projets — actions correctives'] };
  register({
    ...actions,
    reply: CorrectiveActionSchema,
    present: presentAction,
    input: ACTION_INPUT,
    kind: work.actions,
  });
  const tasks = { path: '/api/projects/tasks/', tags: ['Projets — tâches'] };
  register({ ...tasks, reply: ProjectTaskSchema, present: presentTask, input: TASK_INPUT, kind: work.tasks });

  app.get(
    `${risks.path}:id/remediation-plan/`,
    {
      ...guard.read,
      schema: {
        tags: risks.tags,
        params: IdParams,
        response: replies.signedIn({ 200: RemediationPlanSchema }, 404),
      },
    },
    async (request) =>
      presentPlan(await request.tenantDb((tx) => work.planOfRisk(tx, signedIn(request).actor, idOf(request)))),
  );

  // A plan's own actions: /remediation-plans/{id}/actions/.
  const OF_PLAN = `${PLANS}:id/actions/`;
  const ofPlan = { tags: actions.tags, params: IdParams };

  app.get(
    OF_PLAN,
    {
      ...guard.read,
      schema: { ...ofPlan, response: replies.signedIn({ 200: Type.Array(CorrectiveActionSchema) }, 404) },
    },
    async (request) => {
      const today = todayUtc();
      const rows = await request.tenantDb((tx) => work.actionsOfPlan(tx, signedIn(request).actor, idOf(request)));
      return rows.map((a) => presentAction(a, today));
    },
  );

  app.post(
    OF_PLAN,
    {
      ...guard.write,
      schema: {
        ...ofPlan,
        body: ACTION_INPUT.body,
        response: replies.signedIn({ 201: CorrectiveActionSchema }, 400, 404),
      },
    },
    async (request, reply) => {
      const planId = idOf(request);
      const { parent, values } = ACTION_INPUT.read(request.body, true);
      if (parent !== undefined && parent !== planId) throw invalid(ACTION_INPUT.parent.key, ACTION_INPUT.parent.fixed);
      const action = await write(request, (tx, journal) => work.addAction(tx, journal, planId, values));
      return reply.code(201).send(presentAction(action, todayUtc()));
    },
  );
};

export default workRoutes;
