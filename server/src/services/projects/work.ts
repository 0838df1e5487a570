/**
 * Risks, remediation plans, corrective actions and tasks (docs/api-projects.md). Every object resolves its project
 * (action → plan → risk → project) and goes through the project gate: read to see it, edit to change it. Every
 * write appends to the project's activity through the journal, and tells the assignee of a task or an action.
 */
import type { SQL } from 'drizzle-orm';
import type { TenantDb } from '../../db/tenant-scope.ts';
import { ApiError, FieldErrors, notFound } from '../../domain/errors.ts';
import { taskState } from '../../domain/project-rules.ts';
import { completedAt } from '../../domain/risk-scoring.ts';
import type { Actor } from '../../policies/index.ts';
import {
  ProjectWorkRepository,
  type ActionFilters,
  type ActionRow,
  type ActionValues,
  type Page,
  type PlanFilters,
  type PlanRow,
  type PlanValues,
  type RiskFilters,
  type RiskRow,
  type RiskValues,
  type TaskFilters,
  type TaskRow,
  type TaskValues,
} from '../../repositories/project-work.ts';
import { uniqueViolation } from '../../repositories/tenant-users.ts';
import { invalid } from '../../schemas/fields.ts';
import { WORK_MESSAGES as MESSAGES } from '../../schemas/projects/work.ts';
import { ProjectGate, type ProjectJournal, type ProjectNeed } from './access.ts';

const OBJECTS = {
  risk: ['Risque', ''],
  remediation_plan: ['Plan de remédiation', ''],
  corrective_action: ['Action', 'e'],
  task: ['Tâche', 'e'],
} as const;
const VERBS = { created: 'créé', updated: 'modifié', deleted: 'supprimé' } as const;

type WorkRow = { id: number; projectId: number; title: string; progress?: number; assigneeId?: number | null };

/** One kind of work, as the generic operations handle it. */
export interface WorkKind<R extends WorkRow, V, F> {
  objectType: keyof typeof OBJECTS;
  find: (tx: TenantDb, id: number) => Promise<R | undefined>;
  page: (tx: TenantDb, readable: SQL, filters: F, today: string, page: Page) => Promise<{ count: number; rows: R[] }>;
  /** The id of the parent (project, risk, plan) a change may send back but never change. */
  parentOf: (row: R) => number;
  /** Checks the parent (field errors, the gate) and the references, inserts, reads the row. */
  create: (tx: TenantDb, actor: Actor, parent: number, values: V) => Promise<R>;
  /** After the gate: checks, updates, and reads the row again. */
  update: (tx: TenantDb, current: R, values: V) => Promise<R>;
  remove: (tx: TenantDb, row: R) => Promise<boolean>;
  /** Tasks and actions: the assignee is told, and update_progress moves them. */
  assigned?: 'task_assigned' | 'action_assigned';
}

/** The parent of a body, and the refusal when a change names another one. */
export interface Fixed {
  key: string;
  fixed: string;
}

const planExists = () =>
  new ApiError(409, 'duplicate', MESSAGES.planExists, { fields: { risk: [MESSAGES.planExists] } });

/** A plan's targets never exceed its risk's initial scores. */
function checkTargets(risk: { likelihood: number; impact: number }, likelihood: number, impact: number) {
  const errors = new FieldErrors();
  if (likelihood > risk.likelihood) errors.add('target_likelihood', MESSAGES.targetAboveLikelihood(risk.likelihood));
  if (impact > risk.impact) errors.add('target_impact', MESSAGES.targetAboveImpact(risk.impact));
  errors.throwIfAny();
}

export class ProjectWork {
  readonly repo = new ProjectWorkRepository();
  readonly gate = new ProjectGate();

  /** Referenced rows must exist in the current tenant; another tenant's id is as unknown as a made-up one. */
  private async checkReferences(refs: [string, number | null | undefined, (id: number) => Promise<boolean>, string][]) {
    const errors = new FieldErrors();
    for (const [field, id, exists, message] of refs) {
      if (id !== null && id !== undefined && !(await exists(id))) errors.add(field, message);
    }
    errors.throwIfAny();
  }

