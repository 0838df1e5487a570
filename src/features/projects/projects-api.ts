import {
  ApiError,
  apiRequestWithOrigin,
  TIMEOUTS,
  type ApiErrorKind,
  type DataOrigin,
  type RequestOptions,
} from '../../lib/api-client.ts';
import { streamDownload, type DownloadProgress, type DownloadResult } from '../../lib/download.ts';
import { UploadAbortedError, uploadForm, type UploadProgress } from '../../lib/upload.ts';
import { currentTenantId, refreshTokens, session } from '../../lib/auth/session.ts';

/**
 * The typed client of docs/api-projects.md. Every call goes through api-client (headers, 401 refresh, service
 * worker cache and write queue). Errors follow spec §8 "Projects": a connection message when nothing answered, an
 * "unexpected error" message naming the call otherwise, the create-specific messages, and 401/403 passed on
 * untouched. A failing list resolves with an empty list and its error (see ListResult).
 */

export type Id = number | string;
export type ProjectStatus = 'PLANNED' | 'PLANNING' | 'IN_PROGRESS' | 'ON_HOLD' | 'COMPLETED' | 'CANCELLED';
export type ProjectPriority = 'LOW' | 'MEDIUM' | 'HIGH' | 'CRITICAL';
export type ProjectAccess = 'read' | 'edit' | 'manage';
export type TeamRole = 'ADMIN' | 'MEMBER' | 'VIEWER';
export type RiskLevel = 'low' | 'medium' | 'high' | 'critical';
export type RiskTreatment = 'REDUCE' | 'ACCEPT' | 'SHARE' | 'AVOID';
export type RiskStatus = 'IDENTIFIED' | 'ASSESSED' | 'IN_TREATMENT' | 'MONITORED' | 'CLOSED';
export type PlanStatus = 'DRAFT' | 'IN_PROGRESS' | 'COMPLETED' | 'CANCELLED';
export type WorkStatus = 'TODO' | 'IN_PROGRESS' | 'BLOCKED' | 'DONE';
export type DocumentType = 'REPORT' | 'CONTRACT' | 'EVIDENCE' | 'PROCEDURE' | 'OTHER';

export interface TeamMember {
  id: Id;
  name: string;
  email: string;
  role: TeamRole;
  is_owner: boolean;
  last_active: string | null;
}

export interface ProjectOwner {
  id: Id;
  name?: string;
  email?: string;
  /** Older backends (and the sample data) send the username instead of the name. */
  username?: string;
}

export interface Project {
  id: Id;
  name: string;
  description: string | null;
  status: ProjectStatus;
  priority: ProjectPriority;
  completion_percentage: number;
  start_date: string | null;
  deadline: string | null;
  created_at: string;
  updated_at: string;
  assets: Id[];
  vulnerabilities: Id[];
  tasks: Id[];
  team_members: TeamMember[];
  owner: ProjectOwner | null;
  is_active: boolean;
  /** The caller's access; absent from other backends and from sample data (read only then). */
  access?: ProjectAccess;
}

export interface ProjectInput {
  name?: string;
  description?: string;
  status?: ProjectStatus;
  priority?: ProjectPriority;
  start_date?: string | null;
  deadline?: string | null;
  is_active?: boolean;
  owner_id?: Id;
}

export interface ActivityEntry {
  id: Id;
  action: string;
  object_type: string;
  object_id: Id | null;
  summary: string;
  user: { id: Id; name?: string; username?: string } | string | null;
  created_at: string;
}

export interface OverdueItem {
  id: Id;
  title: string;
  due_date: string | null;
  progress: number;
  plan_id?: Id;
}

export interface ProjectDashboard {
  project: Pick<Project, 'id' | 'name' | 'status' | 'priority' | 'completion_percentage' | 'deadline'>;
  counts: {
    assets: number;
    vulnerabilities: number;
    open_vulnerabilities: number;
    threats: number;
    active_threats: number;
    risks: number;
    tasks: number;
    corrective_actions: number;
    documents: number;
    team_members: number;
  };
  vulnerabilities_by_severity: { critical: number; high: number; medium: number; low: number; info: number };
  tasks_by_status: Record<WorkStatus, number>;
  risks_by_level: Record<RiskLevel, number>;
  /** risk_matrix[impact - 1][likelihood - 1]: open risks by residual scores. */
  risk_matrix: number[][];
  overdue: { tasks: OverdueItem[]; corrective_actions: OverdueItem[] };
  recent_activity: ActivityEntry[];
}

