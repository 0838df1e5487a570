import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import {
  PLAN_STATUSES,
  PROJECT_PRIORITIES,
  PROJECT_TASK_STATUSES,
  RISK_STATUSES,
  RISK_TREATMENTS,
  type ProjectTaskStatus,
} from '../../../db/schema.ts';
import type { TenantDb } from '../../../db/tenant-scope.ts';
import { ApiError } from '../../../domain/errors.ts';
import { presentAction, presentPlan, presentRisk, presentTask } from '../../../presenters/project-work.ts';
import { ProjectAccessRepository, type ActivityEntry } from '../../../repositories/project-access.ts';
import {
  ProjectWorkRepository,
  type ActionValues,
  type PlanValues,
  type RiskValues,
  type TaskValues,
} from '../../../repositories/project-work.ts';
import { uniqueViolation } from '../../../repositories/tenant-users.ts';
import {
  completedAt,
  parseProgress,
  PROGRESS_MESSAGE,
  RISK_LEVELS,
  taskStatusFor,
  todayUtc,
} from '../../../services/risk-scoring.ts';
import { displayName, notifierOf, type Created } from '../../../services/notifier.ts';
import { FieldErrors } from '../../../domain/errors.ts';
import {
  accessGuards,
  idParams,
  notFound,
  pagedResponse,
  parseBoolean,
  parseId,
  parsePaging,
  parseQueryId,
  stringQuery,
  type RawQuery,
} from '../shared.ts';
import { auditProjectWrite, projectGate, type ProjectNeed } from './access.ts';

const RISKS = '/api/projects/risks/';
const PLANS = '/api/projects/remediation-plans/';
const ACTIONS = '/api/projects/corrective-actions/';
const TASKS = '/api/projects/tasks/';

const RISK_KEYS = ['page', 'page_size', 'project', 'status', 'level', 'treatment'] as const;
const PLAN_KEYS = ['page', 'page_size', 'project', 'risk'] as const;
const ACTION_KEYS = ['page', 'page_size', 'project', 'plan', 'overdue'] as const;
const TASK_KEYS = ['page', 'page_size', 'project', 'status', 'assignee', 'overdue'] as const;
const MAX_PAGE_SIZE = 100;
const MAX_TITLE = 300;
const MAX_TEXT = 20_000;

const MESSAGES = {
  titleRequired: 'Le titre est requis.',
  titleTooLong: `Le titre ne doit pas dépasser ${MAX_TITLE} caractères.`,
  text: `Texte invalide : au plus ${MAX_TEXT} caractères.`,
  nul: 'Le texte ne doit pas contenir de caractère nul.',
  id: 'Identifiant invalide : un entier positif est attendu.',
  date: 'Date invalide : format AAAA-MM-JJ attendu.',
  likelihoodRequired: 'La vraisemblance est requise.',
  likelihood: 'La vraisemblance doit être un entier entre 1 et 4.',
  impactRequired: 'La gravité est requise.',
  impact: 'La gravité doit être un entier entre 1 et 4.',
  targetLikelihoodRequired: 'La vraisemblance cible est requise.',
  targetLikelihood: 'La vraisemblance cible doit être un entier entre 1 et 4.',
  targetImpactRequired: 'La gravité cible est requise.',
  targetImpact: 'La gravité cible doit être un entier entre 1 et 4.',
  targetAboveLikelihood: (n: number) =>
    `La vraisemblance cible ne peut pas dépasser la vraisemblance initiale du risque (${n}).`,
  targetAboveImpact: (n: number) => `La gravité cible ne peut pas dépasser la gravité initiale du risque (${n}).`,
  likelihoodBelowTarget: (n: number) =>
    `La vraisemblance ne peut pas être inférieure à la vraisemblance cible du plan de remédiation (${n}).`,
  impactBelowTarget: (n: number) =>
    `La gravité ne peut pas être inférieure à la gravité cible du plan de remédiation (${n}).`,
  treatment: `Traitement invalide. Valeurs possibles : ${RISK_TREATMENTS.join(', ')}.`,
  riskStatus: `Statut invalide. Valeurs possibles : ${RISK_STATUSES.join(', ')}.`,
  planStatus: `Statut invalide. Valeurs possibles : ${PLAN_STATUSES.join(', ')}.`,
  taskStatus: `Statut invalide. Valeurs possibles : ${PROJECT_TASK_STATUSES.join(', ')}.`,
  priority: `Priorité invalide. Valeurs possibles : ${PROJECT_PRIORITIES.join(', ')}.`,
  level: `Niveau invalide. Valeurs possibles : ${RISK_LEVELS.join(', ')}.`,
  projectRequired: 'Le projet est requis.',
  projectUnknown: 'Projet introuvable.',
  projectFixed: 'Le projet ne peut pas être changé.',
  riskRequired: 'Le risque est requis.',
  riskUnknown: 'Risque introuvable.',
  riskFixed: 'Le risque d’un plan de remédiation ne peut pas être changé.',
  planRequired: 'Le plan de remédiation est requis.',
  planUnknown: 'Plan de remédiation introuvable.',
  planFixed: 'Le plan de remédiation d’une action ne peut pas être changé.',
  planExists: 'Ce risque a déjà un plan de remédiation.',
  assetUnknown: 'Actif introuvable.',
  threatUnknown: 'Menace introuvable.',
  vulnerabilityUnknown: 'Vulnérabilité introuvable.',
  userUnknown: 'Utilisateur introuvable dans cette organisation.',
  doneContradiction: 'Statut et progression se contredisent : une tâche terminée (DONE) est à 100 %, et inversement.',
} as const;

