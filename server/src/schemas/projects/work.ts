/**
 * The inputs of risks, remediation plans, corrective actions and tasks (docs/api-projects.md): each kind's body,
 * built from one table of fields that gives both its schema (types, sizes and each field's French message) and
 * its reading (trimming, case, fields required on full writes); its list's query and filters; the messages.
 */
import { FieldErrors } from '../../domain/errors.ts';
import { charCount } from '../../../../contract/text.ts';
import {
  PLAN_STATUSES,
  PROJECT_PRIORITIES,
  PROJECT_TASK_STATUSES,
  RISK_STATUSES,
  RISK_TREATMENTS,
} from '../../domain/project-vocabulary.ts';
import { PROGRESS_MESSAGE, RISK_LEVELS } from '../../domain/risk-scoring.ts';
import {
  CorrectiveActionSchema,
  ProjectTaskSchema,
  RemediationPlanSchema,
  RiskSchema,
} from '../../presenters/project-work.ts';
import type {
  ActionFilters,
  ActionValues,
  PlanFilters,
  PlanValues,
  RiskFilters,
  RiskValues,
  TaskFilters,
  TaskValues,
} from '../../repositories/project-work.ts';
import { ListQuery, OrNull as nullable, type TSchema, Type, WriteBody as writeBody } from '../common.ts';
import { parseBoolean, parseQueryId, type RawQuery } from '../query.ts';
import { choiceOf, choices, parseChoices, type Choices } from './choices.ts';
import { dayOrNull } from '../fields.ts';

const MAX_TITLE = 300;
const MAX_TEXT = 20_000;

export const WORK_MESSAGES = {
  titleRequired: 'Le titre est requis.',
  titleTooLong: `Le titre ne doit pas dépasser ${MAX_TITLE} caractères.`,
  text: `Texte invalide : au plus ${MAX_TEXT} caractères.`,
  nul: 'Le texte ne doit pas contenir de caractère nul.',
  id: 'Identifiant invalide : un entier positif est attendu.',
  date: 'Date invalide : format AAAA-MM-JJ attendu.',
  projectRequired: 'Le projet est requis.',
  projectUnknown: 'Projet introuvable.',
  projectFixed: 'Le projet ne peut pas être changé.',
  userUnknown: 'Utilisateur introuvable dans cette organisation.',
  // Risks
  likelihoodBelowTarget: (n: number) =>
    `La vraisemblance ne peut pas être inférieure à la vraisemblance cible du plan de remédiation (${n}).`,
  impactBelowTarget: (n: number) =>
    `La gravité ne peut pas être inférieure à la gravité cible du plan de remédiation (${n}).`,
  assetUnknown: 'Actif introuvable.',
  threatUnknown: 'Menace introuvable.',
  vulnerabilityUnknown: 'Vulnérabilité introuvable.',
  // Remediation plans
  targetAboveLikelihood: (n: number) =>
    `La vraisemblance cible ne peut pas dépasser la vraisemblance initiale du risque (${n}).`,
  targetAboveImpact: (n: number) => `La gravité cible ne peut pas dépasser la gravité initiale du risque (${n}).`,
  riskRequired: 'Le risque est requis.',
  riskUnknown: 'Risque introuvable.',
  riskFixed: 'Le risque d’un plan de remédiation ne peut pas être changé.',
  planExists: 'Ce risque a déjà un plan de remédiation.',
  // Corrective actions
  planRequired: 'Le plan de remédiation est requis.',
  planUnknown: 'Plan de remédiation introuvable.',
  planFixed: 'Le plan de remédiation d’une action ne peut pas être changé.',
  // Tasks
  doneContradiction: 'Statut et progression se contredisent : une tâche terminée (DONE) est à 100 %, et inversement.',
} as const;
const MESSAGES = WORK_MESSAGES;

// Types and sizes by the schema, with each field's French message; trimming, case, required fields in the
// reading, the rules between fields and rows in services/projects/work.ts.
const NO_NUL = '^[^\\u0000]*$';
/** Optional, and null allowed as one JSON type list (fields.ts), so that a refusal carries one message. */
const orNull = <T>(type: 'string' | 'integer', options: Record<string, unknown>) =>
  Type.Optional(nullable<T>(type, options));
const progress = Type.Integer({ minimum: 0, maximum: 100, errorMessage: PROGRESS_MESSAGE });
export const ProgressBody = Type.Object({ progress }, { additionalProperties: false });

