import { ApiError, apiRequestWithOrigin, TIMEOUTS, type DataOrigin } from '../../lib/api-client.ts';
import { streamDownload, type DownloadProgress, type DownloadResult } from '../../lib/download.ts';
import { uploadForm, type UploadProgress } from '../../lib/upload.ts';
import { currentTenantId, refreshTokens, session } from '../../lib/auth/session.ts';
import { QUEUEABLE_HEADER } from '../../../contract/sw-messages.ts';
import {
  cleanQuery,
  createError,
  list,
  PROJECT_MESSAGES,
  projectError,
  read,
  toPaged,
  write,
  written,
  type ListResult,
  type Written,
} from './project-http.ts';
import type { AssetFields } from '../../../contract/assets.ts';
import type {
  ActionInput,
  ActionUpdate,
  AssetFinding,
  AssetThreat,
  CorrectiveAction,
  DocumentType,
  Id,
  PlanInput,
  PlanUpdate,
  Project,
  ProjectAsset,
  ProjectDashboard,
  ProjectDocument,
  ProjectInput,
  ProjectTask,
  ProjectThreat,
  ProjectVulnerability,
  RemediationPlan,
  Risk,
  RiskInput,
  TaskInput,
  TeamMember,
  TeamRole,
  TenantUser,
} from './project-types.ts';
import { DEFAULT_PAGE_SIZE } from '../../../contract/paged.ts';

/** The typed calls of docs/api-projects.md (types in project-types.ts, errors and helpers in project-http.ts). */

// Projects

export const PROJECTS_PATH = '/projects/';
export const PROJECT_PAGE_SIZE = DEFAULT_PAGE_SIZE;
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

/** The project list (spec §8: not under the 5 s project timeout; a failure gives an empty list and the error). */
export function listProjects(query: ProjectQuery): Promise<ListResult<Project>> {
  return list<Project>(
    'liste des projets',
    PROJECTS_PATH,
    { page_size: PROJECT_PAGE_SIZE, ...query },
    TIMEOUTS.default,
  );
}

/** Create (spec §8 messages; not under the 5 s project timeout). */
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

/**
 * The edit form's save: PUT (spec §7) with every field the form shows, `name` included (the server requires it on a
 * PUT); fields the form does not show (`is_active`, the owner) stay as they are. docs/api-projects.md "PUT or PATCH".
 */
export function updateProject(id: Id, body: ProjectInput & { name: string }): Promise<Written<Project>> {
  return write<Project>('modification du projet', `${PROJECTS_PATH}${id}/`, 'PUT', { ...body });
}

/**
 * A new owner, and nothing else: PATCH `{owner_id}`, kept on purpose (docs/api-projects.md "PUT or PATCH"). A PUT
 * would have to send the name, status, dates… as this screen last read them, and would put back whatever someone
 * else changed since (or, replayed from the offline queue, hours later).
 */
export function changeProjectOwner(id: Id, ownerId: Id): Promise<Written<Project>> {
  return write<Project>('changement de propriétaire', `${PROJECTS_PATH}${id}/`, 'PATCH', { owner_id: ownerId });
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

/**
 * The risk form's save: PATCH with the changed fields only, kept on purpose (docs/api-projects.md "PUT or PATCH"):
 * several people score and treat the same register, and a queued edit may be replayed hours later.
 */
export function updateRisk(id: Id, body: Partial<RiskInput>): Promise<Written<Risk>> {
  return write<Risk>('modification du risque', `${RISKS_PATH}${id}/`, 'PATCH', { ...body });
}

export function deleteRisk(id: Id): Promise<Written<unknown>> {
  return write<unknown>('suppression du risque', `${RISKS_PATH}${id}/`, 'DELETE');
}

/**
 * A risk's remediation plan (GET /projects/risks/{riskId}/remediation-plan/), or null on the server's 404: the risk
 * has no plan (any more), or is gone. Any other failure is the project error of spec §8.
 */
export async function getRiskPlan(riskId: Id): Promise<{ data: RemediationPlan | null; origin: DataOrigin }> {
  try {
    return await apiRequestWithOrigin<RemediationPlan>(`${RISKS_PATH}${riskId}/remediation-plan/`, {
      timeoutMs: TIMEOUTS.project,
      allowForbidden: true,
    });
  } catch (err) {
    if (err instanceof ApiError && err.status === 404 && err.kind === 'http')
      return { data: null, origin: { source: 'network' } };
    throw projectError(err, 'lecture du plan de remédiation du risque');
  }
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

/** The plan form's save: PATCH with the changed fields only, kept on purpose (as `updateRisk`). */
export function updatePlan(id: Id, body: PlanUpdate): Promise<Written<RemediationPlan>> {
  return write<RemediationPlan>('modification du plan de remédiation', `${PLANS_PATH}${id}/`, 'PATCH', { ...body });
}

export function deletePlan(id: Id): Promise<Written<unknown>> {
  return write<unknown>('suppression du plan de remédiation', `${PLANS_PATH}${id}/`, 'DELETE');
}

/** A plan's corrective actions (GET /projects/remediation-plans/{planId}/actions/, spec §7): all of them, unpaged. */
export function listPlanActions(planId: Id): Promise<ListResult<CorrectiveAction>> {
  return list<CorrectiveAction>('liste des actions correctives', `${PLANS_PATH}${planId}/actions/`, {});
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

/** The action form's save: PATCH with the changed fields only, kept on purpose (as `updateRisk`). */
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

/** An asset's fields on a PUT: the name is required; absent fields (tags, exposure…) stay as they are. */
export type AssetUpdate = Partial<AssetFields> & Pick<AssetFields, 'name'>;

/**
 * Changes the linked asset itself in the tenant's inventory (PUT /projects/assets/{id}/, spec §7): the edit form
 * sends every field it shows, as the inventory's own form does (PUT /api/assets/{id}/).
 */
export function updateProjectAsset(id: Id, body: AssetUpdate): Promise<Written<ProjectAsset>> {
  return write<ProjectAsset>('modification de l’actif', `${LINKED_ASSETS_PATH}${id}/`, 'PUT', { ...body });
}

/** The tenant's findings on a linked asset (GET /projects/assets/{id}/vulnerabilities/), newest first. */
export function listAssetVulnerabilities(id: Id): Promise<ListResult<AssetFinding>> {
  return list<AssetFinding>('vulnérabilités de l’actif', `${LINKED_ASSETS_PATH}${id}/vulnerabilities/`, {});
}

/** The tenant's threats on a linked asset (GET /projects/assets/{id}/threats/). */
export function listAssetThreats(id: Id): Promise<ListResult<AssetThreat>> {
  return list<AssetThreat>('menaces de l’actif', `${LINKED_ASSETS_PATH}${id}/threats/`, {});
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
      headers: { [QUEUEABLE_HEADER]: '1', 'Idempotency-Key': crypto.randomUUID() },
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