  /** The owner or assignee named must be a user of the tenant. */
  private member(field: string, tx: TenantDb, id: number | null | undefined) {
    return this.checkReferences([[field, id, (user) => this.repo.isTenantMember(tx, user), MESSAGES.userUnknown]]);
  }

  /** A project named by a body, that the caller may edit: `field`'s `message` when unknown or out of reach. */
  private named(tx: TenantDb, actor: Actor, projectId: number, field: string, message: string) {
    return this.gate.requireNamed(tx, actor, projectId, () => invalid(field, message));
  }

  readonly risks: WorkKind<RiskRow, RiskValues, RiskFilters> = {
    objectType: 'risk',
    find: (tx, id) => this.repo.findRisk(tx, id),
    page: (tx, readable, filters, _today, page) => this.repo.pageRisks(tx, readable, filters, page),
    parentOf: (risk) => risk.projectId,
    create: async (tx, actor, projectId, values) => {
      await this.named(tx, actor, projectId, 'project', MESSAGES.projectUnknown);
      await this.checkRiskReferences(tx, values);
      const id = await this.repo.createRisk(tx, projectId, {
        ...values,
        title: values.title!,
        likelihood: values.likelihood!,
        impact: values.impact!,
      });
      return (await this.repo.findRisk(tx, id))!;
    },
    update: async (tx, current, values) => {
      await this.checkRiskReferences(tx, values);
      // Lowering the scores below the plan's targets would make the targets exceed the initial scores.
      const plan = current.planId !== null ? await this.repo.findPlan(tx, current.planId) : undefined;
      if (plan) {
        const errors = new FieldErrors();
        if ((values.likelihood ?? current.likelihood) < plan.targetLikelihood) {
          errors.add('likelihood', MESSAGES.likelihoodBelowTarget(plan.targetLikelihood));
        }
        if ((values.impact ?? current.impact) < plan.targetImpact) {
          errors.add('impact', MESSAGES.impactBelowTarget(plan.targetImpact));
        }
        errors.throwIfAny();
      }
      await this.repo.updateRisk(tx, current.id, values);
      await this.repo.refreshResidual(tx, current.id);
      return (await this.repo.findRisk(tx, current.id))!;
    },
    remove: (tx, risk) => this.repo.removeRisk(tx, risk.id),
  };

  /** The asset, threat, finding and owner a risk names must be the tenant's. */
  private checkRiskReferences(tx: TenantDb, values: RiskValues) {
    return this.checkReferences([
      ['asset', values.assetId, (id) => this.repo.assetExists(tx, id), MESSAGES.assetUnknown],
      ['threat', values.threatId, (id) => this.repo.threatExists(tx, id), MESSAGES.threatUnknown],
      [
        'vulnerability',
        values.vulnerabilityId,
        (id) => this.repo.vulnerabilityExists(tx, id),
        MESSAGES.vulnerabilityUnknown,
      ],
      ['owner', values.ownerId, (id) => this.repo.isTenantMember(tx, id), MESSAGES.userUnknown],
    ]);
  }

  /** Remediation plans: one per risk, whose targets and actions' progress give the risk its residual scores. */
  readonly plans: WorkKind<PlanRow, PlanValues, PlanFilters> = {
    objectType: 'remediation_plan',
    find: (tx, id) => this.repo.findPlan(tx, id),
    page: (tx, readable, filters, _today, page) => this.repo.pagePlans(tx, readable, filters, page),
    parentOf: (plan) => plan.riskId,
    create: async (tx, actor, riskId, values) => {
      const risk = await this.repo.findRisk(tx, riskId);
      if (!risk) throw invalid('risk', MESSAGES.riskUnknown);
      await this.named(tx, actor, risk.projectId, 'risk', MESSAGES.riskUnknown);
      if (risk.planId !== null) throw planExists();
      checkTargets(risk, values.targetLikelihood!, values.targetImpact!);
      await this.member('owner', tx, values.ownerId);
      const id = await this.repo
        .createPlan(tx, risk.id, {
          ...values,
          title: values.title!,
          targetLikelihood: values.targetLikelihood!,
          targetImpact: values.targetImpact!,
        })
        .catch((err: unknown) => {
          // Two plans created at once for the same risk: the unique key decides, the loser gets the same 409.
          throw uniqueViolation(err) !== undefined ? planExists() : err;
        });
      await this.repo.refreshResidual(tx, risk.id);
      return (await this.repo.findPlan(tx, id))!;
    },
    update: async (tx, current, values) => {
      const risk = { likelihood: current.riskLikelihood, impact: current.riskImpact };
      checkTargets(
        risk,
        values.targetLikelihood ?? current.targetLikelihood,
        values.targetImpact ?? current.targetImpact,
      );
      await this.member('owner', tx, values.ownerId);
      await this.repo.updatePlan(tx, current.id, values);
      await this.repo.refreshResidual(tx, current.riskId);
      return (await this.repo.findPlan(tx, current.id))!;
    },
    remove: async (tx, plan) => {
      if (!(await this.repo.removePlan(tx, plan.id))) return false;
      // Without a plan the residual scores are the initial ones again.
      await this.repo.refreshResidual(tx, plan.riskId);
      return true;
    },
  };

