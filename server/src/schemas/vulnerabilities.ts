/**
 * Findings (/api/vulnerabilities/): the list, export and summary querystrings, the write bodies, and their checks
 * with the French messages.
 */
import { FINDING_SEVERITIES, type FindingSeverity } from '../db/schema.ts';
import { FINDING_STATES, type FindingState } from '../../../contract/finding-states.ts';
import { SSVC_DECISIONS, type SsvcDecision } from '../../../contract/ssvc.ts';
import { ApiError, FieldErrors } from '../domain/errors.ts';
import { charCount, clipText } from '../../../contract/text.ts';
import type { SummaryFilters } from '../repositories/dashboard.ts';
import {
  VULNERABILITY_ORDERINGS,
  type VulnerabilityFilters,
  type VulnerabilityValues,
} from '../repositories/vulnerabilities.ts';
import { FilterQuery, ListQuery, Nullable, Type, type Static } from './common.ts';
import { ASSET_UNKNOWN, CVE_INVALID, CVE_RE, dayOrNull, optionalText, orNull } from './fields.ts';
import { parseBoolean, parseId, parseOrdering, parsePaging, parseQueryId, parseText, type RawQuery } from './query.ts';

/** Ids named one by one (a bulk body's `ids`, an export's `ids`): a page's worth of ticked rows. */
export const MAX_BULK_IDS = 1000;
export const BULK_ACTIONS = ['assign', 'due_date', 'transition', 'link_project', 'unlink_project'] as const;

/** An analyst's reason for a rating: long enough for a paragraph and its references. */
export const SEVERITY_REASON_MAX = 2000;

export const MESSAGES = {
  severity: `Sévérité invalide. Valeurs possibles : ${FINDING_SEVERITIES.join(', ')}.`,
  severityReason: `Motif obligatoire pour modifier la gravité (${SEVERITY_REASON_MAX.toLocaleString('fr-FR')} caractères au plus).`,
  noOverride: 'Aucune gravité d’analyste à retirer.',
  ssvc: `Décision SSVC invalide. Valeurs possibles : ${SSVC_DECISIONS.join(', ')}.`,
  titleRequired: 'Le titre est requis (ou un identifiant CVE connu).',
  titleTooLong: 'Le titre ne doit pas dépasser 500 caractères.',
  cvss: 'Le score CVSS doit être compris entre 0 et 10.',
  port: 'Le port doit être un entier entre 0 et 65535.',
  duplicate: 'Cette vulnérabilité est déjà enregistrée pour cet actif (même CVE).',
  format: 'Format d’export invalide : csv ou json attendu.',
  days: 'Nombre de jours invalide : un entier entre 1 et 366 est attendu.',
  date: 'Date invalide : format AAAA-MM-JJ attendu.',
  assignee: "Cette personne n'est pas membre de l'organisation ou n'a qu'un accès en lecture.",
  state: `État invalide. Valeurs possibles : ${FINDING_STATES.join(', ')}.`,
  comment: 'Le commentaire est requis (10 000 caractères au plus).',
  bulkIds: 'Sélection invalide : de 1 à 1 000 identifiants de vulnérabilités.',
  bulkSelection:
    'Choisissez les vulnérabilités : une liste d’identifiants, ou un filtre (toutes celles qu’il retient).',
  bulkAction: `Action invalide. Valeurs possibles : ${BULK_ACTIONS.join(', ')}.`,
  bulkValue: 'Valeur requise pour cette action.',
  bulkProject: 'Projet invalide : l’identifiant d’un projet est attendu.',
} as const;

const day = dayOrNull(MESSAGES.date);

/** `act,attend`: known SSVC decisions, lower-cased, in the table's order and without repeats; undefined when absent. */
function parseSsvc(errors: FieldErrors, raw: string | undefined): SsvcDecision[] | undefined {
  if (raw === undefined || raw.trim() === '') return undefined;
  const list = raw
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter((s) => s !== '');
  if (list.length === 0 || !list.every((s) => (SSVC_DECISIONS as readonly string[]).includes(s))) {
    errors.add('ssvc', MESSAGES.ssvc);
    return undefined;
  }
  return SSVC_DECISIONS.filter((d) => list.includes(d));
}

/** `high,critical`: known severities, lower-cased and without repeats; undefined when absent. */
export function parseSeverities(errors: FieldErrors, raw: string | undefined): FindingSeverity[] | undefined {
  if (raw === undefined || raw.trim() === '') return undefined;
  const list = raw
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter((s) => s !== '');
  if (
    list.length === 0 ||
    !list.every((s): s is FindingSeverity => (FINDING_SEVERITIES as readonly string[]).includes(s))
  ) {
    errors.add('severity', MESSAGES.severity);
    return undefined;
  }
  return [...new Set(list)];
}

