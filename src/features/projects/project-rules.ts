import { charCount } from '../../../contract/text.ts';
import {
  DOCUMENT_TYPES,
  PLAN_STATUSES,
  PROJECT_PRIORITIES,
  PROJECT_STATUS_LABELS,
  PROJECT_STATUS_TRANSITIONS,
  PROJECT_STATUSES,
  RISK_LEVEL_LABELS,
  RISK_LEVELS,
  RISK_SCALE,
  riskLevelOf,
  RISK_STATUSES,
  RISK_TREATMENTS,
  TEAM_ROLES,
  WORK_STATUSES,
  type DocumentType,
  type PlanStatus,
  type ProjectPriority,
  type ProjectStatus,
  type RiskStatus,
  type RiskTreatment,
  type TeamRole,
  type WorkStatus,
} from '../../../contract/projects.ts';
import { ASSET_TYPE_LABELS } from '../../../contract/assets.ts';
import {
  CRITICALITY_LABELS as CRITICALITY_LABELS_OF_CONTRACT,
  FINDING_SEVERITY_LABELS,
  SEVERITIES,
  SEVERITY_FULL_LABELS,
} from '../../../contract/severity.ts';
import { THREAT_STATUS_LABELS } from '../../../contract/threats.ts';
import type { Project, ProjectAccess } from './project-types.ts';
import { UPLOAD_MESSAGES } from '../../lib/upload.ts';
import { dateFormat, todayIso } from '../../lib/format.ts';

/** French labels, badge tones and the server's rules (docs/api-projects.md), checked before sending. */

export { DOCUMENT_TYPES, PLAN_STATUSES, PROJECT_STATUSES, RISK_STATUSES, TEAM_ROLES, WORK_STATUSES };
export const STATUS_LABELS = PROJECT_STATUS_LABELS;

export const STATUS_TONE: Record<ProjectStatus, string> = {
  PLANNED: 'pending',
  PLANNING: 'pending',
  IN_PROGRESS: 'running',
  ON_HOLD: 'cancelled',
  COMPLETED: 'ok',
  CANCELLED: 'failed',
};

/** The status filter: « Planifié » covers both readings of spec §3 (the API takes a comma list). */
export const STATUS_FILTERS: [string, string][] = [
  ['PLANNED,PLANNING', 'Planifié'],
  ['IN_PROGRESS', 'En cours'],
  ['ON_HOLD', 'En pause'],
  ['COMPLETED', 'Terminé'],
  ['CANCELLED', 'Annulé'],
];

/** The statuses offered when creating a project (PLANNING is shown as PLANNED: same label). */
export const CREATE_STATUSES: ProjectStatus[] = ['PLANNED', 'IN_PROGRESS', 'ON_HOLD', 'COMPLETED', 'CANCELLED'];

export const PRIORITIES = PROJECT_PRIORITIES;

export const PRIORITY_LABELS: Record<ProjectPriority, string> = {
  LOW: 'Faible',
  MEDIUM: 'Moyenne',
  HIGH: 'Haute',
  CRITICAL: 'Critique',
};

export const PRIORITY_TONE: Record<ProjectPriority, string> = {
  LOW: 'low',
  MEDIUM: 'medium',
  HIGH: 'high',
  CRITICAL: 'critical',
};

export const ORDERINGS: [string, string][] = [
  ['-created_at', 'Création (récents d’abord)'],
  ['-updated_at', 'Dernière mise à jour'],
  ['name', 'Nom'],
  ['deadline', 'Échéance'],
];

/** The statuses a project in `current` may take: itself, then the allowed targets (not the twin « Planifié »). */
export function nextStatuses(current: ProjectStatus): ProjectStatus[] {
  const targets = (PROJECT_STATUS_TRANSITIONS[current] ?? []).filter(
    (s) => !((current === 'PLANNED' && s === 'PLANNING') || (current === 'PLANNING' && s === 'PLANNED')),
  );
  return [current, ...targets];
}

export const TEAM_ROLE_LABELS: Record<TeamRole, string> = {
  ADMIN: 'Administrateur',
  MEMBER: 'Membre',
  VIEWER: 'Lecteur',
};