/** One field of a work body: its schema, the repository's name of its value, and its reading (the value as sent). */
interface WorkField {
  schema: TSchema;
  /** The body's key when absent. */
  to?: string;
  read?: (errors: FieldErrors, key: string, raw: unknown, full: boolean) => unknown;
}

const refOrNull = orNull<number>('integer', {
  minimum: 1,
  maximum: Number.MAX_SAFE_INTEGER,
  errorMessage: MESSAGES.id,
});
/** A reference that null clears (asset, owner, assignee…). */
const ref = (to: string): WorkField => ({ schema: refOrNull, to });

/** Free text, trimmed; null clears it to ''. PostgreSQL text cannot hold NUL: refused here, not by the database. */
const text = (to: string): WorkField => ({
  schema: orNull<string>('string', {
    maxLength: MAX_TEXT,
    pattern: NO_NUL,
    errorMessage: { default: MESSAGES.text, pattern: MESSAGES.nul },
  }),
  to,
  read: (_errors, _key, raw) => (raw === null ? '' : (raw as string | undefined)?.trim()),
});

/** A real calendar day written YYYY-MM-DD (2025-02-30 is refused), or null. */
const date = (to: string): WorkField => ({ schema: dayOrNull(MESSAGES.date), to });

/** A 1–4 score of the matrix (`label`: « La vraisemblance »…), required on full writes (POST, PUT). */
const score = (to: string, label: string): WorkField => ({
  schema: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 4, errorMessage: `${label} doit être un entier entre 1 et 4.` }),
  ),
  to,
  read: (errors, key, raw, full) => {
    if (raw === undefined && full) errors.add(key, `${label} est requise.`);
    return raw;
  },
});

/** A value of a list (status, treatment…), case-insensitive. */
const choice = <T extends string>(list: Choices<T>): WorkField => ({
  schema: list.field,
  read: (errors, key, raw) => choiceOf(errors, key, raw as string | undefined, list),
});

/** The title every kind has: trimmed, required on full writes, at most MAX_TITLE characters. */
const title: WorkField = {
  schema: Type.Optional(
    Type.String({
      maxLength: 1000,
      pattern: NO_NUL,
      errorMessage: { type: MESSAGES.titleRequired, maxLength: MESSAGES.titleTooLong, pattern: MESSAGES.nul },
    }),
  ),
  to: 'title',
  read: (errors, key, raw, full) => {
    if (raw === undefined && !full) return undefined;
    const value = ((raw as string | undefined) ?? '').trim();
    if (value === '') errors.add(key, MESSAGES.titleRequired);
    else if (charCount(value) > MAX_TITLE) errors.add(key, MESSAGES.titleTooLong);
    return value;
  },
};

export type Read<V> = (body: unknown, full: boolean, creating?: boolean) => { parent: number | undefined; values: V };

/**
 * A kind's body and its reading, shared by POST, PUT and PATCH: the parent (`parent`, required on creation where
 * null counts as missing; a change never moves it, see `fixed`), the title and description, then the kind's own
 * `fields`. The reading drops what was not sent, so that an update sets only that; the body accepts the other
 * fields of the reply, ignored (WriteBody).
 */
function workBody<V>(
  reply: { properties: object },
  parent: string,
  messages: { required: string; fixed: string },
  own: Record<string, WorkField>,
) {
  const fields: Record<string, WorkField> = { title, description: text('description'), ...own };
  const schemas = Object.entries(fields).map(([key, f]) => [key, f.schema] as const);
  const body = writeBody(reply, { [parent]: refOrNull, ...Object.fromEntries(schemas) });

  const read: Read<V> = (sent, full, creating = false) => {
    const raw = sent as Record<string, unknown>;
    const errors = new FieldErrors();
    const parentId = raw[parent] as number | null | undefined;
    if (parentId === null || (parentId === undefined && creating)) {
      errors.add(parent, creating ? messages.required : MESSAGES.id);
    }
    const values: Record<string, unknown> = {};
    for (const [key, f] of Object.entries(fields)) {
      const value = f.read ? f.read(errors, key, raw[key], full) : raw[key];
      if (value !== undefined) values[f.to ?? key] = value;
    }
    errors.throwIfAny();
    return { parent: parentId ?? undefined, values: values as V };
  };
  return { body, read, parent: { key: parent, fixed: messages.fixed } };
}