export interface Risk {
  id: Id;
  project: Id;
  title: string;
  description: string;
  scenario: string;
  asset: Id | null;
  threat: Id | null;
  vulnerability: Id | null;
  likelihood: number;
  impact: number;
  initial_score: number;
  initial_level: RiskLevel;
  residual_likelihood: number;
  residual_impact: number;
  residual_score: number;
  residual_level: RiskLevel;
  treatment: RiskTreatment;
  status: RiskStatus;
  owner: Id | null;
  remediation_plan: Id | null;
  created_at: string;
  updated_at: string;
}

export interface RiskInput {
  project?: Id;
  title: string;
  description: string;
  scenario: string;
  likelihood: number;
  impact: number;
  treatment: RiskTreatment;
  status: RiskStatus;
  /** The risk's owner (a tenant member), or null. */
  owner?: Id | null;
}

export interface RemediationPlan {
  id: Id;
  risk: Id;
  project: Id;
  title: string;
  description: string;
  status: PlanStatus;
  target_likelihood: number;
  target_impact: number;
  owner: Id | null;
  due_date: string | null;
  progress: number;
  actions_count: number;
  created_at: string;
  updated_at: string;
}

export interface PlanInput {
  risk: Id;
  title: string;
  description?: string;
  target_likelihood: number;
  target_impact: number;
  due_date?: string | null;
}

/** A plan's editable fields (PATCH sends only those that changed; the risk cannot change). */
export interface PlanUpdate {
  title?: string;
  description?: string;
  status?: PlanStatus;
  target_likelihood?: number;
  target_impact?: number;
  owner?: Id | null;
  due_date?: string | null;
}

export interface CorrectiveAction {
  id: Id;
  remediation_plan: Id;
  project: Id;
  title: string;
  description: string;
  assignee: Id | null;
  due_date: string | null;
  progress: number;
  status: 'TODO' | 'IN_PROGRESS' | 'DONE';
  completed_at: string | null;
  is_overdue: boolean;
  created_at: string;
  updated_at: string;
}

export interface ActionInput {
  title: string;
  description?: string;
  due_date?: string | null;
}

/** A corrective action's editable fields (PATCH sends only those that changed). */
export interface ActionUpdate {
  title?: string;
  description?: string;
  assignee?: Id | null;
  due_date?: string | null;
}

export interface ProjectTask {
  id: Id;
  project: Id;
  title: string;
  description: string;
  status: WorkStatus;
  priority: ProjectPriority;
  assignee: Id | null;
  due_date: string | null;
  progress: number;
  completed_at: string | null;
  is_overdue: boolean;
  created_at: string;
  updated_at: string;
}

export interface TaskInput {
  project?: Id;
  title?: string;
  description?: string;
  status?: WorkStatus;
  priority?: ProjectPriority;
  due_date?: string | null;
  /** A tenant member, or null for nobody. */
  assignee?: Id | null;
}

export interface ProjectAsset {
  id: Id;
  project: Id;
  asset_id: Id;
  name: string;
  asset_type: string;
  hostname: string | null;
  ip_address: string | null;
  operating_system: string | null;
  criticality: string;
  owner: string | null;
  description: string;
  tags: string[];
  vulnerabilities_count: number;
  created_at: string;
  updated_at: string;
}

