import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { SEVERITIES, THREAT_STATUSES, type ThreatStatus } from '../../../db/schema.ts';
import type { TenantDb } from '../../../db/tenant-scope.ts';
import { FieldErrors, notFound } from '../../../domain/errors.ts';
import { currentTenant, signedIn } from '../../../plugins/app/authorization.ts';
import {
  presentThreat,
  presentThreatSummary,
  ThreatPageSchema,
  ThreatSchema,
  ThreatSummarySchema,
} from '../../../presenters/threat.ts';
import { ThreatsRepository, type ThreatRow, type ThreatValues } from '../../../repositories/threats.ts';
import {
  Choice,
  IdParams,
  NoContent,
  replies,
  type Static,
  Type,
  WriteBody as writeBody,
} from '../../../schemas/common.ts';
import { csvOf, parseText, positiveInt } from '../../../schemas/query.ts';
import { checkAsset, found, taggedRoutes } from '../shared.ts';
import { CVE_INVALID, CVE_RE, invalid, optionalText, orNull, trimmed } from '../../../schemas/fields.ts';

const LIST_PATH = '/api/threats/';
const ITEM_PATH = `${LIST_PATH}:id/`;
const DEFAULT_SIZE = 10;
const MAX_SIZE = 100;
const RECENT = 5;
const MAX_TITLE = 300;
const MAX_DESCRIPTION = 20_000;
const MAX_SHORT = 200;

const MESSAGES = {
  pageInvalid: 'Numéro de page invalide : un entier supérieur ou égal à 1 est attendu.',
  sizeInvalid: `Taille de page invalide : un entier entre 1 et ${MAX_SIZE} est attendu.`,
  severityInvalid: `Sévérité invalide. Valeurs possibles : ${SEVERITIES.join(', ')}.`,
  statusInvalid: `Statut invalide. Valeurs possibles : ${THREAT_STATUSES.join(', ')}.`,
  mitigatedInvalid: 'Valeur invalide pour is_mitigated : true ou false attendu.',
  titleRequired: 'Le titre est requis.',
  titleTooLong: `Le titre ne doit pas dépasser ${MAX_TITLE} caractères.`,
  descriptionTooLong: `La description ne doit pas dépasser ${MAX_DESCRIPTION} caractères.`,
  tooLong: (field: string) => `Le champ ${field} ne doit pas dépasser ${MAX_SHORT} caractères.`,
  contradiction: 'is_mitigated et status se contredisent : une menace atténuée a le statut MITIGATED ou CLOSED.',
} as const;

const queryText = (description: string, maxLength?: number) =>
  Type.Optional(Type.String({ description, ...(maxLength === undefined ? {} : { maxLength }) }));
const ListThreatsQuery = Type.Object(
  {
    page: queryText('Numéro de page, à partir de 1'),
    size: queryText(`Taille de page (défaut ${DEFAULT_SIZE}, au plus ${MAX_SIZE})`),
    severity: queryText(`Sévérités séparées par des virgules : ${SEVERITIES.join(', ')}`, 200),
    status: queryText(`Statuts séparés par des virgules : ${THREAT_STATUSES.join(', ')}`, 200),
    text: queryText('Recherche dans le titre, la description, la source et la CVE', 4096),
    is_mitigated: queryText('true ou false'),
  },
  { additionalProperties: true },
);

/** Types and sizes by the schema; trimming, defaults and the French messages by `validateBody`. */
const ThreatBody = writeBody(ThreatSchema, {
  title: optionalText(4096, MESSAGES.titleTooLong),
  description: optionalText(100_000, MESSAGES.descriptionTooLong),
  threat_type: optionalText(4096, MESSAGES.tooLong('threat_type')),
  severity: Type.Optional(Choice(SEVERITIES, { errorMessage: MESSAGES.severityInvalid })),
  status: Type.Optional(Choice(THREAT_STATUSES, { errorMessage: MESSAGES.statusInvalid })),
  is_mitigated: Type.Optional(Type.Boolean()),
  source: optionalText(4096, MESSAGES.tooLong('source')),
  cve_id: orNull('string', { maxLength: 64, errorMessage: CVE_INVALID }),
  asset_id: orNull('integer'),
});
type ThreatBody = Static<typeof ThreatBody>;