const FILTERS = {
  severity: `Sévérités séparées par des virgules : ${FINDING_SEVERITIES.join(', ')} (unrated : non évaluée)`,
  is_resolved: 'true ou false',
  asset: 'Identifiant d’actif',
  cve: 'Identifiant CVE',
  kev: 'true ou false : au catalogue KEV de la CISA',
  text: 'Recherche dans la CVE, le titre et la description',
  scan: 'Identifiant du scan',
  ssvc: `Décisions SSVC séparées par des virgules : ${SSVC_DECISIONS.join(', ')} (une vulnérabilité résolue n’en a pas)`,
};
const FILTER_KEYS = Object.keys(FILTERS) as (keyof typeof FILTERS)[];

export const ListVulnerabilitiesQuery = ListQuery({
  ordering: `Tri : ${VULNERABILITY_ORDERINGS.join(', ')} (préfixe - pour décroissant)`,
  ...FILTERS,
});
const ExportFilters = FilterQuery({ format: 'csv (défaut) ou json', ...FILTERS });
/** The filters, and optionally `ids`: exactly these findings (a selection of ticked rows), the filters still apply. */
export const ExportQuery = Type.Object(
  {
    ...ExportFilters.properties,
    ids: Type.Optional(
      Type.String({
        // 1,000 ids of up to 16 digits and their commas.
        maxLength: MAX_BULK_IDS * 17,
        description: `Identifiants de vulnérabilités séparés par des virgules (1 à ${MAX_BULK_IDS}) : seulement celles-ci`,
        errorMessage: MESSAGES.bulkIds,
      }),
    ),
  },
  { additionalProperties: true },
);
/** A stream, so the serializer (and the reply check) never sees it. */
export const ExportReply = Type.String({
  description:
    'Pièce jointe vulnerabilites-AAAA-MM-JJ.csv (text/csv, UTF-8 avec BOM) ou .json (tableau de Vulnerability)',
});
export const SummaryQuery = FilterQuery({
  days: 'Fenêtre de la tendance en jours (1 à 366, défaut 30)',
  asset: FILTERS.asset,
  severity: FILTERS.severity,
  is_resolved: 'true ou false (défaut : les vulnérabilités ouvertes)',
  kev: FILTERS.kev,
});

function parseFilters(errors: FieldErrors, query: RawQuery): VulnerabilityFilters {
  const cve = query.cve?.trim().toUpperCase();
  return {
    severities: parseSeverities(errors, query.severity),
    isResolved: parseBoolean(errors, query, 'is_resolved'),
    assetId: parseQueryId(errors, query, 'asset'),
    cveId: cve ? clipText(cve, 64) : undefined,
    kev: parseBoolean(errors, query, 'kev'),
    text: parseText(errors, query, 'text'),
    scanId: parseQueryId(errors, query, 'scan'),
    ssvc: parseSsvc(errors, query.ssvc),
  };
}

/** The list's paging, filters and ordering (newest first by default). */
export function readListQuery(query: RawQuery) {
  const errors = new FieldErrors();
  const paging = parsePaging(errors, query);
  const filters = parseFilters(errors, query);
  const ordering = parseOrdering(errors, query.ordering, VULNERABILITY_ORDERINGS, { field: 'created_at', desc: true });
  errors.throwIfAny();
  return { paging, filters, ordering };
}

/** `1,5,9`: 1 to MAX_BULK_IDS positive ids, without repeats; undefined when absent. */
function parseIds(errors: FieldErrors, raw: string | undefined): number[] | undefined {
  if (raw === undefined || raw.trim() === '') return undefined;
  const ids = raw.split(',').map((s) => parseId(s.trim()));
  const unique = [...new Set(ids)];
  if (unique.length > MAX_BULK_IDS || !unique.every((id): id is number => id !== undefined)) {
    errors.add('ids', MESSAGES.bulkIds);
    return undefined;
  }
  return unique;
}

/**
 * The export's format (csv by default), filters and ids (only those findings, when given), with the filters as
 * given (for the audit line).
 */
export function readExportQuery(query: RawQuery) {
  const errors = new FieldErrors();
  const format = query.format?.trim().toLowerCase() || 'csv';
  if (format !== 'csv' && format !== 'json') errors.add('format', MESSAGES.format);
  const filters = parseFilters(errors, query);
  const ids = parseIds(errors, query.ids);
  errors.throwIfAny();
  const given = Object.fromEntries(FILTER_KEYS.filter((k) => query[k]).map((k) => [k, query[k]]));
  return { format: format as 'csv' | 'json', filters, ids, given };
}

