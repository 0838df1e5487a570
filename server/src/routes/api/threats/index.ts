import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { SEVERITIES, THREAT_STATUSES, type Severity, type ThreatStatus } from '../../../db/schema.ts';
import { ApiError } from '../../../domain/errors.ts';
import { FORBIDDEN_MESSAGE } from '../../../policies/index.ts';
import { accessGuards, notFound, parseId } from '../shared.ts';
import { presentThreat } from '../../../presenters/threat.ts';
import { ThreatsRepository, type ThreatRow, type ThreatValues } from '../../../repositories/threats.ts';

const LIST_PATH = '/api/threats/';
const DEFAULT_SIZE = 10;
const MAX_SIZE = 100;
const RECENT = 5;
const MAX_TITLE = 300;
const MAX_DESCRIPTION = 20_000;
const MAX_SHORT = 200;
const MAX_TEXT = 200;

const MESSAGES = {
  pageInvalid: 'Numéro de page invalide : un entier supérieur ou égal à 1 est attendu.',
  sizeInvalid: `Taille de page invalide : un entier entre 1 et ${MAX_SIZE} est attendu.`,
  severityInvalid: `Sévérité invalide. Valeurs possibles : ${SEVERITIES.join(', ')}.`,
  statusInvalid: `Statut invalide. Valeurs possibles : ${THREAT_STATUSES.join(', ')}.`,
  mitigatedInvalid: 'Valeur invalide pour is_mitigated : true ou false attendu.',
  textTooLong: `La recherche ne doit pas dépasser ${MAX_TEXT} caractères.`,
  titleRequired: 'Le titre est requis.',
  titleTooLong: `Le titre ne doit pas dépasser ${MAX_TITLE} caractères.`,
  descriptionTooLong: `La description ne doit pas dépasser ${MAX_DESCRIPTION} caractères.`,
  tooLong: (field: string) => `Le champ ${field} ne doit pas dépasser ${MAX_SHORT} caractères.`,
  cveInvalid: 'Identifiant CVE invalide (format attendu : CVE-AAAA-NNNN).',
  assetUnknown: 'Actif introuvable.',
  contradiction: 'is_mitigated et status se contredisent : une menace atténuée a le statut MITIGATED ou CLOSED.',
} as const;

const invalid = (field: string, message: string) =>
  new ApiError(400, 'invalid', message, { fields: { [field]: [message] } });

interface ListQuery {
  page?: string;
  size?: string;
  severity?: string;
  status?: string;
  text?: string;
  is_mitigated?: string;
}

const listQuery = {
  type: 'object',
  properties: {
    page: { type: 'string' },
    size: { type: 'string' },
    severity: { type: 'string', maxLength: 200 },
    status: { type: 'string', maxLength: 200 },
    text: { type: 'string', maxLength: 4096 },
    is_mitigated: { type: 'string' },
  },
} as const;

interface IdParams {
  id: string;
}
const idParams = { type: 'object', required: ['id'], properties: { id: { type: 'string' } } } as const;

interface ThreatBody {
  title?: string;
  description?: string;
  threat_type?: string;
  severity?: string;
  status?: string;
  is_mitigated?: boolean;
  source?: string;
  cve_id?: string | null;
  asset_id?: number | null;
}

// Read-only fields a client may send back from a Threat it read: ignored.
const READ_ONLY = ['id', 'asset', 'mitigated_at', 'created_at', 'updated_at'] as const;

const threatBody = {
  type: 'object',
  additionalProperties: false,
  properties: {
    title: { type: 'string', maxLength: 4096 },
    description: { type: 'string', maxLength: 100_000 },
    threat_type: { type: 'string', maxLength: 4096 },
    severity: { type: 'string', maxLength: 64 },
    status: { type: 'string', maxLength: 64 },
    is_mitigated: { type: 'boolean' },
    source: { type: 'string', maxLength: 4096 },
    cve_id: { type: ['string', 'null'], maxLength: 64 },
    asset_id: { type: ['integer', 'null'] },
    ...Object.fromEntries(READ_ONLY.map((f) => [f, {}])),
  },
} as const;

function positiveInt(raw: string | undefined, fallback: number): number | undefined {
  if (raw === undefined || raw.trim() === '') return fallback;
  if (!/^\d{1,9}$/.test(raw.trim())) return undefined;
  const n = Number(raw.trim());
  return n >= 1 ? n : undefined;
}