export interface ProjectVulnerability {
  id: Id;
  project: Id;
  vulnerability_id: Id;
  title: string;
  cve_id: string | null;
  severity: string;
  cvss_score: number | null;
  kev?: boolean;
  epss_score?: number | null;
  asset: { id: Id; name: string } | null;
  is_resolved: boolean;
  resolved_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface ProjectThreat {
  id: Id;
  project: Id;
  threat_id: Id;
  title: string;
  severity: string;
  status: string;
  is_mitigated: boolean;
  mitigated_at?: string | null;
  threat_type?: string;
  created_at: string;
  updated_at: string;
}

export interface ProjectDocument {
  id: Id;
  name: string;
  title: string;
  file: string;
  project: Id;
  description: string;
  document_type: DocumentType;
  file_size: number;
  file_type: string;
  sha256?: string;
  uploaded_by?: { id: Id; name?: string; username?: string } | Id | null;
  created_at: string;
  updated_at: string;
}

/** A user of the tenant, to pick a new team member. */
export interface TenantUser {
  id: Id;
  username: string;
  email: string;
  first_name?: string;
  last_name?: string;
}

export interface Paged<T> {
  count: number;
  next: string | null;
  previous: string | null;
  results: T[];
}

/** A list and where it came from; on failure, an empty list and the French error (spec §8). */
export interface ListResult<T> {
  data: Paged<T>;
  origin: DataOrigin;
  error: string | null;
}

/** A write's outcome: done (with the server's answer) or stored offline by the service worker. */
export type Written<T> = { queued: false; data: T } | { queued: true; data: null; message: string };

export const PROJECT_MESSAGES = {
  connection:
    "Erreur de connexion au backend Vigie. Merci de vérifier votre accès réseau ou de contacter l'administrateur.",
  unknownCause: 'Erreur inconnue.',
  createFailed: 'Erreur lors de la création du projet. Veuillez réessayer.',
  queued: 'Modification enregistrée hors ligne ; elle sera envoyée au retour du réseau.',
  notFound: 'Projet introuvable : il n’existe pas ou vous n’y avez pas accès dans cette organisation.',
  forbidden: 'Accès refusé : vous n’avez pas les droits pour consulter ce projet.',
} as const;

export function unexpectedMessage(what: string, cause?: string | null): string {
  const text = cause?.trim();
  return `Erreur inattendue lors de l'appel API ${what} : ${text ? text : PROJECT_MESSAGES.unknownCause}`;
}

/** A project call's error: the §8 message, and the server's status, body and `fields` kept for forms. */
export class ProjectApiError extends ApiError {
  constructor(status: number, message: string, data?: unknown, kind: ApiErrorKind = 'http') {
    super(status, message, data, kind);
    this.name = 'ProjectApiError';
  }
}

function detailOf(data: unknown): string | undefined {
  if (data && typeof data === 'object') {
    const d = data as Record<string, unknown>;
    for (const key of ['detail', 'message', 'error']) {
      const v = d[key];
      if (typeof v === 'string' && v.trim() !== '') return v;
    }
  }
  return undefined;
}

export function isAuthError(err: unknown): boolean {
  return err instanceof ApiError && (err.status === 401 || err.status === 403);
}

/**
 * Spec §8 "Projects": 401/403 and a cancelled upload pass unchanged; no answer (network, timeout) gives the
 * connection message; anything else "Erreur inattendue lors de l'appel API {what} : {cause}".
 */
export function projectError(err: unknown, what: string): ApiError {
  if (err instanceof UploadAbortedError) return err;
  if (err instanceof ProjectApiError) return err;
  if (isAuthError(err)) return err as ApiError;
  if (err instanceof ApiError) {
    if (err.status === 0 || err.kind !== 'http')
      return new ProjectApiError(0, PROJECT_MESSAGES.connection, err.data, err.kind);
    return new ProjectApiError(err.status, unexpectedMessage(what, detailOf(err.data) ?? err.message), err.data);
  }
  if (err instanceof TypeError) return new ProjectApiError(0, PROJECT_MESSAGES.connection, undefined, 'network');
  return new ProjectApiError(0, unexpectedMessage(what, err instanceof Error ? err.message : null));
}

/** Create (§8): 'Erreur: {detail}' from the server, else the generic create message. */
export function createError(err: unknown): ApiError {
  if (isAuthError(err)) return err as ApiError;
  if (err instanceof ApiError && (err.status === 0 || err.kind !== 'http'))
    return new ProjectApiError(0, PROJECT_MESSAGES.connection, err.data, err.kind);
  const detail = err instanceof ApiError ? detailOf(err.data) : undefined;
  return new ProjectApiError(
    err instanceof ApiError ? err.status : 0,
    detail ? `Erreur: ${detail}` : PROJECT_MESSAGES.createFailed,
    err instanceof ApiError ? err.data : undefined,
  );
}

export function emptyPage<T>(): Paged<T> {
  return { count: 0, next: null, previous: null, results: [] };
}

/** §3: a paged list, or a plain array. */
export function toPaged<T>(data: unknown): Paged<T> {
  if (Array.isArray(data)) return { count: data.length, next: null, previous: null, results: data as T[] };
  if (data && typeof data === 'object') {
    const d = data as Partial<Paged<T>>;
    const results = Array.isArray(d.results) ? d.results : [];
    return {
      count: typeof d.count === 'number' ? d.count : results.length,
      next: d.next ?? null,
      previous: d.previous ?? null,
      results,
    };
  }
  return emptyPage<T>();
}

type Query = Record<string, string | number | boolean | undefined>;

function cleanQuery(query: Query): Query {
  const q: Query = {};
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== '') q[k] = v;
  return q;
}