/** The summary's window (30 days by default) and filters. */
export function readSummaryQuery(query: RawQuery): SummaryFilters {
  const errors = new FieldErrors();
  const daysRaw = query.days?.trim();
  const days = daysRaw ? (/^\d{1,4}$/.test(daysRaw) ? Number(daysRaw) : 0) : 30;
  if (days < 1 || days > 366) errors.add('days', MESSAGES.days);
  const filters = {
    days,
    assetId: parseQueryId(errors, query, 'asset'),
    severities: parseSeverities(errors, query.severity),
    isResolved: parseBoolean(errors, query, 'is_resolved'),
    kev: parseBoolean(errors, query, 'kev'),
  };
  errors.throwIfAny();
  return filters;
}

/** Types, sizes and ranges by the schema; trimming, case and CVE facts by `validateWrite` and the service. */
export const writeFields = {
  title: optionalText(4096, MESSAGES.titleTooLong),
  cve_id: orNull('string', { maxLength: 64, errorMessage: CVE_INVALID }),
  asset_id: orNull('integer', { minimum: 1, errorMessage: { minimum: ASSET_UNKNOWN } }),
  severity: Type.Optional(Type.String({ maxLength: 32, errorMessage: MESSAGES.severity })),
  /** Why an analyst sets a severity other than the source's (docs/severity.md); kept with the finding. */
  severity_reason: Type.Optional(
    Type.String({ maxLength: SEVERITY_REASON_MAX, errorMessage: MESSAGES.severityReason }),
  ),
  cvss_score: orNull('number', {
    minimum: 0,
    maximum: 10,
    errorMessage: { minimum: MESSAGES.cvss, maximum: MESSAGES.cvss },
  }),
  description: optionalText(100_000),
  solution: optionalText(100_000),
  port: orNull('integer', {
    minimum: 0,
    maximum: 65535,
    errorMessage: { minimum: MESSAGES.port, maximum: MESSAGES.port },
  }),
  protocol: orNull('string', { maxLength: 32 }),
  service: orNull('string', { maxLength: 200 }),
  assignee_id: orNull('integer', { minimum: 1, errorMessage: { minimum: MESSAGES.assignee } }),
  due_date: day,
};
export const CreateBody = Type.Object(writeFields, { additionalProperties: false });
export const UpdateBody = Type.Object(
  { ...writeFields, is_resolved: Type.Optional(Type.Boolean()) },
  { additionalProperties: false },
);
export type FindingBody = Static<typeof UpdateBody>;
/** A move through the lifecycle (issue 21): the justification is required for some states (domain/finding-lifecycle.ts). */
export const TransitionBody = Type.Object(
  {
    state: Type.String({ enum: [...FINDING_STATES], errorMessage: MESSAGES.state }),
    comment: Type.Optional(Type.String({ maxLength: 10_000 })),
    accepted_until: Type.Optional(day),
  },
  { additionalProperties: false },
);
export const CommentBody = Type.Object(
  { comment: Type.String({ minLength: 1, maxLength: 10_000, errorMessage: MESSAGES.comment }) },
  { additionalProperties: false },
);
/**
 * Work on many findings (issue 21): `ids` (at most 1,000) or `filter` (the list's filters: every finding they match,
 * chosen on the server), and one action with its value (`project_id` for the project links).
 */
export const BulkBody = Type.Object(
  {
    ids: Type.Optional(
      Type.Array(Type.Integer({ minimum: 1 }), {
        minItems: 1,
        maxItems: MAX_BULK_IDS,
        errorMessage: MESSAGES.bulkIds,
      }),
    ),
    filter: Type.Optional(
      Type.Object(Object.fromEntries(FILTER_KEYS.map((k) => [k, Type.Optional(Type.String({ maxLength: 500 }))])), {
        additionalProperties: false,
      }),
    ),
    action: Type.String({ enum: [...BULK_ACTIONS], errorMessage: MESSAGES.bulkAction }),
    assignee_id: orNull('integer', { minimum: 1, errorMessage: { minimum: MESSAGES.assignee } }),
    due_date: day,
    state: Type.Optional(Type.String({ enum: [...FINDING_STATES], errorMessage: MESSAGES.state })),
    comment: Type.Optional(Type.String({ maxLength: 10_000 })),
    accepted_until: Type.Optional(day),
    project_id: Type.Optional(Type.Integer({ minimum: 1, errorMessage: MESSAGES.bulkProject })),
  },
  { additionalProperties: false },
);
export type BulkBody = Static<typeof BulkBody>;

export const BulkReply = Type.Object(
  { selected: Type.Integer(), changed: Type.Integer(), unchanged: Type.Integer(), refused: Type.Integer() },
  { title: 'BulkResult' },
);

/** Findings named by id, or every one a filter matches. */
export type BulkSelection = { ids: number[] } | { filters: VulnerabilityFilters };