function csvOf<T extends string>(raw: string | undefined, allowed: readonly T[], field: string, message: string) {
  if (raw === undefined || raw.trim() === '') return undefined;
  const values = raw.split(',').map((v) => v.trim());
  for (const v of values) if (!(allowed as readonly string[]).includes(v)) throw invalid(field, message);
  return values as T[];
}

const CVE_RE = /^CVE-\d{4}-\d{4,}$/;

interface ValidBody {
  values: ThreatValues;
  status?: ThreatStatus | undefined;
  isMitigated?: boolean | undefined;
}

/** Field checks with French messages; `partial` for PATCH (absent fields stay as they are). */
function validateBody(body: ThreatBody, partial: boolean): ValidBody {
  const values: ThreatValues = {};
  if (body.title !== undefined || !partial) {
    const title = (body.title ?? '').trim();
    if (title === '') throw invalid('title', MESSAGES.titleRequired);
    if (title.length > MAX_TITLE) throw invalid('title', MESSAGES.titleTooLong);
    values.title = title;
  }
  if (body.description !== undefined || !partial) {
    const description = (body.description ?? '').trim();
    if (description.length > MAX_DESCRIPTION) throw invalid('description', MESSAGES.descriptionTooLong);
    values.description = description;
  }
  for (const [field, key, fallback] of [
    ['threat_type', 'threatType', 'other'],
    ['source', 'source', ''],
  ] as const) {
    const raw = body[field];
    if (raw === undefined && partial) continue;
    const value = (raw ?? '').trim() || fallback;
    if (value.length > MAX_SHORT) throw invalid(field, MESSAGES.tooLong(field));
    values[key] = value;
  }
  if (body.severity !== undefined) {
    if (!(SEVERITIES as readonly string[]).includes(body.severity)) throw invalid('severity', MESSAGES.severityInvalid);
    values.severity = body.severity as Severity;
  } else if (!partial) {
    values.severity = 'medium';
  }
  if (body.cve_id !== undefined || !partial) {
    const cve = (body.cve_id ?? '').trim().toUpperCase();
    if (cve !== '' && !CVE_RE.test(cve)) throw invalid('cve_id', MESSAGES.cveInvalid);
    values.cveId = cve || null;
  }
  if (body.asset_id !== undefined || !partial) values.assetId = body.asset_id ?? null;
  let status: ThreatStatus | undefined;
  if (body.status !== undefined) {
    if (!(THREAT_STATUSES as readonly string[]).includes(body.status)) throw invalid('status', MESSAGES.statusInvalid);
    status = body.status as ThreatStatus;
  }
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

/** Threats (§3 threat summary and list page; docs/api-vulnerabilities.md § Threats). */
const threatRoutes: FastifyPluginAsync = async (app) => {
  const repo = new ThreatsRepository();

  // Authorization runs before body validation, so a viewer always gets the 403 (and the refusal is audited).
  const { read: reading, write: writing } = accessGuards(app);

  const tenantId = (request: FastifyRequest) => {
    const tenant = request.auth!.tenant;
    if (!tenant) throw new ApiError(403, 'permission_denied', FORBIDDEN_MESSAGE);
    return tenant.id;
  };

  const load = async (request: FastifyRequest, rawId: string): Promise<ThreatRow> => {
    const id = parseId(rawId);
    const row = id === undefined ? undefined : await request.tenantDb((tx) => repo.find(tx, id));
    if (!row) throw notFound();
    return row;
  };

  const checkAsset = async (request: FastifyRequest, assetId: number | null | undefined) => {
    if (assetId === null || assetId === undefined) return;
    if (!(await request.tenantDb((tx) => repo.assetExists(tx, assetId)))) {
      throw invalid('asset_id', MESSAGES.assetUnknown);
    }
  };

  app.get(`${LIST_PATH}summary/`, reading, async (request) => {
    const { bySeverity, byStatus, recent } = await request.tenantDb(async (tx) => ({
      bySeverity: await repo.countsBy(tx, 'severity'),
      byStatus: await repo.countsBy(tx, 'status'),
      recent: await repo.recent(tx, RECENT),
    }));
    // Every severity and status appears, zeros included, in their fixed order.
    return {
      threats_count: [...bySeverity.values()].reduce((a, b) => a + b, 0),
      by_severity: SEVERITIES.map((severity) => ({ severity, count: bySeverity.get(severity) ?? 0 })),
      by_status: THREAT_STATUSES.map((status) => ({ status, count: byStatus.get(status) ?? 0 })),
      recent_threats: recent.map(presentThreat),
    };
  });

  app.get<{ Querystring: ListQuery }>(
    LIST_PATH,
    { ...reading, schema: { querystring: listQuery } },
    async (request) => {
      const q = request.query;
      const page = positiveInt(q.page, 1);
      if (page === undefined) throw invalid('page', MESSAGES.pageInvalid);
      const size = positiveInt(q.size, DEFAULT_SIZE);
      if (size === undefined || size > MAX_SIZE) throw invalid('size', MESSAGES.sizeInvalid);
      let isMitigated: boolean | undefined;
      if (q.is_mitigated !== undefined && q.is_mitigated !== '') {
        if (q.is_mitigated !== 'true' && q.is_mitigated !== 'false') {
          throw invalid('is_mitigated', MESSAGES.mitigatedInvalid);
        }
        isMitigated = q.is_mitigated === 'true';
      }
      const text = (q.text ?? '').trim();
      if (text.length > MAX_TEXT) throw invalid('text', MESSAGES.textTooLong);
      const filters = {
        severity: csvOf(q.severity, SEVERITIES, 'severity', MESSAGES.severityInvalid),
        status: csvOf(q.status, THREAT_STATUSES, 'status', MESSAGES.statusInvalid),
        text: text || undefined,
        isMitigated,
      };
      const { total, rows } = await request.tenantDb((tx) => repo.page(tx, filters, size, (page - 1) * size));
      return { results: rows.map(presentThreat), total, page, size, pages: Math.ceil(total / size) };
    },
  );

  app.post<{ Body: ThreatBody }>(LIST_PATH, { ...writing, schema: { body: threatBody } }, async (request, reply) => {
    const input = validateBody(request.body, false);
    await checkAsset(request, input.values.assetId);
    const tenant = tenantId(request);
    const values = { ...input.values, ...mitigation(input, undefined, request.auth!.user.id, true) };
    const created = await request.tenantDb((tx) => repo.create(tx, tenant, { ...values, title: values.title! }));
    return reply.code(201).send(presentThreat(created));
  });

  app.get<{ Params: IdParams }>(`${LIST_PATH}:id/`, { ...reading, schema: { params: idParams } }, async (request) =>
    presentThreat(await load(request, request.params.id)),
  );

  for (const method of ['PUT', 'PATCH'] as const) {
    app.route<{ Params: IdParams; Body: ThreatBody }>({
      method,
      url: `${LIST_PATH}:id/`,
      ...writing,
      schema: { params: idParams, body: threatBody },
      handler: async (request) => {
        const current = await load(request, request.params.id);
        const input = validateBody(request.body, method === 'PATCH');
        if (input.values.assetId !== undefined) await checkAsset(request, input.values.assetId);
        const values = {
          ...input.values,
          ...mitigation(input, current, request.auth!.user.id, method === 'PUT'),
        };
        const updated = await request.tenantDb((tx) => repo.update(tx, current.id, values));
        if (!updated) throw notFound();
        return presentThreat(updated);
      },
    });
  }

  app.delete<{ Params: IdParams }>(
    `${LIST_PATH}:id/`,
    { ...writing, schema: { params: idParams } },
    async (request, reply) => {
      const threat = await load(request, request.params.id);
      if (!(await request.tenantDb((tx) => repo.remove(tx, threat.id)))) throw notFound();
      return reply.code(204).send();
    },
  );

  app.post<{ Params: IdParams }>(
    `${LIST_PATH}:id/mark_mitigated/`,
    { ...writing, schema: { params: idParams } },
    async (request) => {
      const threat = await load(request, request.params.id);
      const values = mitigation({ values: {}, status: 'MITIGATED' }, threat, request.auth!.user.id, false);
      const updated = await request.tenantDb((tx) => repo.update(tx, threat.id, values));
      if (!updated) throw notFound();
      return presentThreat(updated);
    },
  );
};

export default threatRoutes;