async function read<T>(
  what: string,
  path: string,
  opts: RequestOptions = {},
): Promise<{ data: T; origin: DataOrigin }> {
  try {
    return await apiRequestWithOrigin<T>(path, { timeoutMs: TIMEOUTS.project, allowForbidden: true, ...opts });
  } catch (err) {
    throw projectError(err, what);
  }
}

async function list<T>(what: string, path: string, query: Query, timeoutMs: number = TIMEOUTS.project) {
  try {
    const { data, origin } = await apiRequestWithOrigin<unknown>(path, {
      query: cleanQuery(query),
      timeoutMs,
      allowForbidden: true,
    });
    return { data: toPaged<T>(data), origin, error: null } satisfies ListResult<T>;
  } catch (err) {
    const e = projectError(err, what);
    if (isAuthError(e)) throw e;
    return { data: emptyPage<T>(), origin: { source: 'network' }, error: e.message } satisfies ListResult<T>;
  }
}

function written<T>(answer: { data: T; origin: DataOrigin }): Written<T> {
  if (answer.origin.source === 'queued')
    return { queued: true, data: null, message: detailOf(answer.data) ?? PROJECT_MESSAGES.queued };
  return { queued: false, data: answer.data };
}

/** A queueable write (the service worker keeps it offline and replays it once, with its Idempotency-Key). */
async function write<T>(
  what: string,
  path: string,
  method: 'POST' | 'PUT' | 'PATCH' | 'DELETE',
  body?: Record<string, unknown>,
): Promise<Written<T>> {
  return written(await read<T>(what, path, { method, queueable: true, ...(body !== undefined ? { body } : {}) }));
}

// Projects

export const PROJECTS_PATH = '/projects/';
export const PROJECT_PAGE_SIZE = 25;
/** Sub-lists of a project ask for the largest page the server gives. */
export const SUBLIST_PAGE_SIZE = 100;

export interface ProjectQuery {
  page?: number;
  page_size?: number;
  status?: string;
  priority?: string;
  text?: string;
  ordering?: string;
}

/** The project list (§8: not under the 5 s project timeout; a failure gives an empty list and the error). */
export function listProjects(query: ProjectQuery): Promise<ListResult<Project>> {
  return list<Project>(
    'liste des projets',
    PROJECTS_PATH,
    { page_size: PROJECT_PAGE_SIZE, ...query },
    TIMEOUTS.default,
  );
}

/** Create (§8 messages; not under the 5 s project timeout). */
export async function createProject(body: ProjectInput): Promise<Written<Project>> {
  try {
    return written(
      await apiRequestWithOrigin<Project>(PROJECTS_PATH, {
        method: 'POST',
        body: { ...body },
        queueable: true,
        allowForbidden: true,
      }),
    );
  } catch (err) {
    throw createError(err);
  }
}

/** One project; an answer that is no project (another backend's `null`, a list) reads as « introuvable ». */
export async function getProject(id: Id): Promise<{ data: Project; origin: DataOrigin }> {
  const answer = await read<Project | null>('lecture du projet', `${PROJECTS_PATH}${id}/`);
  const p = answer.data as unknown;
  if (!p || typeof p !== 'object' || Array.isArray(p) || !('id' in p) || !('name' in p))
    throw new ApiError(404, PROJECT_MESSAGES.notFound);
  return { data: answer.data as Project, origin: answer.origin };
}

export function updateProject(id: Id, body: ProjectInput): Promise<Written<Project>> {
  return write<Project>('modification du projet', `${PROJECTS_PATH}${id}/`, 'PATCH', { ...body });
}

export function deleteProject(id: Id): Promise<Written<unknown>> {
  return write<unknown>('suppression du projet', `${PROJECTS_PATH}${id}/`, 'DELETE');
}

export function getDashboard(id: Id): Promise<{ data: ProjectDashboard; origin: DataOrigin }> {
  return read<ProjectDashboard>('tableau de bord du projet', `${PROJECTS_PATH}${id}/dashboard/`);
}

