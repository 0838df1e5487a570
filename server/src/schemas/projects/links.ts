/**
 * The inputs of a project's links to the tenant's assets, findings and threats (docs/api-projects.md): the POST
 * body (the project, and an existing target's id or a new target's fields), the lists' queries, and the checks of
 * a new finding or threat as their own APIs make them, with the French messages.
 */
import { SEVERITIES, type Severity } from '../../../../contract/severity.ts';
import { THREAT_STATUSES, type ThreatStatus } from '../../../../contract/threats.ts';
import { FieldErrors } from '../../domain/errors.ts';
import { contradicts } from '../../domain/threat-mitigation.ts';
import { ProjectAssetSchema } from '../../presenters/project-links.ts';
import type { ThreatValues } from '../../repositories/threats.ts';
import type { VulnerabilityValues } from '../../repositories/vulnerabilities.ts';
import { assetFields } from '../assets.ts';
import { ListQuery, type Static, type TSchema, Type, WriteBody as writeBody } from '../common.ts';
import { ASSET_UNKNOWN, CVE_INVALID, CVE_RE, invalid, optionalText as text, orNull, trimmed } from '../fields.ts';
import { parseBoolean, parsePaging, parseQueryId, type RawQuery } from '../query.ts';
import { parseSeverities } from '../vulnerabilities.ts';
import { choices, PAGE_SIZE } from './choices.ts';

/** Every limit of the link routes, written once. */
export const LIMITS = {
  /** The findings and threats of one linked asset: a bare array, bounded so one huge scan cannot make a huge answer. */
  assetLists: 1000,
  /** Body sizes the schema refuses outright; the inventory's own, smaller limits are checked with their messages. */
  word: 64,
  text: 4096,
  longText: 100_000,
  protocol: 32,
  service: 200,
  /** The inventory's limits on a finding's and a threat's fields. */
  findingTitle: 500,
  threatTitle: 300,
  threatDescription: 20_000,
  threatShort: 200,
} as const;

const SEVERITY = choices('Sévérité', SEVERITIES);
const STATUS = choices('Statut', THREAT_STATUSES);

export const LINK_MESSAGES = {
  projectRequired: 'Le projet est requis.',
  // What each kind says of an unknown target, and of one linked twice.
  assetUnknown: ASSET_UNKNOWN,
  assetLinked: 'Cet actif est déjà lié à ce projet.',
  findingUnknown: 'Vulnérabilité introuvable.',
  findingLinked: 'Cette vulnérabilité est déjà liée à ce projet.',
  threatUnknown: 'Menace introuvable.',
  threatLinked: 'Cette menace est déjà liée à ce projet.',
  // The findings API's own (POST /api/vulnerabilities/vulnerabilities/).
  findingTitleRequired: 'Le titre est requis (ou un identifiant CVE connu).',
  findingTitleTooLong: `Le titre ne doit pas dépasser ${LIMITS.findingTitle} caractères.`,
  cvss: 'Le score CVSS doit être compris entre 0 et 10.',
  port: 'Le port doit être un entier entre 0 et 65535.',
  findingDuplicate: 'Cette vulnérabilité est déjà enregistrée pour cet actif (même CVE).',
  // The threats API's own (POST /api/threats/).
  threatTitleRequired: 'Le titre est requis.',
  threatTitleTooLong: `Le titre ne doit pas dépasser ${LIMITS.threatTitle} caractères.`,
  threatDescriptionTooLong: `La description ne doit pas dépasser ${LIMITS.threatDescription} caractères.`,
  tooLong: (field: string) => `Le champ ${field} ne doit pas dépasser ${LIMITS.threatShort} caractères.`,
  contradiction: 'is_mitigated et status se contredisent : une menace atténuée a le statut MITIGATED ou CLOSED.',
} as const;
const MESSAGES = LINK_MESSAGES;

const nullableText = (max: number) => orNull('string', { maxLength: max });
const nullableInt = () => orNull('integer');

