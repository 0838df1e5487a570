/**
 * /api/projects/ bodies and queries (docs/api-projects.md "Projects"): a project's fields, its team members, the
 * list's filters, with their French messages.
 */
import { PROJECT_STATUS_LABELS } from '../../../../contract/projects.ts';
import { charCount } from '../../../../contract/text.ts';
import {
  PROJECT_PRIORITIES,
  PROJECT_STATUSES,
  TEAM_ROLES,
  type ProjectStatus,
  type TeamRole,
} from '../../domain/project-vocabulary.ts';
import { canChangeStatus } from '../../domain/project-rules.ts';
import { FieldErrors } from '../../domain/errors.ts';
import { ProjectSchema } from '../../presenters/project.ts';
import type { ProjectRecord } from '../../repositories/project-access.ts';
import { PROJECT_ORDERINGS, type ProjectOrderField, type ProjectValues } from '../../repositories/projects.ts';
import { ListQuery, OrNull as orNull, type Static, Type, WriteBody as writeBody } from '../common.ts';
import { parseId, parseOrdering, parsePaging, parseText, type RawQuery } from '../query.ts';
import { choiceOf, choices, PAGE_SIZE, parseChoices, type Choices } from './choices.ts';

const MAX_NAME = 200;
const MAX_DESCRIPTION = 20_000;
const MAX_USER_ID = 2_147_483_647;

const STATUSES = choices('Statut', PROJECT_STATUSES);
const PRIORITIES = choices('Priorité', PROJECT_PRIORITIES);
const ROLES = choices('Rôle', TEAM_ROLES);

const MESSAGES = {
  nameRequired: 'Le nom du projet est requis.',
  nameTooLong: `Le nom ne doit pas dépasser ${MAX_NAME} caractères.`,
  descriptionTooLong: `La description ne doit pas dépasser ${MAX_DESCRIPTION} caractères.`,
  transition: (from: ProjectStatus, to: ProjectStatus) =>
    `Changement de statut impossible : « ${PROJECT_STATUS_LABELS[from]} » (${from}) → « ${PROJECT_STATUS_LABELS[to]} » (${to}).`,
  date: 'Date invalide : le format attendu est AAAA-MM-JJ.',
  deadlineBeforeStart: 'L’échéance ne peut pas précéder la date de début.',
  ownerOnCreate: 'Le créateur du projet en devient le propriétaire ; le propriétaire se change ensuite.',
  ownerUnknown: 'Cet utilisateur n’est pas membre de l’organisation.',
  userRequired: 'L’utilisateur est requis.',
  userInvalid: 'Identifiant d’utilisateur invalide : un entier positif est attendu.',
  userUnknown: 'Cet utilisateur n’est pas membre de l’organisation.',
  ownerStaysAdmin: 'Le propriétaire du projet reste administrateur (ADMIN) de l’équipe.',
  ownerNotRemovable: 'Le propriétaire du projet ne peut pas être retiré de l’équipe.',
  notOnTeam: 'Cet utilisateur ne fait pas partie de l’équipe du projet.',
} as const;
export { MESSAGES as PROJECT_MESSAGES };

export const ListProjectsQuery = ListQuery({
  status: `Statuts, séparés par des virgules : ${PROJECT_STATUSES.join(', ')}`,
  priority: `Priorités, séparées par des virgules : ${PROJECT_PRIORITIES.join(', ')}`,
  text: 'Recherche dans le nom et la description',
  ordering: `Tri : ${PROJECT_ORDERINGS.join(', ')} (préfixe - pour décroissant)`,
});

const day = Type.Optional(orNull<string>('string', { maxLength: 64, errorMessage: MESSAGES.date }));
/** A Project's writable fields: types and sizes by the schema; trimming, case, dates and messages by `validateProject`. */
export const projectFields = {
  name: Type.Optional(Type.String({ maxLength: 4096 })),
  description: Type.Optional(orNull<string>('string', { maxLength: 100_000 })),
  status: STATUSES.field,
  priority: PRIORITIES.field,
  start_date: day,
  deadline: day,
  is_active: Type.Optional(Type.Boolean()),
  owner_id: Type.Optional(orNull<number>('integer')),
};
export const ProjectBody = writeBody(ProjectSchema, projectFields);
type ProjectBody = Static<typeof ProjectBody>;