// Team

export function listTeam(id: Id): Promise<ListResult<TeamMember>> {
  return list<TeamMember>('équipe du projet', `${PROJECTS_PATH}${id}/team-members/`, {});
}

export function addTeamMember(id: Id, userId: Id, role: TeamRole): Promise<Written<TeamMember>> {
  return write<TeamMember>('ajout de membre', `${PROJECTS_PATH}${id}/add_team_member/`, 'POST', {
    user_id: userId,
    role,
  });
}

export function removeTeamMember(id: Id, userId: Id): Promise<Written<unknown>> {
  return write<unknown>('retrait de membre', `${PROJECTS_PATH}${id}/remove_team_member/`, 'POST', {
    user_id: userId,
  });
}

/**
 * The tenant's users, to choose a new member. Only administrators may read that list (GET /api/admin/users/,
 * as the users screen does); for anyone else `readable` is false and the screen asks for a user id instead.
 */
export async function listTenantUsers(search = ''): Promise<{ users: TenantUser[]; readable: boolean }> {
  try {
    const { data } = await apiRequestWithOrigin<unknown>('/admin/users/', {
      query: cleanQuery({ page: 1, page_size: 100, search }),
      timeoutMs: TIMEOUTS.project,
      allowForbidden: true,
    });
    return { users: toPaged<TenantUser>(data).results, readable: true };
  } catch {
    return { users: [], readable: false };
  }
}

// Risks, remediation plans, corrective actions

const RISKS_PATH = `${PROJECTS_PATH}risks/`;
const PLANS_PATH = `${PROJECTS_PATH}remediation-plans/`;
const ACTIONS_PATH = `${PROJECTS_PATH}corrective-actions/`;

export function listRisks(query: {
  project: Id;
  status?: string;
  level?: string;
  treatment?: string;
  page?: number;
}): Promise<ListResult<Risk>> {
  return list<Risk>('liste des risques', RISKS_PATH, { page_size: SUBLIST_PAGE_SIZE, ...query });
}

export function createRisk(body: RiskInput & { project: Id }): Promise<Written<Risk>> {
  return write<Risk>('création du risque', RISKS_PATH, 'POST', { ...body });
}

export function updateRisk(id: Id, body: Partial<RiskInput>): Promise<Written<Risk>> {
  return write<Risk>('modification du risque', `${RISKS_PATH}${id}/`, 'PATCH', { ...body });
}

export function deleteRisk(id: Id): Promise<Written<unknown>> {
  return write<unknown>('suppression du risque', `${RISKS_PATH}${id}/`, 'DELETE');
}

export function listPlans(query: { project: Id; risk?: Id }): Promise<ListResult<RemediationPlan>> {
  return list<RemediationPlan>('liste des plans de remédiation', PLANS_PATH, {
    page_size: SUBLIST_PAGE_SIZE,
    ...query,
  });
}

export function createPlan(body: PlanInput): Promise<Written<RemediationPlan>> {
  return write<RemediationPlan>('création du plan de remédiation', PLANS_PATH, 'POST', { ...body });
}

export function updatePlan(id: Id, body: PlanUpdate): Promise<Written<RemediationPlan>> {
  return write<RemediationPlan>('modification du plan de remédiation', `${PLANS_PATH}${id}/`, 'PATCH', { ...body });
}

export function deletePlan(id: Id): Promise<Written<unknown>> {
  return write<unknown>('suppression du plan de remédiation', `${PLANS_PATH}${id}/`, 'DELETE');
}

export function listActions(query: {
  project: Id;
  plan?: Id;
  overdue?: boolean;
}): Promise<ListResult<CorrectiveAction>> {
  return list<CorrectiveAction>('liste des actions correctives', ACTIONS_PATH, {
    page_size: SUBLIST_PAGE_SIZE,
    ...query,
  });
}

export function createAction(planId: Id, body: ActionInput): Promise<Written<CorrectiveAction>> {
  return write<CorrectiveAction>('création de l’action corrective', `${PLANS_PATH}${planId}/actions/`, 'POST', {
    ...body,
  });
}

export function updateActionProgress(id: Id, progress: number): Promise<Written<CorrectiveAction>> {
  return write<CorrectiveAction>(
    'progression de l’action corrective',
    `${ACTIONS_PATH}${id}/update_progress/`,
    'POST',
    {
      progress,
    },
  );
}