interface ValidBody {
  values: ThreatValues;
  status?: ThreatStatus | undefined;
  isMitigated?: boolean | undefined;
}

/** Field checks with French messages; `partial` for PATCH (absent fields stay as they are). */
function validateBody(body: ThreatBody, partial: boolean): ValidBody {
  const text = (field: 'title' | 'description' | 'threat_type' | 'source', max: number, tooLong: string) =>
    trimmed(body[field], partial, field, max, tooLong, field === 'title' ? MESSAGES.titleRequired : undefined);
  const given = (value: unknown) => value !== undefined || !partial;
  const values: ThreatValues = {
    title: text('title', MAX_TITLE, MESSAGES.titleTooLong),
    description: text('description', MAX_DESCRIPTION, MESSAGES.descriptionTooLong),
    threatType: text('threat_type', MAX_SHORT, MESSAGES.tooLong('threat_type')),
    source: text('source', MAX_SHORT, MESSAGES.tooLong('source')),
    severity: given(body.severity) ? (body.severity ?? 'medium') : undefined,
    assetId: given(body.asset_id) ? (body.asset_id ?? null) : undefined,
  };
  if (values.threatType === '') values.threatType = 'other';
  if (given(body.cve_id)) {
    const cve = (body.cve_id ?? '').trim().toUpperCase();
    if (cve !== '' && !CVE_RE.test(cve)) throw invalid('cve_id', CVE_INVALID);
    values.cveId = cve || null;
  }
  const status = body.status;
  const mitigatedState = status === 'MITIGATED' || status === 'CLOSED' || status === undefined;
  if ((status === 'MITIGATED' && body.is_mitigated === false) || (body.is_mitigated === true && !mitigatedState)) {
    throw invalid('is_mitigated', MESSAGES.contradiction);
  }
  return { values, status, isMitigated: body.is_mitigated };
}

/**
 * Keeps status and is_mitigated consistent: MITIGATED means mitigated (with when and by whom); going back to
 * ACTIVE or INVESTIGATING, or is_mitigated false, clears it. CLOSED leaves the mitigation as it was.
 */
function mitigation(
  input: ValidBody,
  current: ThreatRow | undefined,
  userId: number,
  fullUpdate: boolean,
): ThreatValues {
  const explicit = input.status;
  let status: ThreatStatus = explicit ?? (!fullUpdate && current ? current.status : 'ACTIVE');
  let mitigated: boolean;
  if (explicit === 'MITIGATED' || input.isMitigated === true) {
    mitigated = true;
    if (explicit === undefined) status = 'MITIGATED';
  } else if (input.isMitigated === false) {
    mitigated = false;
    if (status === 'MITIGATED') status = 'ACTIVE';
  } else if (status === 'ACTIVE' || status === 'INVESTIGATING') {
    mitigated = false;
  } else {
    mitigated = status === 'MITIGATED' || (current?.isMitigated ?? false);
  }
  if (!mitigated) return { status, isMitigated: false, mitigatedAt: null, mitigatedBy: null };
  return {
    status,
    isMitigated: true,
    mitigatedAt: current?.isMitigated ? current.mitigatedAt : new Date(),
    mitigatedBy: current?.isMitigated ? current.mitigatedBy : userId,
  };
}