  /**
   * Corrective actions: their status follows their progress, and their progress moves the plan's and the risk's
   * residual scores.
   */
  readonly actions: WorkKind<ActionRow, ActionValues, ActionFilters> = {
    objectType: 'corrective_action',
    find: (tx, id) => this.repo.findAction(tx, id),
    page: (tx, readable, filters, today, page) => this.repo.pageActions(tx, readable, filters, today, page),
    parentOf: (action) => action.planId,
    assigned: 'action_assigned',
    create: async (tx, actor, planId, values) => {
      const plan = await this.repo.findPlan(tx, planId);
      if (!plan) throw invalid('remediation_plan', MESSAGES.planUnknown);
      await this.named(tx, actor, plan.projectId, 'remediation_plan', MESSAGES.planUnknown);
      return this.insertAction(tx, plan, values);
    },
    /** A progress change moves completed_at, the plan's progress and the risk's residual. */
    update: async (tx, current, values) => {
      await this.member('assignee', tx, values.assigneeId);
      const changes = { ...values };
      if (values.progress !== undefined) {
        changes.completedAt = completedAt(values.progress, current.completedAt, new Date());
      }
      await this.repo.updateAction(tx, current.id, changes);
      if (values.progress !== undefined && values.progress !== current.progress) {
        await this.repo.refreshResidual(tx, current.riskId);
      }
      return (await this.repo.findAction(tx, current.id))!;
    },
    remove: async (tx, action) => {
      if (!(await this.repo.removeAction(tx, action.id))) return false;
      await this.repo.refreshResidual(tx, action.riskId);
      return true;
    },
  };

  /** Inserts an action in `plan`; the plan's progress and the risk's residual follow. */
  private async insertAction(tx: TenantDb, plan: PlanRow, values: ActionValues) {
    await this.member('assignee', tx, values.assigneeId);
    const progress = values.progress ?? 0;
    const id = await this.repo.createAction(tx, plan.id, {
      ...values,
      title: values.title!,
      progress,
      completedAt: completedAt(progress, null, new Date()),
    });
    await this.repo.refreshResidual(tx, plan.riskId);
    return (await this.repo.findAction(tx, id))!;
  }

  /** A project's tasks: their status follows their progress unless set (domain/project-rules.ts). */
  readonly tasks: WorkKind<TaskRow, TaskValues, TaskFilters> = {
    objectType: 'task',
    find: (tx, id) => this.repo.findTask(tx, id),
    page: (tx, readable, filters, today, page) => this.repo.pageTasks(tx, readable, filters, today, page),
    parentOf: (task) => task.projectId,
    assigned: 'task_assigned',
    create: async (tx, actor, projectId, values) => {
      const state = this.taskState({ status: 'TODO', progress: 0, completedAt: null }, values);
      await this.named(tx, actor, projectId, 'project', MESSAGES.projectUnknown);
      await this.member('assignee', tx, values.assigneeId);
      return this.repo.createTask(tx, projectId, { ...values, ...state, title: values.title! });
    },
    update: async (tx, current, values) => {
      await this.member('assignee', tx, values.assigneeId);
      return (await this.repo.updateTask(tx, current.id, { ...values, ...this.taskState(current, values) }))!;
    },
    remove: (tx, task) => this.repo.removeTask(tx, task.id),
  };