const fieldError = (field: string, message: string) =>
  new ApiError(400, 'invalid', message, { fields: { [field]: [message] } });

const DATE_RE = /^[1-9]\d{3}-\d{2}-\d{2}$/;

/** A real calendar day written YYYY-MM-DD (2025-02-30 is refused). */
function isDay(raw: string): boolean {
  if (!DATE_RE.test(raw)) return false;
  const d = new Date(`${raw}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === raw;
}

type Body = Record<string, unknown>;

/**
 * Reads a JSON body field by field with French messages (the JSON schemas only refuse unknown keys, so a wrong
 * type gets the same French message as a wrong value). `partial` is PATCH: absent fields stay as they are.
 */
class BodyReader {
  readonly errors = new FieldErrors();

  constructor(
    private readonly body: Body,
    private readonly partial: boolean,
  ) {}

  has(key: string): boolean {
    return this.body[key] !== undefined;
  }

  title(): string | undefined {
    const raw = this.body.title;
    if (raw === undefined && this.partial) return undefined;
    const title = typeof raw === 'string' ? raw.trim() : '';
    if (title === '') this.errors.add('title', MESSAGES.titleRequired);
    else if (title.length > MAX_TITLE) this.errors.add('title', MESSAGES.titleTooLong);
    else if (title.includes('\u0000')) this.errors.add('title', MESSAGES.nul);
    else return title;
    return undefined;
  }

  /** Free text; null clears it. */
  text(key: string): string | undefined {
    const raw = this.body[key];
    if (raw === undefined) return undefined;
    if (raw === null) return '';
    // PostgreSQL text cannot hold NUL: refused here rather than failing in the database.
    if (typeof raw === 'string' && raw.length <= MAX_TEXT) {
      if (!raw.includes('\u0000')) return raw.trim();
      this.errors.add(key, MESSAGES.nul);
      return undefined;
    }
    this.errors.add(key, MESSAGES.text);
    return undefined;
  }

  /** An integer 1–4; `required` is only enforced on full writes (POST, PUT). */
  score(key: string, messages: { required: string; invalid: string }): number | undefined {
    const raw = this.body[key];
    if (raw === undefined) {
      if (!this.partial) this.errors.add(key, messages.required);
      return undefined;
    }
    if (typeof raw === 'number' && Number.isInteger(raw) && raw >= 1 && raw <= 4) return raw;
    this.errors.add(key, messages.invalid);
    return undefined;
  }

  choice<T extends string>(key: string, allowed: readonly T[], message: string): T | undefined {
    const raw = this.body[key];
    if (raw === undefined) return undefined;
    const value = typeof raw === 'string' ? raw.trim().toUpperCase() : '';
    if ((allowed as readonly string[]).includes(value)) return value as T;
    this.errors.add(key, message);
    return undefined;
  }

  /** A positive integer id, null when `nullable`; `required` names the message when it must be there. */
  ref(key: string, opts: { required?: string; nullable?: boolean }): number | null | undefined {
    const raw = this.body[key];
    if (raw === undefined || (raw === null && !opts.nullable && opts.required)) {
      if (opts.required) this.errors.add(key, opts.required);
      return undefined;
    }
    if (raw === null && opts.nullable) return null;
    if (typeof raw === 'number' && Number.isSafeInteger(raw) && raw > 0) return raw;
    this.errors.add(key, MESSAGES.id);
    return undefined;
  }

  date(key: string): string | null | undefined {
    const raw = this.body[key];
    if (raw === undefined) return undefined;
    if (raw === null) return null;
    if (typeof raw === 'string' && isDay(raw)) return raw;
    this.errors.add(key, MESSAGES.date);
    return undefined;
  }

  progress(): number | undefined {
    const raw = this.body.progress;
    if (raw === undefined) return undefined;
    const progress = parseProgress(raw);
    if (progress === undefined) this.errors.add('progress', PROGRESS_MESSAGE);
    return progress;
  }
}

/** Drops the keys left undefined, so an update sets only what was sent. */
function defined<T extends object>(values: T): T {
  return Object.fromEntries(Object.entries(values).filter(([, v]) => v !== undefined)) as T;
}

function parseChoices<T extends string>(
  errors: FieldErrors,
  query: RawQuery,
  key: string,
  allowed: readonly T[],
  message: string,
  normalise: (v: string) => string = (v) => v.toUpperCase(),
): T[] | undefined {
  const raw = query[key]?.trim();
  if (!raw) return undefined;
  const values = raw
    .split(',')
    .map((v) => normalise(v.trim()))
    .filter((v) => v !== '');
  if (values.length === 0 || !values.every((v) => (allowed as readonly string[]).includes(v))) {
    errors.add(key, message);
    return undefined;
  }
  return [...new Set(values)] as T[];
}

// JSON schemas: unknown keys are refused; every value is checked in code (French messages). Read-only fields a
// client may send back from an object it read are accepted and ignored.
function bodySchema(writable: readonly string[], readOnly: readonly string[]) {
  return {
    type: 'object',
    additionalProperties: false,
    properties: Object.fromEntries([...writable, ...readOnly].map((k) => [k, {}])),
  } as const;
}

const riskBody = bodySchema(
  [
    'project',
    'title',
    'description',
    'scenario',
    'asset',
    'threat',
    'vulnerability',
    'likelihood',
    'impact',
    'treatment',
    'status',
    'owner',
  ],
  [
    'id',
    'initial_score',
    'initial_level',
    'residual_likelihood',
    'residual_impact',
    'residual_score',
    'residual_level',
    'remediation_plan',
    'created_at',
    'updated_at',
  ],
);
const planBody = bodySchema(
  ['risk', 'title', 'description', 'status', 'target_likelihood', 'target_impact', 'owner', 'due_date'],
  ['id', 'project', 'progress', 'actions_count', 'created_at', 'updated_at'],
);
const actionBody = bodySchema(
  ['remediation_plan', 'title', 'description', 'assignee', 'due_date', 'progress'],
  ['id', 'project', 'status', 'completed_at', 'is_overdue', 'created_at', 'updated_at'],
);
const taskBody = bodySchema(
  ['project', 'title', 'description', 'status', 'priority', 'assignee', 'due_date', 'progress'],
  ['id', 'completed_at', 'is_overdue', 'created_at', 'updated_at'],
);
const progressBody = bodySchema(['progress'], []);

function readRisk(r: BodyReader): RiskValues {
  return defined({
    title: r.title(),
    description: r.text('description'),
    scenario: r.text('scenario'),
    assetId: r.ref('asset', { nullable: true }),
    threatId: r.ref('threat', { nullable: true }),
    vulnerabilityId: r.ref('vulnerability', { nullable: true }),
    likelihood: r.score('likelihood', { required: MESSAGES.likelihoodRequired, invalid: MESSAGES.likelihood }),
    impact: r.score('impact', { required: MESSAGES.impactRequired, invalid: MESSAGES.impact }),
    treatment: r.choice('treatment', RISK_TREATMENTS, MESSAGES.treatment),
    status: r.choice('status', RISK_STATUSES, MESSAGES.riskStatus),
    ownerId: r.ref('owner', { nullable: true }),
  });
}

function readPlan(r: BodyReader): PlanValues {
  return defined({
    title: r.title(),
    description: r.text('description'),
    status: r.choice('status', PLAN_STATUSES, MESSAGES.planStatus),
    targetLikelihood: r.score('target_likelihood', {
      required: MESSAGES.targetLikelihoodRequired,
      invalid: MESSAGES.targetLikelihood,
    }),
    targetImpact: r.score('target_impact', { required: MESSAGES.targetImpactRequired, invalid: MESSAGES.targetImpact }),
    ownerId: r.ref('owner', { nullable: true }),
    dueDate: r.date('due_date'),
  });
}

function readAction(r: BodyReader): ActionValues {
  return defined({
    title: r.title(),
    description: r.text('description'),
    assigneeId: r.ref('assignee', { nullable: true }),
    dueDate: r.date('due_date'),
    progress: r.progress(),
  });
}

function readTask(r: BodyReader): TaskValues {
  return defined({
    title: r.title(),
    description: r.text('description'),
    status: r.choice('status', PROJECT_TASK_STATUSES, MESSAGES.taskStatus),
    priority: r.choice('priority', PROJECT_PRIORITIES, MESSAGES.priority),
    assigneeId: r.ref('assignee', { nullable: true }),
    dueDate: r.date('due_date'),
    progress: r.progress(),
  });
}

/** A plan's targets never exceed its risk's initial scores. */
function checkTargets(
  risk: { likelihood: number; impact: number },
  plan: { targetLikelihood: number; targetImpact: number },
) {
  const errors = new FieldErrors();
  if (plan.targetLikelihood > risk.likelihood) {
    errors.add('target_likelihood', MESSAGES.targetAboveLikelihood(risk.likelihood));
  }
  if (plan.targetImpact > risk.impact) errors.add('target_impact', MESSAGES.targetAboveImpact(risk.impact));
  errors.throwIfAny();
}

/**
 * A task's status and progress after a write: an explicit DONE means 100 %, reopening a finished task without a
 * progress starts it again from 0, and otherwise the status follows the progress (taskStatusFor). An explicit
 * status that contradicts an explicit progress is refused.
 */
function taskState(
  current: { status: ProjectTaskStatus; progress: number; completedAt: Date | null },
  values: TaskValues,
): { status: ProjectTaskStatus; progress: number; completedAt: Date | null } {
  const explicit = values.status;
  if (explicit === undefined && values.progress === undefined) {
    return { status: current.status, progress: current.progress, completedAt: current.completedAt };
  }
  const progress =
    values.progress ??
    (explicit === 'DONE' ? 100 : explicit !== undefined && current.progress === 100 ? 0 : current.progress);
  if (explicit !== undefined && (explicit === 'DONE') !== (progress === 100)) {
    throw fieldError('status', MESSAGES.doneContradiction);
  }
  return {
    status: explicit ?? taskStatusFor(current.status, progress),
    progress,
    completedAt: completedAt(progress, current.completedAt, new Date()),
  };
}

type Note = Omit<ActivityEntry, 'userId'>;
/** Tells an assignee (notifications), in the write's transaction. */
type Assign = (a: {
  kind: 'task_assigned' | 'action_assigned';
  assigneeId: number | null | undefined;
  projectId: number;
  title: string;
}) => Promise<void>;
type Params = { Params: { id: string } };

/**
 * Risks, remediation plans, corrective actions and tasks (docs/api-projects.md). Every object resolves its project
 * (action → plan → risk → project) and goes through the project gate: read to see it, edit to change it. Every
 * write appends to the project's activity in its transaction and is audited once committed.
 */
const workRoutes: FastifyPluginAsync = async (app) => {
  const repo = new ProjectWorkRepository();
  const access = new ProjectAccessRepository();
  const guard = accessGuards(app);

  const gate = projectGate();
  const notifier = notifierOf(app.database);

  const idOf = (request: FastifyRequest<Params>) => {
    const id = parseId(request.params.id);
    if (id === undefined) throw notFound();
    return id;
  };
  const readable = (request: FastifyRequest) => access.readable(request.auth!.actor);
  const bodyOf = (request: FastifyRequest) => (request.body ?? {}) as Body;

  /** The gate for a project named in a body: an unknown or invisible one is a field error, not a 404. */
  const requireNamed = async (
    request: FastifyRequest,
    tx: TenantDb,
    projectId: number,
    field: string,
    message: string,
  ) => {
    try {
      return await gate.require(request, tx, projectId, 'edit');
    } catch (err) {
      if (err instanceof ApiError && err.statusCode === 404) throw fieldError(field, message);
      throw err;
    }
  };

  /** Referenced rows must exist in the current tenant; another tenant's id is as unknown as a made-up one. */
  const checkReferences = async (
    checks: [field: string, id: number | null | undefined, exists: (id: number) => Promise<boolean>, message: string][],
  ) => {
    const errors = new FieldErrors();
    for (const [field, id, exists, message] of checks) {
      if (id !== null && id !== undefined && !(await exists(id))) errors.add(field, message);
    }
    errors.throwIfAny();
  };
  const member = (tx: TenantDb) => (id: number) => repo.isTenantMember(tx, id);

  /**
   * Runs a write in one tenant transaction; what it notes goes to the project's activity, then to the audit; the
   * assignees it tells are notified in the same transaction, and their streams once it committed.
   */
  const write = async <T>(
    request: FastifyRequest,
    work: (tx: TenantDb, note: (entry: Note) => Promise<void>, assign: Assign) => Promise<T>,
  ): Promise<T> => {
    const entries: ActivityEntry[] = [];
    const notices: Created[] = [];
    const actor = { id: request.auth!.user.id, name: displayName(request.auth!.user) };
    const result = await request.tenantDb((tx) =>
      work(
        tx,
        async (note) => {
          const entry = { ...note, userId: request.auth!.user.id };
          await access.record(tx, entry);
          entries.push(entry);
        },
        async (a) => void notices.push(...(await notifier.assigned(tx, actor, a))),
      ),
    );
    for (const e of entries) await auditProjectWrite(app, request, e);
    notifier.publish(notices);
    return result;
  };

  const loadRisk = async (request: FastifyRequest, tx: TenantDb, id: number, need: ProjectNeed) => {
    const risk = await repo.findRisk(tx, id);
    if (!risk) throw notFound();
    await gate.require(request, tx, risk.projectId, need);
    return risk;
  };
  const loadPlan = async (request: FastifyRequest, tx: TenantDb, id: number, need: ProjectNeed) => {
    const plan = await repo.findPlan(tx, id);
    if (!plan) throw notFound();
    await gate.require(request, tx, plan.projectId, need);
    return plan;
  };
  const loadAction = async (request: FastifyRequest, tx: TenantDb, id: number, need: ProjectNeed) => {
    const action = await repo.findAction(tx, id);
    if (!action) throw notFound();
    await gate.require(request, tx, action.projectId, need);
    return action;
  };
  const loadTask = async (request: FastifyRequest, tx: TenantDb, id: number, need: ProjectNeed) => {
    const task = await repo.findTask(tx, id);
    if (!task) throw notFound();
    await gate.require(request, tx, task.projectId, need);
    return task;
  };

  const noContent = (reply: FastifyReply) => reply.code(204).send();

  // ------------------------------------------------------------------------------------------------------------
  // Risks

  app.get<{ Querystring: RawQuery }>(
    RISKS,
    { ...guard.read, schema: { querystring: stringQuery(RISK_KEYS) } },
    async (request) => {
      const errors = new FieldErrors();
      const q = request.query;
      const paging = parsePaging(errors, q, MAX_PAGE_SIZE);
      const filters = {
        projectId: parseQueryId(errors, q, 'project'),
        statuses: parseChoices(errors, q, 'status', RISK_STATUSES, MESSAGES.riskStatus),
        levels: parseChoices(errors, q, 'level', RISK_LEVELS, MESSAGES.level, (v) => v.toLowerCase()),
        treatments: parseChoices(errors, q, 'treatment', RISK_TREATMENTS, MESSAGES.treatment),
      };
      errors.throwIfAny();
      const page = { limit: paging.pageSize, offset: (paging.page - 1) * paging.pageSize };
      const { count, rows } = await request.tenantDb((tx) => repo.pageRisks(tx, readable(request), filters, page));
      return pagedResponse(RISKS, q, RISK_KEYS, paging, count, rows.map(presentRisk));
    },
  );

  app.post(RISKS, { ...guard.write, schema: { body: riskBody } }, async (request, reply) => {
    const r = new BodyReader(bodyOf(request), false);
    const projectId = r.ref('project', { required: MESSAGES.projectRequired });
    const values = readRisk(r);
    r.errors.throwIfAny();
    const risk = await write(request, async (tx, note) => {
      await requireNamed(request, tx, projectId!, 'project', MESSAGES.projectUnknown);
      await checkReferences([
        ['asset', values.assetId, (id) => repo.assetExists(tx, id), MESSAGES.assetUnknown],
        ['threat', values.threatId, (id) => repo.threatExists(tx, id), MESSAGES.threatUnknown],
        [
          'vulnerability',
          values.vulnerabilityId,
          (id) => repo.vulnerabilityExists(tx, id),
          MESSAGES.vulnerabilityUnknown,
        ],
        ['owner', values.ownerId, member(tx), MESSAGES.userUnknown],
      ]);
      const id = await repo.createRisk(tx, projectId!, {
        ...values,
        title: values.title!,
        likelihood: values.likelihood!,
        impact: values.impact!,
      });
      const row = (await repo.findRisk(tx, id))!;
      await note({
        projectId: row.projectId,
        action: 'created',
        objectType: 'risk',
        objectId: id,
        summary: `Risque « ${row.title} » créé`,
      });
      return row;
    });
    return reply.code(201).send(presentRisk(risk));
  });

  app.get<Params>(`${RISKS}:id/`, { ...guard.read, schema: { params: idParams } }, async (request) => {
    const id = idOf(request);
    return presentRisk(await request.tenantDb((tx) => loadRisk(request, tx, id, 'read')));
  });

  app.get<Params>(`${RISKS}:id/remediation-plan/`, { ...guard.read, schema: { params: idParams } }, async (request) => {
    const id = idOf(request);
    const plan = await request.tenantDb(async (tx) => {
      await loadRisk(request, tx, id, 'read');
      return repo.findPlanOfRisk(tx, id);
    });
    if (!plan) throw notFound();
    return presentPlan(plan);
  });

  for (const method of ['put', 'patch'] as const) {
    app[method]<Params>(
      `${RISKS}:id/`,
      { ...guard.write, schema: { params: idParams, body: riskBody } },
      async (request) => {
        const id = idOf(request);
        const r = new BodyReader(bodyOf(request), method === 'patch');
        const projectId = r.ref('project', {});
        const values = readRisk(r);
        r.errors.throwIfAny();
        const risk = await write(request, async (tx, note) => {
          const current = await loadRisk(request, tx, id, 'edit');
          if (projectId !== undefined && projectId !== current.projectId) {
            throw fieldError('project', MESSAGES.projectFixed);
          }
          await checkReferences([
            ['asset', values.assetId, (ref) => repo.assetExists(tx, ref), MESSAGES.assetUnknown],
            ['threat', values.threatId, (ref) => repo.threatExists(tx, ref), MESSAGES.threatUnknown],
            [
              'vulnerability',
              values.vulnerabilityId,
              (ref) => repo.vulnerabilityExists(tx, ref),
              MESSAGES.vulnerabilityUnknown,
            ],
            ['owner', values.ownerId, member(tx), MESSAGES.userUnknown],
          ]);
          // Lowering the scores below the plan's targets would make the targets exceed the initial scores.
          const plan = current.planId !== null ? await repo.findPlan(tx, current.planId) : undefined;
          if (plan) {
            const errors = new FieldErrors();
            const likelihood = values.likelihood ?? current.likelihood;
            const impact = values.impact ?? current.impact;
            if (likelihood < plan.targetLikelihood) {
              errors.add('likelihood', MESSAGES.likelihoodBelowTarget(plan.targetLikelihood));
            }
            if (impact < plan.targetImpact) errors.add('impact', MESSAGES.impactBelowTarget(plan.targetImpact));
            errors.throwIfAny();
          }
          await repo.updateRisk(tx, id, values);
          await repo.refreshResidual(tx, id);
          const row = (await repo.findRisk(tx, id))!;
          await note({
            projectId: row.projectId,
            action: 'updated',
            objectType: 'risk',
            objectId: id,
            summary: `Risque « ${row.title} » modifié`,
          });
          return row;
        });
        return presentRisk(risk);
      },
    );
  }

  app.delete<Params>(`${RISKS}:id/`, { ...guard.write, schema: { params: idParams } }, async (request, reply) => {
    const id = idOf(request);
    await write(request, async (tx, note) => {
      const risk = await loadRisk(request, tx, id, 'edit');
      if (!(await repo.removeRisk(tx, id))) throw notFound();
      await note({
        projectId: risk.projectId,
        action: 'deleted',
        objectType: 'risk',
        objectId: id,
        summary: `Risque « ${risk.title} » supprimé`,
      });
    });
    return noContent(reply);
  });

  // ------------------------------------------------------------------------------------------------------------
  // Remediation plans

  app.get<{ Querystring: RawQuery }>(
    PLANS,
    { ...guard.read, schema: { querystring: stringQuery(PLAN_KEYS) } },
    async (request) => {
      const errors = new FieldErrors();
      const q = request.query;
      const paging = parsePaging(errors, q, MAX_PAGE_SIZE);
      const filters = { projectId: parseQueryId(errors, q, 'project'), riskId: parseQueryId(errors, q, 'risk') };
      errors.throwIfAny();
      const page = { limit: paging.pageSize, offset: (paging.page - 1) * paging.pageSize };
      const { count, rows } = await request.tenantDb((tx) => repo.pagePlans(tx, readable(request), filters, page));
      return pagedResponse(PLANS, q, PLAN_KEYS, paging, count, rows.map(presentPlan));
    },
  );

  app.post(PLANS, { ...guard.write, schema: { body: planBody } }, async (request, reply) => {
    const r = new BodyReader(bodyOf(request), false);
    const riskId = r.ref('risk', { required: MESSAGES.riskRequired });
    const values = readPlan(r);
    r.errors.throwIfAny();
    const plan = await write(request, async (tx, note) => {
      const risk = await repo.findRisk(tx, riskId!);
      if (!risk) throw fieldError('risk', MESSAGES.riskUnknown);
      await requireNamed(request, tx, risk.projectId, 'risk', MESSAGES.riskUnknown);
      if (risk.planId !== null)
        throw new ApiError(409, 'duplicate', MESSAGES.planExists, { fields: { risk: [MESSAGES.planExists] } });
      const targets = { targetLikelihood: values.targetLikelihood!, targetImpact: values.targetImpact! };
      checkTargets(risk, targets);
      await checkReferences([['owner', values.ownerId, member(tx), MESSAGES.userUnknown]]);
      const id = await repo.createPlan(tx, risk.id, { ...values, ...targets, title: values.title! });
      await repo.refreshResidual(tx, risk.id);
      const row = (await repo.findPlan(tx, id))!;
      await note({
        projectId: row.projectId,
        action: 'created',
        objectType: 'remediation_plan',
        objectId: id,
        summary: `Plan de remédiation « ${row.title} » créé`,
      });
      return row;
    }).catch((err: unknown) => {
      // Two plans created at once for the same risk: the unique key decides, the loser gets the same 409.
      if (uniqueViolation(err) !== undefined) {
        throw new ApiError(409, 'duplicate', MESSAGES.planExists, { fields: { risk: [MESSAGES.planExists] } });
      }
      throw err;
    });
    return reply.code(201).send(presentPlan(plan));
  });

  app.get<Params>(`${PLANS}:id/`, { ...guard.read, schema: { params: idParams } }, async (request) => {
    const id = idOf(request);
    return presentPlan(await request.tenantDb((tx) => loadPlan(request, tx, id, 'read')));
  });

  for (const method of ['put', 'patch'] as const) {
    app[method]<Params>(
      `${PLANS}:id/`,
      { ...guard.write, schema: { params: idParams, body: planBody } },
      async (request) => {
        const id = idOf(request);
        const r = new BodyReader(bodyOf(request), method === 'patch');
        const riskId = r.ref('risk', {});
        const values = readPlan(r);
        r.errors.throwIfAny();
        const plan = await write(request, async (tx, note) => {
          const current = await loadPlan(request, tx, id, 'edit');
          if (riskId !== undefined && riskId !== current.riskId) throw fieldError('risk', MESSAGES.riskFixed);
          checkTargets(
            { likelihood: current.riskLikelihood, impact: current.riskImpact },
            {
              targetLikelihood: values.targetLikelihood ?? current.targetLikelihood,
              targetImpact: values.targetImpact ?? current.targetImpact,
            },
          );
          await checkReferences([['owner', values.ownerId, member(tx), MESSAGES.userUnknown]]);
          await repo.updatePlan(tx, id, values);
          await repo.refreshResidual(tx, current.riskId);
          const row = (await repo.findPlan(tx, id))!;
          await note({
            projectId: row.projectId,
            action: 'updated',
            objectType: 'remediation_plan',
            objectId: id,
            summary: `Plan de remédiation « ${row.title} » modifié`,
          });
          return row;
        });
        return presentPlan(plan);
      },
    );
  }

  app.delete<Params>(`${PLANS}:id/`, { ...guard.write, schema: { params: idParams } }, async (request, reply) => {
    const id = idOf(request);
    await write(request, async (tx, note) => {
      const plan = await loadPlan(request, tx, id, 'edit');
      if (!(await repo.removePlan(tx, id))) throw notFound();
      // Without a plan the residual scores are the initial ones again.
      await repo.refreshResidual(tx, plan.riskId);
      await note({
        projectId: plan.projectId,
        action: 'deleted',
        objectType: 'remediation_plan',
        objectId: id,
        summary: `Plan de remédiation « ${plan.title} » supprimé`,
      });
    });
    return noContent(reply);
  });

  app.get<Params>(`${PLANS}:id/actions/`, { ...guard.read, schema: { params: idParams } }, async (request) => {
    const id = idOf(request);
    const today = todayUtc();
    const rows = await request.tenantDb(async (tx) => {
      await loadPlan(request, tx, id, 'read');
      return repo.actionsOfPlan(tx, id);
    });
    return rows.map((a) => presentAction(a, today));
  });

  // ------------------------------------------------------------------------------------------------------------
  // Corrective actions

  /** Creates an action in a plan the caller may edit; the plan's progress and the risk's residual follow. */
  const createAction = async (
    request: FastifyRequest,
    resolvePlan: (tx: TenantDb) => Promise<{ id: number; riskId: number; projectId: number }>,
    values: ActionValues,
  ) =>
    write(request, async (tx, note, assign) => {
      const plan = await resolvePlan(tx);
      await checkReferences([['assignee', values.assigneeId, member(tx), MESSAGES.userUnknown]]);
      const progress = values.progress ?? 0;
      const id = await repo.createAction(tx, plan.id, {
        ...values,
        title: values.title!,
        progress,
        completedAt: completedAt(progress, null, new Date()),
      });
      await repo.refreshResidual(tx, plan.riskId);
      const row = (await repo.findAction(tx, id))!;
      await note({
        projectId: row.projectId,
        action: 'created',
        objectType: 'corrective_action',
        objectId: id,
        summary: `Action « ${row.title} » créée`,
      });
      await assign({ kind: 'action_assigned', assigneeId: row.assigneeId, projectId: row.projectId, title: row.title });
      return row;
    });

  app.post<Params>(
    `${PLANS}:id/actions/`,
    { ...guard.write, schema: { params: idParams, body: actionBody } },
    async (request, reply) => {
      const id = idOf(request);
      const r = new BodyReader(bodyOf(request), false);
      const planId = r.ref('remediation_plan', {});
      const values = readAction(r);
      r.errors.throwIfAny();
      if (planId !== undefined && planId !== id) throw fieldError('remediation_plan', MESSAGES.planFixed);
      const action = await createAction(request, (tx) => loadPlan(request, tx, id, 'edit'), values);
      return reply.code(201).send(presentAction(action, todayUtc()));
    },
  );

  app.get<{ Querystring: RawQuery }>(
    ACTIONS,
    { ...guard.read, schema: { querystring: stringQuery(ACTION_KEYS) } },
    async (request) => {
      const errors = new FieldErrors();
      const q = request.query;
      const paging = parsePaging(errors, q, MAX_PAGE_SIZE);
      const filters = {
        projectId: parseQueryId(errors, q, 'project'),
        planId: parseQueryId(errors, q, 'plan'),
        overdue: parseBoolean(errors, q, 'overdue'),
      };
      errors.throwIfAny();
      const today = todayUtc();
      const page = { limit: paging.pageSize, offset: (paging.page - 1) * paging.pageSize };
      const { count, rows } = await request.tenantDb((tx) =>
        repo.pageActions(tx, readable(request), filters, today, page),
      );
      return pagedResponse(
        ACTIONS,
        q,
        ACTION_KEYS,
        paging,
        count,
        rows.map((a) => presentAction(a, today)),
      );
    },
  );

  app.post(ACTIONS, { ...guard.write, schema: { body: actionBody } }, async (request, reply) => {
    const r = new BodyReader(bodyOf(request), false);
    const planId = r.ref('remediation_plan', { required: MESSAGES.planRequired });
    const values = readAction(r);
    r.errors.throwIfAny();
    const action = await createAction(
      request,
      async (tx) => {
        const plan = await repo.findPlan(tx, planId!);
        if (!plan) throw fieldError('remediation_plan', MESSAGES.planUnknown);
        await requireNamed(request, tx, plan.projectId, 'remediation_plan', MESSAGES.planUnknown);
        return plan;
      },
      values,
    );
    return reply.code(201).send(presentAction(action, todayUtc()));
  });

  app.get<Params>(`${ACTIONS}:id/`, { ...guard.read, schema: { params: idParams } }, async (request) => {
    const id = idOf(request);
    return presentAction(await request.tenantDb((tx) => loadAction(request, tx, id, 'read')), todayUtc());
  });

  /** Changes an action; a progress change moves completed_at, the plan's progress and the risk's residual. */
  const updateAction = async (
    request: FastifyRequest<Params>,
    values: ActionValues,
    planId: number | undefined,
    progressOnly: boolean,
  ) => {
    const id = idOf(request);
    return write(request, async (tx, note, assign) => {
      const current = await loadAction(request, tx, id, 'edit');
      if (planId !== undefined && planId !== current.planId) throw fieldError('remediation_plan', MESSAGES.planFixed);
      await checkReferences([['assignee', values.assigneeId, member(tx), MESSAGES.userUnknown]]);
      const changes = { ...values };
      if (values.progress !== undefined) {
        changes.completedAt = completedAt(values.progress, current.completedAt, new Date());
      }
      await repo.updateAction(tx, id, changes);
      if (values.progress !== undefined && values.progress !== current.progress) {
        await repo.refreshResidual(tx, current.riskId);
      }
      const row = (await repo.findAction(tx, id))!;
      await note({
        projectId: row.projectId,
        action: progressOnly ? 'progress' : 'updated',
        objectType: 'corrective_action',
        objectId: id,
        summary: progressOnly
          ? `Action « ${row.title} » : progression ${row.progress} %`
          : `Action « ${row.title} » modifiée`,
      });
      if (row.assigneeId !== current.assigneeId) {
        await assign({
          kind: 'action_assigned',
          assigneeId: row.assigneeId,
          projectId: row.projectId,
          title: row.title,
        });
      }
      return row;
    });
  };

  for (const method of ['put', 'patch'] as const) {
    app[method]<Params>(
      `${ACTIONS}:id/`,
      { ...guard.write, schema: { params: idParams, body: actionBody } },
      async (request) => {
        const r = new BodyReader(bodyOf(request), method === 'patch');
        const planId = r.ref('remediation_plan', {});
        const values = readAction(r);
        r.errors.throwIfAny();
        return presentAction(await updateAction(request, values, planId ?? undefined, false), todayUtc());
      },
    );
  }

  app.post<Params>(
    `${ACTIONS}:id/update_progress/`,
    { ...guard.write, schema: { params: idParams, body: progressBody } },
    async (request) => {
      const progress = parseProgress(bodyOf(request).progress);
      if (progress === undefined) throw fieldError('progress', PROGRESS_MESSAGE);
      return presentAction(await updateAction(request, { progress }, undefined, true), todayUtc());
    },
  );

  app.delete<Params>(`${ACTIONS}:id/`, { ...guard.write, schema: { params: idParams } }, async (request, reply) => {
    const id = idOf(request);
    await write(request, async (tx, note) => {
      const action = await loadAction(request, tx, id, 'edit');
      if (!(await repo.removeAction(tx, id))) throw notFound();
      await repo.refreshResidual(tx, action.riskId);
      await note({
        projectId: action.projectId,
        action: 'deleted',
        objectType: 'corrective_action',
        objectId: id,
        summary: `Action « ${action.title} » supprimée`,
      });
    });
    return noContent(reply);
  });

  // ------------------------------------------------------------------------------------------------------------
  // Tasks

  app.get<{ Querystring: RawQuery }>(
    TASKS,
    { ...guard.read, schema: { querystring: stringQuery(TASK_KEYS) } },
    async (request) => {
      const errors = new FieldErrors();
      const q = request.query;
      const paging = parsePaging(errors, q, MAX_PAGE_SIZE);
      const filters = {
        projectId: parseQueryId(errors, q, 'project'),
        statuses: parseChoices(errors, q, 'status', PROJECT_TASK_STATUSES, MESSAGES.taskStatus),
        assigneeId: parseQueryId(errors, q, 'assignee'),
        overdue: parseBoolean(errors, q, 'overdue'),
      };
      errors.throwIfAny();
      const today = todayUtc();
      const page = { limit: paging.pageSize, offset: (paging.page - 1) * paging.pageSize };
      const { count, rows } = await request.tenantDb((tx) =>
        repo.pageTasks(tx, readable(request), filters, today, page),
      );
      return pagedResponse(
        TASKS,
        q,
        TASK_KEYS,
        paging,
        count,
        rows.map((t) => presentTask(t, today)),
      );
    },
  );

  app.post(TASKS, { ...guard.write, schema: { body: taskBody } }, async (request, reply) => {
    const r = new BodyReader(bodyOf(request), false);
    const projectId = r.ref('project', { required: MESSAGES.projectRequired });
    const values = readTask(r);
    r.errors.throwIfAny();
    const state = taskState({ status: 'TODO', progress: 0, completedAt: null }, values);
    const task = await write(request, async (tx, note, assign) => {
      await requireNamed(request, tx, projectId!, 'project', MESSAGES.projectUnknown);
      await checkReferences([['assignee', values.assigneeId, member(tx), MESSAGES.userUnknown]]);
      const row = await repo.createTask(tx, projectId!, { ...values, ...state, title: values.title! });
      await note({
        projectId: row.projectId,
        action: 'created',
        objectType: 'task',
        objectId: row.id,
        summary: `Tâche « ${row.title} » créée`,
      });
      await assign({ kind: 'task_assigned', assigneeId: row.assigneeId, projectId: row.projectId, title: row.title });
      return row;
    });
    return reply.code(201).send(presentTask(task, todayUtc()));
  });

  app.get<Params>(`${TASKS}:id/`, { ...guard.read, schema: { params: idParams } }, async (request) => {
    const id = idOf(request);
    return presentTask(await request.tenantDb((tx) => loadTask(request, tx, id, 'read')), todayUtc());
  });

  const updateTask = async (
    request: FastifyRequest<Params>,
    values: TaskValues,
    projectId: number | undefined,
    progressOnly: boolean,
  ) => {
    const id = idOf(request);
    return write(request, async (tx, note, assign) => {
      const current = await loadTask(request, tx, id, 'edit');
      if (projectId !== undefined && projectId !== current.projectId)
        throw fieldError('project', MESSAGES.projectFixed);
      await checkReferences([['assignee', values.assigneeId, member(tx), MESSAGES.userUnknown]]);
      const row = (await repo.updateTask(tx, id, { ...values, ...taskState(current, values) }))!;
      await note({
        projectId: row.projectId,
        action: progressOnly ? 'progress' : 'updated',
        objectType: 'task',
        objectId: id,
        summary: progressOnly
          ? `Tâche « ${row.title} » : progression ${row.progress} %`
          : `Tâche « ${row.title} » modifiée`,
      });
      if (row.assigneeId !== current.assigneeId) {
        await assign({ kind: 'task_assigned', assigneeId: row.assigneeId, projectId: row.projectId, title: row.title });
      }
      return row;
    });
  };

  for (const method of ['put', 'patch'] as const) {
    app[method]<Params>(
      `${TASKS}:id/`,
      { ...guard.write, schema: { params: idParams, body: taskBody } },
      async (request) => {
        const r = new BodyReader(bodyOf(request), method === 'patch');
        const projectId = r.ref('project', {});
        const values = readTask(r);
        r.errors.throwIfAny();
        return presentTask(await updateTask(request, values, projectId ?? undefined, false), todayUtc());
      },
    );
  }

  app.post<Params>(
    `${TASKS}:id/update_progress/`,
    { ...guard.write, schema: { params: idParams, body: progressBody } },
    async (request) => {
      const progress = parseProgress(bodyOf(request).progress);
      if (progress === undefined) throw fieldError('progress', PROGRESS_MESSAGE);
      return presentTask(await updateTask(request, { progress }, undefined, true), todayUtc());
    },
  );

  app.delete<Params>(`${TASKS}:id/`, { ...guard.write, schema: { params: idParams } }, async (request, reply) => {
    const id = idOf(request);
    await write(request, async (tx, note) => {
      const task = await loadTask(request, tx, id, 'edit');
      if (!(await repo.removeTask(tx, id))) throw notFound();
      await note({
        projectId: task.projectId,
        action: 'deleted',
        objectType: 'task',
        objectId: id,
        summary: `Tâche « ${task.title} » supprimée`,
      });
    });
    return noContent(reply);
  });
};

export default workRoutes;