/**
 * POST body of a link: the project, the id of an existing object of the tenant to link, or the fields of a new one
 * (ignored when an id is given). With `reply`, the other fields of the link as read are accepted and ignored.
 */
function linkBody<K extends string, F extends Record<string, TSchema>>(
  idField: K,
  fields: F,
  reply?: { properties: object },
) {
  const writable = {
    project: Type.Integer({ errorMessage: { required: MESSAGES.projectRequired } }),
    ...(Object.fromEntries([[idField, nullableInt()]]) as Record<K, ReturnType<typeof nullableInt>>),
    ...fields,
  };
  return reply ? writeBody(reply, writable) : Type.Object(writable, { additionalProperties: false });
}

/** Link an existing asset (`asset_id`), or create one as /api/assets/ does and link it. */
export const AssetLinkBody = linkBody('asset_id', assetFields, ProjectAssetSchema);
/** PUT/PATCH change the asset itself; the link's own fields, sent back from a read, are ignored. */
export const AssetUpdateBody = writeBody(ProjectAssetSchema, assetFields);

/** Link an existing finding (`vulnerability_id`), or create one from these fields and link it. */
export const FindingLinkBody = linkBody('vulnerability_id', {
  title: text(LIMITS.text),
  cve_id: nullableText(LIMITS.word),
  asset_id: nullableInt(),
  severity: SEVERITY.field,
  cvss_score: orNull('number'),
  description: text(LIMITS.longText),
  solution: text(LIMITS.longText),
  port: nullableInt(),
  protocol: nullableText(LIMITS.protocol),
  service: nullableText(LIMITS.service),
});
export type FindingLinkBody = Static<typeof FindingLinkBody>;

/** Link an existing threat (`threat_id`), or create one from these fields and link it. */
export const ThreatLinkBody = linkBody('threat_id', {
  title: text(LIMITS.text),
  description: text(LIMITS.longText),
  threat_type: text(LIMITS.text),
  severity: SEVERITY.field,
  status: STATUS.field,
  is_mitigated: Type.Optional(Type.Boolean()),
  source: text(LIMITS.text),
  cve_id: nullableText(LIMITS.word),
  asset_id: nullableInt(),
});
export type ThreatLinkBody = Static<typeof ThreatLinkBody>;

/** mark_resolved: resolves the finding (the default), or reopens it with `is_resolved: false`. */
export const ResolveBody = Type.Unsafe<{ is_resolved?: boolean } | null>({
  type: ['object', 'null'],
  additionalProperties: false,
  properties: { is_resolved: { type: 'boolean' } },
});

/** The paging and project filter every link list has, plus the kind's own filters. */
const LinkQuery = <K extends string>(filters: Record<K, string>) =>
  ListQuery({ project: 'Identifiant du projet (sinon, les liens de tous les projets lisibles)', ...filters });
export const AssetLinkQuery = LinkQuery({});
export const ThreatLinkQuery = LinkQuery({});
export const FindingLinkQuery = LinkQuery({
  severity: 'Sévérités, séparées par des virgules',
  is_resolved: 'Résolues (true) ou non (false)',
});

/** A link list's paging and project, then the kind's own filters (`own`), every error at once. */
export function readLinkQuery<F>(query: RawQuery, own: (errors: FieldErrors) => F) {
  const errors = new FieldErrors();
  const paging = parsePaging(errors, query, PAGE_SIZE);
  const projectId = parseQueryId(errors, query, 'project');
  const filters = own(errors);
  errors.throwIfAny();
  const limit = paging.pageSize;
  return { paging, page: { projectId, limit, offset: (paging.page - 1) * limit }, filters };
}

/** The findings list's own filters. */
export const findingLinkFilters = (query: RawQuery) => (errors: FieldErrors) => ({
  severities: parseSeverities(errors, query.severity),
  isResolved: parseBoolean(errors, query, 'is_resolved'),
});