export const ACCESS_LABELS: Record<ProjectAccess, string> = {
  read: 'Lecture seule',
  edit: 'Modification',
  manage: 'Gestion',
};

/** What the caller may do in a project: `access` missing (other backend, sample data) is read only. */
export function accessOf(project: Pick<Project, 'access'> | null | undefined): {
  access: ProjectAccess;
  canEdit: boolean;
  canManage: boolean;
} {
  const access: ProjectAccess = project?.access === 'edit' || project?.access === 'manage' ? project.access : 'read';
  return { access, canEdit: access !== 'read', canManage: access === 'manage' };
}

export function label(labels: Record<string, string>, value: string | null | undefined): string {
  if (value === null || value === undefined || value === '') return '—';
  return labels[value] ?? value;
}

// Risks (ISO 27005 / EBIOS RM scales)

export { IMPACT_LABELS, LIKELIHOOD_LABELS } from '../../../contract/projects.ts';
export const SCALE = RISK_SCALE;

export const LEVEL_LABELS = RISK_LEVEL_LABELS;

export const LEVELS = RISK_LEVELS;

export const levelOf = riskLevelOf;

export const TREATMENTS = RISK_TREATMENTS;
export const TREATMENT_LABELS: Record<RiskTreatment, string> = {
  REDUCE: 'Réduire',
  ACCEPT: 'Accepter',
  SHARE: 'Partager',
  AVOID: 'Refuser',
};

export const RISK_STATUS_LABELS: Record<RiskStatus, string> = {
  IDENTIFIED: 'Identifié',
  ASSESSED: 'Évalué',
  IN_TREATMENT: 'En traitement',
  MONITORED: 'Sous surveillance',
  CLOSED: 'Clôturé',
};

export const PLAN_STATUS_LABELS: Record<PlanStatus, string> = {
  DRAFT: 'Brouillon',
  IN_PROGRESS: 'En cours',
  COMPLETED: 'Terminé',
  CANCELLED: 'Annulé',
};

export const WORK_STATUS_LABELS: Record<WorkStatus, string> = {
  TODO: 'À faire',
  IN_PROGRESS: 'En cours',
  BLOCKED: 'Bloquée',
  DONE: 'Terminée',
};
export const WORK_STATUS_TONE: Record<WorkStatus, string> = {
  TODO: 'pending',
  IN_PROGRESS: 'running',
  BLOCKED: 'failed',
  DONE: 'ok',
};

/** An empty 4 × 4 matrix, indexed [impact - 1][likelihood - 1]. */
export function emptyMatrix(): number[][] {
  return SCALE.map(() => SCALE.map(() => 0));
}

/** The matrix of open risks by residual scores, as the dashboard computes it. */
export function matrixOf(
  risks: { status: string; residual_likelihood: number; residual_impact: number }[],
): number[][] {
  const m = emptyMatrix();
  for (const r of risks) {
    if (r.status === 'CLOSED') continue;
    const row = m[r.residual_impact - 1];
    if (row && r.residual_likelihood >= 1 && r.residual_likelihood <= 4) row[r.residual_likelihood - 1]! += 1;
  }
  return m;
}

// Validation

export const NAME_MAX = 200;
const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** The server's messages (server/src/routes/api/projects), so the client and the server say the same thing. */
export const PROJECT_FORM_MESSAGES = {
  nameRequired: 'Le nom du projet est requis.',
  nameTooLong: `Le nom ne doit pas dépasser ${NAME_MAX} caractères.`,
  // The form takes jj/mm/aaaa (src/components/date-input.tsx); the API's own message names its AAAA-MM-JJ.
  dateInvalid: 'Date invalide : le format attendu est JJ/MM/AAAA.',
  deadlineBeforeStart: 'L’échéance ne peut pas précéder la date de début.',
  statusInvalid: `Statut invalide. Valeurs possibles : ${PROJECT_STATUSES.join(', ')}.`,
  priorityInvalid: `Priorité invalide. Valeurs possibles : ${PROJECT_PRIORITIES.join(', ')}.`,
} as const;

