/**
 * The inputs of a project's links to the tenant's assets, findings and threats (docs/api-projects.md): the POST
 * body (the project, and an existing target's id or a new target's fields, as their own APIs take them), the lists'
 * queries, and the French messages of the links themselves.
 */
import { FieldErrors } from '../../domain/errors.ts';
import { ProjectAssetSchema } from '../../presenters/project-links.ts';
import { assetFields } from '../assets.ts';
import { ListQuery, type Static, type TSchema, Type, WriteBody as writeBody } from '../common.ts';
import { ASSET_UNKNOWN, orNull } from '../fields.ts';
import { pageWindow, parseBoolean, parsePaging, parseQueryId, type RawQuery } from '../query.ts';
import { threatFields } from '../threats.ts';
import { parseSeverities, writeFields as findingFields } from '../vulnerabilities.ts';
import { PAGE_SIZE } from './choices.ts';

/** Every limit of the link routes, written once. */
export const LIMITS = {
  /** The findings and threats of one linked asset: a bare array, bounded so one huge scan cannot make a huge answer. */
  assetLists: 1000,
} as const;

export const LINK_MESSAGES = {
  projectRequired: 'Le projet est requis.',
  // What each kind says of an unknown target, and of one linked twice.
  assetUnknown: ASSET_UNKNOWN,
  assetLinked: 'Cet actif est déjà lié à ce projet.',
  findingUnknown: 'Vulnérabilité introuvable.',
  findingLinked: 'Cette vulnérabilité est déjà liée à ce projet.',
  threatUnknown: 'Menace introuvable.',
  threatLinked: 'Cette menace est déjà liée à ce projet.',
} as const;
const MESSAGES = LINK_MESSAGES;

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

/** Link an existing finding (`vulnerability_id`), or create one as /api/vulnerabilities/ does and link it. */
export const FindingLinkBody = linkBody('vulnerability_id', findingFields);
export type FindingLinkBody = Static<typeof FindingLinkBody>;

/** Link an existing threat (`threat_id`), or create one as /api/threats/ does and link it. */
export const ThreatLinkBody = linkBody('threat_id', threatFields);
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
  return { paging, page: { projectId, ...pageWindow(paging) }, filters };
}

/** The findings list's own filters. */
export const findingLinkFilters = (query: RawQuery) => (errors: FieldErrors) => ({
  severities: parseSeverities(errors, query.severity),
  isResolved: parseBoolean(errors, query, 'is_resolved'),
});