export function updateAction(id: Id, body: ActionUpdate): Promise<Written<CorrectiveAction>> {
  return write<CorrectiveAction>('modification de l’action corrective', `${ACTIONS_PATH}${id}/`, 'PATCH', {
    ...body,
  });
}

export function deleteAction(id: Id): Promise<Written<unknown>> {
  return write<unknown>('suppression de l’action corrective', `${ACTIONS_PATH}${id}/`, 'DELETE');
}

// Tasks

const TASKS_PATH = `${PROJECTS_PATH}tasks/`;

export function listTasks(query: { project: Id; status?: string; page?: number }): Promise<ListResult<ProjectTask>> {
  return list<ProjectTask>('liste des tâches', TASKS_PATH, { page_size: SUBLIST_PAGE_SIZE, ...query });
}

export function createTask(body: TaskInput & { project: Id; title: string }): Promise<Written<ProjectTask>> {
  return write<ProjectTask>('création de la tâche', TASKS_PATH, 'POST', { ...body });
}

export function updateTask(id: Id, body: TaskInput): Promise<Written<ProjectTask>> {
  return write<ProjectTask>('modification de la tâche', `${TASKS_PATH}${id}/`, 'PATCH', { ...body });
}

export function updateTaskProgress(id: Id, progress: number): Promise<Written<ProjectTask>> {
  return write<ProjectTask>('progression de la tâche', `${TASKS_PATH}${id}/update_progress/`, 'POST', { progress });
}

export function deleteTask(id: Id): Promise<Written<unknown>> {
  return write<unknown>('suppression de la tâche', `${TASKS_PATH}${id}/`, 'DELETE');
}

// Links to the tenant's assets, findings and threats

const LINKED_ASSETS_PATH = `${PROJECTS_PATH}assets/`;
const LINKED_VULNS_PATH = `${PROJECTS_PATH}vulnerabilities/`;
const LINKED_THREATS_PATH = `${PROJECTS_PATH}threats/`;

export function listProjectAssets(query: { project: Id; page?: number }): Promise<ListResult<ProjectAsset>> {
  return list<ProjectAsset>('liste des actifs du projet', LINKED_ASSETS_PATH, {
    page_size: SUBLIST_PAGE_SIZE,
    ...query,
  });
}

export function linkAsset(project: Id, assetId: Id): Promise<Written<ProjectAsset>> {
  return write<ProjectAsset>('liaison de l’actif', LINKED_ASSETS_PATH, 'POST', { project, asset_id: assetId });
}

export function unlinkAsset(id: Id): Promise<Written<unknown>> {
  return write<unknown>('retrait de l’actif', `${LINKED_ASSETS_PATH}${id}/`, 'DELETE');
}

/** The tenant's inventory (GET /api/assets/), to pick an asset to link. */
export async function searchTenantAssets(text: string): Promise<{ id: Id; name: string }[]> {
  const { data } = await read<unknown>('recherche des actifs', '/assets/', {
    query: cleanQuery({ page: 1, page_size: 20, ordering: 'name', text }),
  });
  return toPaged<{ id: Id; name: string }>(data).results;
}

export function listProjectVulnerabilities(query: {
  project: Id;
  severity?: string;
  is_resolved?: string;
  page?: number;
}): Promise<ListResult<ProjectVulnerability>> {
  return list<ProjectVulnerability>('liste des vulnérabilités du projet', LINKED_VULNS_PATH, {
    page_size: SUBLIST_PAGE_SIZE,
    ...query,
  });
}

export function linkVulnerability(project: Id, vulnerabilityId: Id): Promise<Written<ProjectVulnerability>> {
  return write<ProjectVulnerability>('liaison de la vulnérabilité', LINKED_VULNS_PATH, 'POST', {
    project,
    vulnerability_id: vulnerabilityId,
  });
}

export function markVulnerabilityResolved(id: Id, isResolved = true): Promise<Written<ProjectVulnerability>> {
  return write<ProjectVulnerability>(
    'résolution de la vulnérabilité',
    `${LINKED_VULNS_PATH}${id}/mark_resolved/`,
    'POST',
    {
      is_resolved: isResolved,
    },
  );
}