export interface ProjectDraft {
  name: string;
  description: string;
  status: string;
  priority: string;
  start_date: string;
  deadline: string;
}

export type ProjectFieldErrors = Partial<Record<keyof ProjectDraft, string>>;

function isDay(value: string): boolean {
  if (!DAY.test(value)) return false;
  const d = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === value;
}

/** The server's rules: a name of at most 200 characters, known status and priority, deadline not before start. */
export function validateProject(draft: ProjectDraft): ProjectFieldErrors {
  const errors: ProjectFieldErrors = {};
  const name = draft.name.trim();
  if (name === '') errors.name = PROJECT_FORM_MESSAGES.nameRequired;
  else if (charCount(name) > NAME_MAX) errors.name = PROJECT_FORM_MESSAGES.nameTooLong;
  if (!(PROJECT_STATUSES as readonly string[]).includes(draft.status))
    errors.status = PROJECT_FORM_MESSAGES.statusInvalid;
  if (!(PROJECT_PRIORITIES as readonly string[]).includes(draft.priority))
    errors.priority = PROJECT_FORM_MESSAGES.priorityInvalid;
  const start = draft.start_date.trim();
  const deadline = draft.deadline.trim();
  if (start !== '' && !isDay(start)) errors.start_date = PROJECT_FORM_MESSAGES.dateInvalid;
  if (deadline !== '' && !isDay(deadline)) errors.deadline = PROJECT_FORM_MESSAGES.dateInvalid;
  if (!errors.start_date && !errors.deadline && start !== '' && deadline !== '' && deadline < start)
    errors.deadline = PROJECT_FORM_MESSAGES.deadlineBeforeStart;
  return errors;
}

/** Risks, plans, actions and tasks: titles of at most 300 characters, scores 1–4 (the server's messages). */
export const TITLE_MAX = 300;
export const TITLE_REQUIRED = 'Le titre est requis.';
export const TITLE_TOO_LONG = `Le titre ne doit pas dépasser ${TITLE_MAX} caractères.`;

/** null when the title is acceptable, else the server's message. */
export function titleProblem(title: string): string | null {
  const t = title.trim();
  if (t === '') return TITLE_REQUIRED;
  return charCount(t) > TITLE_MAX ? TITLE_TOO_LONG : null;
}

/** The title's check as a form's field errors. */
export function titleErrors(title: string): { title?: string } {
  const problem = titleProblem(title);
  return problem ? { title: problem } : {};
}

export const RISK_FORM_MESSAGES = {
  likelihood: 'La vraisemblance doit être un entier entre 1 et 4.',
  impact: 'La gravité doit être un entier entre 1 et 4.',
  targetAboveLikelihood: (n: number) =>
    `La vraisemblance cible ne peut pas dépasser la vraisemblance initiale du risque (${n}).`,
  targetAboveImpact: (n: number) => `La gravité cible ne peut pas dépasser la gravité initiale du risque (${n}).`,
} as const;

export interface RiskDraft {
  title: string;
  likelihood: string;
  impact: string;
}

export function validateRisk(draft: RiskDraft): Partial<Record<keyof RiskDraft, string>> {
  const errors: Partial<Record<keyof RiskDraft, string>> = {};
  const title = titleProblem(draft.title);
  if (title) errors.title = title;
  if (!/^[1-4]$/.test(draft.likelihood)) errors.likelihood = RISK_FORM_MESSAGES.likelihood;
  if (!/^[1-4]$/.test(draft.impact)) errors.impact = RISK_FORM_MESSAGES.impact;
  return errors;
}

/** The server's message for update_progress. */
export const PROGRESS_MESSAGE = 'La progression doit être un entier entre 0 et 100.';

/** An integer 0–100 written in plain digits, else null ('50.5', '-1', '101', '' and '1e2' are refused). */
export function parseProgress(text: string): number | null {
  const t = text.trim();
  if (!/^\d{1,3}$/.test(t)) return null;
  const n = Number(t);
  return n >= 0 && n <= 100 ? n : null;
}

// Documents