/** `{user_id, role?}`: the values are checked in code, so a missing user or a wrong type gets a French message. */
export const MemberBody = Type.Unsafe<{ user_id?: unknown; role?: unknown } | null>({
  type: ['object', 'null'],
  properties: {
    user_id: { description: 'Identifiant de l’utilisateur (entier, ou texte de chiffres)' },
    role: { description: `Rôle dans l’équipe : ${TEAM_ROLES.join(', ')} (MEMBER par défaut)` },
  },
});
type MemberBody = Static<typeof MemberBody>;

/** The list's paging, filters and ordering (newest first by default). */
export function readProjectQuery(query: RawQuery) {
  const errors = new FieldErrors();
  // A list of nothing (`status=,`) filters nothing.
  const listed = <T extends string>(key: string, list: Choices<T>) =>
    query[key]?.split(',').some((v) => v.trim() !== '') ? parseChoices(errors, query, key, list) : undefined;
  const paging = parsePaging(errors, query, PAGE_SIZE);
  const filters = { statuses: listed('status', STATUSES), priorities: listed('priority', PRIORITIES) };
  const text = parseText(errors, query, 'text');
  const ordering = parseOrdering<ProjectOrderField>(errors, query.ordering, PROJECT_ORDERINGS, {
    field: 'created_at',
    desc: true,
  });
  errors.throwIfAny();
  return { paging, filters: { ...filters, text }, ordering };
}

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

/**
 * Field checks with French messages. `current` is the project being changed (undefined on creation); PUT requires
 * the name, and like PATCH leaves absent fields as they are.
 */
export function validateProject(
  body: ProjectBody,
  current: ProjectRecord | undefined,
  requireName: boolean,
): ProjectValues {
  const errors = new FieldErrors();
  const out: ProjectValues = {};
  const name = body.name?.trim();
  if (name === undefined || name === '') {
    if (requireName || name === '') errors.add('name', MESSAGES.nameRequired);
  } else if (charCount(name) > MAX_NAME) errors.add('name', MESSAGES.nameTooLong);
  else out.name = name;
  if (body.description !== undefined) {
    const description = body.description?.trim() ?? '';
    if (charCount(description) > MAX_DESCRIPTION) errors.add('description', MESSAGES.descriptionTooLong);
    else out.description = description;
  }
  const status = choiceOf(errors, 'status', body.status, STATUSES);
  if (status !== undefined) {
    if (current && !canChangeStatus(current.status, status)) {
      errors.add('status', MESSAGES.transition(current.status, status));
    } else out.status = status;
  }
  const priority = choiceOf(errors, 'priority', body.priority, PRIORITIES);
  if (priority !== undefined) out.priority = priority;
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

/** add_team_member: the user, and the role (MEMBER when absent). */
export function readMember(body: MemberBody): { userId: number; role: TeamRole } {
  const errors = new FieldErrors();
  const userId = parseUserId(errors, body?.user_id);
  let role: TeamRole = 'MEMBER';
  if (body?.role !== undefined && body?.role !== null) {
    const raw = typeof body.role === 'string' ? body.role.trim().toUpperCase() : '';
    if (ROLES.has(raw)) role = raw;
    else errors.add('role', ROLES.message);
  }
  errors.throwIfAny();
  return { userId: userId!, role };
}

/** remove_team_member: the user, who may not be the project's owner. */
export function readRemovedMember(body: MemberBody, ownerId: number | null): number {
  const errors = new FieldErrors();
  const userId = parseUserId(errors, body?.user_id);
  if (userId !== undefined && userId === ownerId) errors.add('user_id', MESSAGES.ownerNotRemovable);
  errors.throwIfAny();
  return userId!;
}