export function unlinkVulnerability(id: Id): Promise<Written<unknown>> {
  return write<unknown>('retrait de la vulnérabilité', `${LINKED_VULNS_PATH}${id}/`, 'DELETE');
}

export function listProjectThreats(query: { project: Id; page?: number }): Promise<ListResult<ProjectThreat>> {
  return list<ProjectThreat>('liste des menaces du projet', LINKED_THREATS_PATH, {
    page_size: SUBLIST_PAGE_SIZE,
    ...query,
  });
}

export function linkThreat(project: Id, threatId: Id): Promise<Written<ProjectThreat>> {
  return write<ProjectThreat>('liaison de la menace', LINKED_THREATS_PATH, 'POST', { project, threat_id: threatId });
}

export function markThreatMitigated(id: Id): Promise<Written<ProjectThreat>> {
  return write<ProjectThreat>('atténuation de la menace', `${LINKED_THREATS_PATH}${id}/mark_mitigated/`, 'POST');
}

export function unlinkThreat(id: Id): Promise<Written<unknown>> {
  return write<unknown>('retrait de la menace', `${LINKED_THREATS_PATH}${id}/`, 'DELETE');
}

// Documents

const DOCUMENTS_PATH = `${PROJECTS_PATH}documents/`;
/** Uploads and downloads carry a whole file: their limit covers the transfer, not the 5 s of a plain call. */
export const FILE_TRANSFER_TIMEOUT_MS = 10 * 60_000;

export function listDocuments(query: {
  project: Id;
  document_type?: string;
  page?: number;
}): Promise<ListResult<ProjectDocument>> {
  return list<ProjectDocument>('liste des documents', DOCUMENTS_PATH, { page_size: SUBLIST_PAGE_SIZE, ...query });
}

export interface DocumentUpload {
  project: Id;
  file: File;
  title?: string;
  description?: string;
  document_type: DocumentType;
}

/** Multipart upload with progress (XMLHttpRequest through lib/upload), same session headers as api-client. */
export async function uploadDocument(
  req: DocumentUpload,
  opts: { onProgress?: (p: UploadProgress) => void; signal?: AbortSignal } = {},
): Promise<Written<ProjectDocument>> {
  const form = new FormData();
  form.append('project', String(req.project));
  form.append('name', req.file.name);
  if (req.title) form.append('title', req.title);
  if (req.description) form.append('description', req.description);
  form.append('document_type', req.document_type);
  // The file last: multipart parsers read the small fields before the large part.
  form.append('file', req.file, req.file.name);
  try {
    const answer = await uploadForm<ProjectDocument>(DOCUMENTS_PATH, form, {
      ...opts,
      timeoutMs: FILE_TRANSFER_TIMEOUT_MS,
      maxBytes: 25 * 1024 * 1024,
      headers: { 'X-Vigie-Queueable': '1', 'Idempotency-Key': crypto.randomUUID() },
      auth: () => ({ token: session.value?.tokens.access_token, tenantId: currentTenantId() }),
      refresh: () => refreshTokens({ retryPath: true }),
    });
    return written(answer);
  } catch (err) {
    throw projectError(err, 'envoi du document');
  }
}

export function updateDocument(
  id: Id,
  body: Partial<Pick<ProjectDocument, 'name' | 'title' | 'description' | 'document_type'>>,
): Promise<Written<ProjectDocument>> {
  return write<ProjectDocument>('modification du document', `${DOCUMENTS_PATH}${id}/`, 'PATCH', { ...body });
}

export function deleteDocument(id: Id): Promise<Written<unknown>> {
  return write<unknown>('suppression du document', `${DOCUMENTS_PATH}${id}/`, 'DELETE');
}

export const DOWNLOAD_ERROR = 'Impossible de télécharger le document.';

/** Streams the file (never cached by the service worker) and saves it under its original name. */
export function downloadDocument(
  doc: ProjectDocument,
  opts: { signal?: AbortSignal; onProgress?: (p: DownloadProgress) => void } = {},
): Promise<DownloadResult> {
  return streamDownload({
    path: `${DOCUMENTS_PATH}${doc.id}/download/`,
    filename: doc.name || `document-${doc.id}`,
    mimeType: doc.file_type || 'application/octet-stream',
    errorMessage: DOWNLOAD_ERROR,
    timeoutMs: FILE_TRANSFER_TIMEOUT_MS,
    ...opts,
  });
}