/** As POST /api/vulnerabilities/vulnerabilities/ checks a new finding (CVE facts are merged afterwards). */
export function validateFinding(body: FindingLinkBody): VulnerabilityValues & { cveId?: string | null } {
  const errors = new FieldErrors();
  const out: VulnerabilityValues & { cveId?: string | null } = {};
  if (body.title !== undefined) {
    const title = body.title.trim();
    if (title.length > LIMITS.findingTitle) errors.add('title', MESSAGES.findingTitleTooLong);
    else if (title !== '') out.title = title;
  }
  if (body.cve_id !== undefined) {
    const cve = body.cve_id?.trim().toUpperCase() ?? '';
    if (cve === '') out.cveId = null;
    else if (!CVE_RE.test(cve)) errors.add('cve_id', CVE_INVALID);
    else out.cveId = cve;
  }
  if (body.asset_id !== undefined) {
    if (body.asset_id !== null && body.asset_id < 1) errors.add('asset_id', ASSET_UNKNOWN);
    else out.assetId = body.asset_id;
  }
  if (body.severity !== undefined) {
    const s = body.severity.trim().toLowerCase();
    if (SEVERITY.has(s)) out.severity = s;
    else errors.add('severity', SEVERITY.message);
  }
  const inRange = (value: number | null, min: number, max: number) => value === null || (value >= min && value <= max);
  if (body.cvss_score !== undefined) {
    if (inRange(body.cvss_score, 0, 10)) out.cvssScore = body.cvss_score;
    else errors.add('cvss_score', MESSAGES.cvss);
  }
  if (body.port !== undefined) {
    if (inRange(body.port, 0, 65535)) out.port = body.port;
    else errors.add('port', MESSAGES.port);
  }
  if (body.description !== undefined) out.description = body.description;
  if (body.solution !== undefined) out.solution = body.solution;
  if (body.protocol !== undefined) out.protocol = body.protocol?.trim() || null;
  if (body.service !== undefined) out.service = body.service?.trim() || null;
  errors.throwIfAny();
  return out;
}

/**
 * As POST /api/threats/ checks a new threat (first error only): its fields, and the mitigation it asks (kept
 * consistent by domain/threat-mitigation.ts). The asset is checked by the caller.
 */
export function validateThreat(body: ThreatLinkBody) {
  const title = trimmed(
    body.title,
    false,
    'title',
    LIMITS.threatTitle,
    MESSAGES.threatTitleTooLong,
    MESSAGES.threatTitleRequired,
  )!;
  const description = trimmed(
    body.description,
    false,
    'description',
    LIMITS.threatDescription,
    MESSAGES.threatDescriptionTooLong,
  )!;
  const short = (field: 'threat_type' | 'source') =>
    trimmed(body[field], false, field, LIMITS.threatShort, MESSAGES.tooLong(field))!;
  const threatType = short('threat_type') || 'other';
  const source = short('source');
  let severity: Severity = 'medium';
  if (body.severity !== undefined) {
    if (!SEVERITY.has(body.severity)) throw invalid('severity', SEVERITY.message);
    severity = body.severity;
  }
  const cve = (body.cve_id ?? '').trim().toUpperCase();
  if (cve !== '' && !CVE_RE.test(cve)) throw invalid('cve_id', CVE_INVALID);
  let status: ThreatStatus | undefined;
  if (body.status !== undefined) {
    if (!STATUS.has(body.status)) throw invalid('status', STATUS.message);
    status = body.status;
  }
  const asked = { status, isMitigated: body.is_mitigated };
  if (contradicts(asked)) throw invalid('is_mitigated', MESSAGES.contradiction);
  const values: ThreatValues & { title: string } = {
    title,
    description,
    threatType,
    source,
    severity,
    cveId: cve || null,
    assetId: body.asset_id ?? null,
  };
  return { values, asked };
}