  private taskState(current: Parameters<typeof taskState>[0], values: TaskValues) {
    const state = taskState(current, values, new Date());
    if (!state) throw invalid('status', MESSAGES.doneContradiction);
    return state;
  }

  /** An object of `kind` through its project's gate. */
  load<R extends WorkRow, V, F>(tx: TenantDb, actor: Actor, kind: WorkKind<R, V, F>, id: number, need: ProjectNeed) {
    return this.gate.loader(kind.find)(tx, actor, id, need);
  }

  /** Appends « Risque « … » créé » (and the like) to the project's activity. */
  private async note(
    tx: TenantDb,
    journal: ProjectJournal,
    objectType: keyof typeof OBJECTS,
    action: keyof typeof VERBS | 'progress',
    row: WorkRow,
  ) {
    const [noun, e] = OBJECTS[objectType];
    const subject = `${noun} « ${row.title} »`;
    const summary =
      action === 'progress' ? `${subject} : progression ${row.progress} %` : `${subject} ${VERBS[action]}${e}`;
    await journal.record(tx, { projectId: row.projectId, action, objectType, objectId: row.id, summary });
  }

  /** A new object of `kind` under `parent`, with its activity; its assignee is told. */
  async create<R extends WorkRow, V, F>(
    tx: TenantDb,
    journal: ProjectJournal,
    kind: WorkKind<R, V, F>,
    parent: number,
    values: V,
  ): Promise<R> {
    const row = await kind.create(tx, journal.actor, parent, values);
    await this.note(tx, journal, kind.objectType, 'created', row);
    if (kind.assigned) await journal.assigned(tx, kind.assigned, row);
    return row;
  }

  /**
   * PUT, PATCH and update_progress: the gate, the parent kept (`fixed`), the kind's checks, the activity, and the
   * assignee told when it changed.
   */
  async update<R extends WorkRow, V, F>(
    tx: TenantDb,
    journal: ProjectJournal,
    kind: WorkKind<R, V, F>,
    id: number,
    sent: { parent?: number | undefined; values: V },
    fixed: Fixed,
    progress = false,
  ): Promise<R> {
    const current = await this.load(tx, journal.actor, kind, id, 'edit');
    if (sent.parent !== undefined && sent.parent !== kind.parentOf(current)) throw invalid(fixed.key, fixed.fixed);
    const row = await kind.update(tx, current, sent.values);
    await this.note(tx, journal, kind.objectType, progress ? 'progress' : 'updated', row);
    if (kind.assigned && row.assigneeId !== current.assigneeId) await journal.assigned(tx, kind.assigned, row);
    return row;
  }

  async remove<R extends WorkRow, V, F>(tx: TenantDb, journal: ProjectJournal, kind: WorkKind<R, V, F>, id: number) {
    const row = await this.load(tx, journal.actor, kind, id, 'edit');
    if (!(await kind.remove(tx, row))) throw notFound();
    await this.note(tx, journal, kind.objectType, 'deleted', row);
  }

  /** A risk's remediation plan (404 without one). */
  async planOfRisk(tx: TenantDb, actor: Actor, riskId: number): Promise<PlanRow> {
    await this.load(tx, actor, this.risks, riskId, 'read');
    const plan = await this.repo.findPlanOfRisk(tx, riskId);
    if (!plan) throw notFound();
    return plan;
  }

  /** A plan's own actions. */
  async actionsOfPlan(tx: TenantDb, actor: Actor, planId: number): Promise<ActionRow[]> {
    await this.load(tx, actor, this.plans, planId, 'read');
    return this.repo.actionsOfPlan(tx, planId);
  }

  /** A new action in a plan the caller may edit, with its activity; its assignee is told. */
  async addAction(tx: TenantDb, journal: ProjectJournal, planId: number, values: ActionValues): Promise<ActionRow> {
    const plan = await this.load(tx, journal.actor, this.plans, planId, 'edit');
    const row = await this.insertAction(tx, plan, values);
    await this.note(tx, journal, 'corrective_action', 'created', row);
    await journal.assigned(tx, 'action_assigned', row);
    return row;
  }
}