const RISK_STATUS = choices('Statut', RISK_STATUSES);
const TREATMENTS = choices('Traitement', RISK_TREATMENTS);
const LEVELS = choices('Niveau', RISK_LEVELS);
const PLAN_STATUS = choices('Statut', PLAN_STATUSES);
const TASK_STATUS = choices('Statut', PROJECT_TASK_STATUSES);
const PRIORITIES = choices('Priorité', PROJECT_PRIORITIES);
const project = { required: MESSAGES.projectRequired, fixed: MESSAGES.projectFixed };

/** Risks, scored on the 4 × 4 matrix. */
export const RISK_INPUT = {
  ...workBody<RiskValues>(RiskSchema, 'project', project, {
    scenario: text('scenario'),
    asset: ref('assetId'),
    threat: ref('threatId'),
    vulnerability: ref('vulnerabilityId'),
    likelihood: score('likelihood', 'La vraisemblance'),
    impact: score('impact', 'La gravité'),
    treatment: choice(TREATMENTS),
    status: choice(RISK_STATUS),
    owner: ref('ownerId'),
  }),
  query: ListQuery({
    project: 'Identifiant du projet',
    status: `Statuts séparés par des virgules : ${RISK_STATUSES.join(', ')}`,
    level: `Niveaux résiduels séparés par des virgules : ${RISK_LEVELS.join(', ')}`,
    treatment: `Traitements séparés par des virgules : ${RISK_TREATMENTS.join(', ')}`,
  }),
  filters: (errors: FieldErrors, q: RawQuery): RiskFilters => ({
    projectId: parseQueryId(errors, q, 'project'),
    statuses: parseChoices(errors, q, 'status', RISK_STATUS),
    levels: parseChoices(errors, q, 'level', LEVELS, (v) => v.toLowerCase()),
    treatments: parseChoices(errors, q, 'treatment', TREATMENTS),
  }),
};

/** Remediation plans: one per risk. */
export const PLAN_INPUT = {
  ...workBody<PlanValues>(
    RemediationPlanSchema,
    'risk',
    {
      required: MESSAGES.riskRequired,
      fixed: MESSAGES.riskFixed,
    },
    {
      status: choice(PLAN_STATUS),
      target_likelihood: score('targetLikelihood', 'La vraisemblance cible'),
      target_impact: score('targetImpact', 'La gravité cible'),
      owner: ref('ownerId'),
      due_date: date('dueDate'),
    },
  ),
  query: ListQuery({ project: 'Identifiant du projet', risk: 'Identifiant du risque' }),
  filters: (errors: FieldErrors, q: RawQuery): PlanFilters => ({
    projectId: parseQueryId(errors, q, 'project'),
    riskId: parseQueryId(errors, q, 'risk'),
  }),
};

/** Corrective actions of a remediation plan. */
export const ACTION_INPUT = {
  ...workBody<ActionValues>(
    CorrectiveActionSchema,
    'remediation_plan',
    {
      required: MESSAGES.planRequired,
      fixed: MESSAGES.planFixed,
    },
    {
      assignee: ref('assigneeId'),
      due_date: date('dueDate'),
      progress: { schema: Type.Optional(progress) },
    },
  ),
  query: ListQuery({
    project: 'Identifiant du projet',
    plan: 'Identifiant du plan de remédiation',
    overdue: 'En retard : true ou false',
  }),
  filters: (errors: FieldErrors, q: RawQuery): ActionFilters => ({
    projectId: parseQueryId(errors, q, 'project'),
    planId: parseQueryId(errors, q, 'plan'),
    overdue: parseBoolean(errors, q, 'overdue'),
  }),
};

/** A project's tasks. */
export const TASK_INPUT = {
  ...workBody<TaskValues>(ProjectTaskSchema, 'project', project, {
    status: choice(TASK_STATUS),
    priority: choice(PRIORITIES),
    assignee: ref('assigneeId'),
    due_date: date('dueDate'),
    progress: { schema: Type.Optional(progress) },
  }),
  query: ListQuery({
    project: 'Identifiant du projet',
    status: `Statuts séparés par des virgules : ${PROJECT_TASK_STATUSES.join(', ')}`,
    assignee: 'Identifiant de l’utilisateur assigné',
    overdue: 'En retard : true ou false',
  }),
  filters: (errors: FieldErrors, q: RawQuery): TaskFilters => ({
    projectId: parseQueryId(errors, q, 'project'),
    statuses: parseChoices(errors, q, 'status', TASK_STATUS),
    assigneeId: parseQueryId(errors, q, 'assignee'),
    overdue: parseBoolean(errors, q, 'overdue'),
  }),
};