/** Threats (spec §3 threat summary and list page; docs/api-vulnerabilities.md § Threats). */
const threatRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const repo = new ThreatsRepository();
  const { read, write } = taggedRoutes(app, ['Menaces']);
  const assetExists = (tx: TenantDb, id: number) => repo.assetExists(tx, id);
  const load = (request: FastifyRequest, id: string) => found(request, (tx) => repo.find(tx, Number(id)));
  /** An updated threat, or 404 when it went away meanwhile. */
  const updated = (row: ThreatRow | undefined) => {
    if (!row) throw notFound();
    return presentThreat(row);
  };

  app.get(
    `${LIST_PATH}summary/`,
    read({ response: replies.signedIn({ 200: ThreatSummarySchema }) }),
    async (request) => {
      const { bySeverity, byStatus, recent } = await request.tenantDb(async (tx) => ({
        bySeverity: await repo.countsBy(tx, 'severity'),
        byStatus: await repo.countsBy(tx, 'status'),
        recent: await repo.recent(tx, RECENT),
      }));
      return presentThreatSummary(bySeverity, byStatus, recent);
    },
  );

  app.get(
    LIST_PATH,
    read({ querystring: ListThreatsQuery, response: replies.signedIn({ 200: ThreatPageSchema }, 400) }),
    async (request) => {
      const q = request.query;
      const errors = new FieldErrors();
      const page = positiveInt(q.page);
      if (page === null) errors.add('page', MESSAGES.pageInvalid);
      const size = positiveInt(q.size);
      if (size === null || (size !== undefined && size > MAX_SIZE)) errors.add('size', MESSAGES.sizeInvalid);
      const mitigated = q.is_mitigated || undefined;
      if (mitigated !== undefined && mitigated !== 'true' && mitigated !== 'false') {
        errors.add('is_mitigated', MESSAGES.mitigatedInvalid);
      }
      const filters = {
        text: parseText(errors, q, 'text'),
        severity: csvOf(errors, q.severity, SEVERITIES, 'severity', MESSAGES.severityInvalid),
        status: csvOf(errors, q.status, THREAT_STATUSES, 'status', MESSAGES.statusInvalid),
        isMitigated: mitigated === undefined ? undefined : mitigated === 'true',
      };
      errors.throwIfAny();
      const [p, n] = [page ?? 1, size ?? DEFAULT_SIZE];
      const { total, rows } = await request.tenantDb((tx) => repo.page(tx, filters, n, (p - 1) * n));
      return { results: rows.map(presentThreat), total, page: p, size: n, pages: Math.ceil(total / n) };
    },
  );

  app.post(
    LIST_PATH,
    write({ body: ThreatBody, response: replies.signedIn({ 201: ThreatSchema }, 400) }),
    async (request, reply) => {
      const input = validateBody(request.body, false);
      await checkAsset(request, input.values.assetId, assetExists);
      const tenant = currentTenant(request);
      const values = { ...input.values, ...mitigation(input, undefined, signedIn(request).user.id, true) };
      const created = await request.tenantDb((tx) => repo.create(tx, tenant, { ...values, title: values.title! }));
      return reply.code(201).send(presentThreat(created));
    },
  );

  app.get(
    ITEM_PATH,
    read({ params: IdParams, response: replies.signedIn({ 200: ThreatSchema }, 404) }),
    async (request) => presentThreat(await load(request, request.params.id)),
  );

  for (const method of ['put', 'patch'] as const) {
    app[method](
      ITEM_PATH,
      write({ params: IdParams, body: ThreatBody, response: replies.signedIn({ 200: ThreatSchema }, 400, 404) }),
      async (request) => {
        const current = await load(request, request.params.id);
        const input = validateBody(request.body, method === 'patch');
        if (input.values.assetId !== undefined) await checkAsset(request, input.values.assetId, assetExists);
        const userId = signedIn(request).user.id;
        const values = { ...input.values, ...mitigation(input, current, userId, method === 'put') };
        return updated(await request.tenantDb((tx) => repo.update(tx, current.id, values)));
      },
    );
  }

  app.delete(
    ITEM_PATH,
    write({ params: IdParams, response: replies.signedIn({ 204: NoContent }, 404) }),
    async (request, reply) => {
      const threat = await load(request, request.params.id);
      if (!(await request.tenantDb((tx) => repo.remove(tx, threat.id)))) throw notFound();
      return reply.code(204).send();
    },
  );

  app.post(
    `${ITEM_PATH}mark_mitigated/`,
    write({ params: IdParams, response: replies.signedIn({ 200: ThreatSchema }, 404) }),
    async (request) => {
      const threat = await load(request, request.params.id);
      const values = mitigation({ values: {}, status: 'MITIGATED' }, threat, signedIn(request).user.id, false);
      return updated(await request.tenantDb((tx) => repo.update(tx, threat.id, values)));
    },
  );
};

export default threatRoutes;