export const DOCUMENT_TYPE_LABELS: Record<DocumentType, string> = {
  REPORT: 'Rapport',
  CONTRACT: 'Contrat',
  EVIDENCE: 'Preuve',
  PROCEDURE: 'Procédure',
  OTHER: 'Autre',
};

export const DOCUMENT_MAX_BYTES = 25 * 1024 * 1024;

/** The server's messages (413 and 415). */
export const DOCUMENT_MESSAGES = {
  tooLarge: 'Fichier trop volumineux (25 Mo au maximum).',
  typeRefused: 'Type de fichier non autorisé.',
  empty: UPLOAD_MESSAGES.empty,
  noFile: UPLOAD_MESSAGES.noFile,
} as const;

/** PDF, images, text, CSV, Markdown, JSON, XML, ZIP and Office/OpenDocument files; never SVG or HTML. */
export const DOCUMENT_EXTENSIONS = [
  '.pdf',
  '.png',
  '.jpg',
  '.jpeg',
  '.gif',
  '.webp',
  '.txt',
  '.csv',
  '.md',
  '.json',
  '.xml',
  '.zip',
  '.docx',
  '.xlsx',
  '.pptx',
  '.odt',
  '.ods',
] as const;

const REFUSED_TYPES = /^(text\/html|application\/xhtml\+xml|image\/svg\+xml)\b/i;

/** Size and type checked before sending, with the server's messages; null when the file may be sent. */
export function checkDocumentFile(
  file: { name: string; size: number; type?: string } | null | undefined,
): string | null {
  if (!file) return DOCUMENT_MESSAGES.noFile;
  if (file.size > DOCUMENT_MAX_BYTES) return DOCUMENT_MESSAGES.tooLarge;
  const name = file.name.toLowerCase();
  if (!DOCUMENT_EXTENSIONS.some((ext) => name.endsWith(ext)) || REFUSED_TYPES.test(file.type ?? ''))
    return DOCUMENT_MESSAGES.typeRefused;
  if (file.size === 0) return DOCUMENT_MESSAGES.empty;
  return null;
}

// Formatting

const DATE_TIME = dateFormat({ dateStyle: 'short', timeStyle: 'short' });
export const NUMBER = new Intl.NumberFormat('fr-FR');
export { formatFileSize as formatSize } from '../../lib/file-size.ts';

export { formatDay } from '../../lib/format.ts';

export function formatDateTime(value: string | null | undefined): string {
  if (!value) return '—';
  const d = new Date(value);
  return Number.isNaN(d.getTime()) ? '—' : DATE_TIME.format(d);
}

/** A project past its deadline and still open. */
export function isLate(project: Pick<Project, 'deadline' | 'status'>, now = new Date()): boolean {
  return (
    !!project.deadline &&
    project.status !== 'COMPLETED' &&
    project.status !== 'CANCELLED' &&
    project.deadline.slice(0, 10) < todayIso(now)
  );
}

export function ownerName(owner: Project['owner']): string {
  if (!owner) return '—';
  return owner.name || owner.username || owner.email || `Utilisateur ${owner.id}`;
}

// Labels of the linked inventory: the contract's (a feature never imports another)

export const SEVERITY_VALUES = SEVERITIES;
export const SEVERITY_LABELS: Record<string, string> = SEVERITY_FULL_LABELS;
/** A linked finding's severity: the threats' words, and « Non évaluée » where nothing rated it. */
export const FINDING_SEVERITY_WORDS: Record<string, string> = {
  ...SEVERITY_FULL_LABELS,
  unrated: FINDING_SEVERITY_LABELS.unrated,
};
export { ASSET_TYPE_LABELS, THREAT_STATUS_LABELS };
export const CRITICALITY_LABELS: Record<string, string> = CRITICALITY_LABELS_OF_CONTRACT;

/** A positive integer id typed by hand, else null. */
export function parseId(text: string): number | null {
  const t = text.trim();
  return /^\d+$/.test(t) && Number(t) > 0 ? Number(t) : null;
}

export const ID_MESSAGE = 'Identifiant invalide : un entier positif est attendu.';
export const USER_ID_MESSAGE = 'Identifiant d’utilisateur invalide : un entier positif est attendu.';