export type BulkAction =
  | { action: 'assign'; assigneeId: number | null }
  | { action: 'due_date'; dueDate: string | null }
  | { action: 'transition'; to: FindingState; comment: string; acceptedUntil?: string | undefined }
  | { action: 'link_project'; projectId: number }
  | { action: 'unlink_project'; projectId: number };

/** The selection and the action of a bulk body, checked: exactly one of ids and filter, the action's value given. */
export function readBulk(body: BulkBody): { selection: BulkSelection; action: BulkAction } {
  const errors = new FieldErrors();
  if ((body.ids === undefined) === (body.filter === undefined)) errors.add('ids', MESSAGES.bulkSelection);
  const filters = body.filter ? parseFilters(errors, body.filter) : undefined;
  let action: BulkAction | undefined;
  if (body.action === 'assign') {
    if (body.assignee_id === undefined) errors.add('assignee_id', MESSAGES.bulkValue);
    else action = { action: 'assign', assigneeId: body.assignee_id };
  } else if (body.action === 'due_date') {
    if (body.due_date === undefined) errors.add('due_date', MESSAGES.bulkValue);
    else action = { action: 'due_date', dueDate: body.due_date };
  } else if (body.action === 'link_project' || body.action === 'unlink_project') {
    if (body.project_id === undefined) errors.add('project_id', MESSAGES.bulkValue);
    else action = { action: body.action, projectId: body.project_id };
  } else if (!body.state) errors.add('state', MESSAGES.bulkValue);
  else {
    action = {
      action: 'transition',
      to: body.state as FindingState,
      comment: body.comment ?? '',
      acceptedUntil: body.accepted_until ?? undefined,
    };
  }
  errors.throwIfAny();
  return { selection: body.ids ? { ids: [...new Set(body.ids)] } : { filters: filters! }, action: action! };
}

/** An analyst's rating: one of the severities (« unrated » included) and why (checked by the service). */
export const SeverityBody = Type.Object(
  {
    severity: Type.String({ maxLength: 32, errorMessage: MESSAGES.severity }),
    reason: Type.Optional(Type.String({ maxLength: 8000 })),
  },
  { additionalProperties: false, title: 'SeverityOverride' },
);

/** The checked severity of an analyst's rating. */
export function readSeverity(raw: string): FindingSeverity {
  const s = raw.trim().toLowerCase();
  if ((FINDING_SEVERITIES as readonly string[]).includes(s)) return s as FindingSeverity;
  throw new ApiError(400, 'invalid', MESSAGES.severity, { fields: { severity: [MESSAGES.severity] } });
}

export const ResolveBody = Nullable(
  Type.Object({ is_resolved: Type.Optional(Type.Boolean()) }, { additionalProperties: false }),
);

/** A checked write: the columns the body sets (CVE facts are merged by the service), and is_resolved if given. */
export interface FindingWrite {
  values: VulnerabilityValues;
  resolved?: boolean | undefined;
  /** The analyst's reason, when the body sets a severity. */
  severityReason?: string | null | undefined;
}

/** Checks a write body: every field's message at once. */
export function validateWrite(body: FindingBody): FindingWrite {
  const errors = new FieldErrors();
  const out: VulnerabilityValues = {};
  if (body.title !== undefined) {
    const title = body.title.trim();
    if (charCount(title) > 500) errors.add('title', MESSAGES.titleTooLong);
    else if (title !== '') out.title = title;
  }
  if (body.cve_id !== undefined) {
    const cve = body.cve_id?.trim().toUpperCase() ?? '';
    if (cve === '') out.cveId = null;
    else if (!CVE_RE.test(cve)) errors.add('cve_id', CVE_INVALID);
    else out.cveId = cve;
  }
  if (body.asset_id !== undefined) out.assetId = body.asset_id;
  if (body.severity !== undefined) {
    const s = body.severity.trim().toLowerCase();
    if ((FINDING_SEVERITIES as readonly string[]).includes(s)) out.severity = s as FindingSeverity;
    else errors.add('severity', MESSAGES.severity);
  }
  const reason = body.severity_reason?.trim();
  if (body.cvss_score !== undefined) out.cvssScore = body.cvss_score;
  if (body.port !== undefined) out.port = body.port;
  if (body.description !== undefined) out.description = body.description;
  if (body.solution !== undefined) out.solution = body.solution;
  if (body.protocol !== undefined) out.protocol = body.protocol?.trim() || null;
  if (body.service !== undefined) out.service = body.service?.trim() || null;
  if (body.assignee_id !== undefined) out.assigneeId = body.assignee_id;
  if (body.due_date !== undefined) out.dueDate = body.due_date;
  errors.throwIfAny();
  return { values: out, resolved: body.is_resolved, severityReason: reason || null };
}
