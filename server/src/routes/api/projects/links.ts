import { randomUUID } from 'node:crypto';
import { isIP } from 'node:net';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import {
  ASSET_TYPES,
  CRITICALITIES,
  SEVERITIES,
  THREAT_STATUSES,
  type AssetType,
  type Criticality,
  type Severity,
  type ThreatStatus,
} from '../../../db/schema.ts';
import type { TenantDb } from '../../../db/tenant-scope.ts';
import { ApiError } from '../../../domain/errors.ts';
import { presentThreat } from '../../../presenters/threat.ts';
import { presentVulnerability } from '../../../presenters/vulnerability.ts';
import {
  presentProjectAsset,
  presentProjectThreat,
  presentProjectVulnerability,
} from '../../../presenters/project-links.ts';
import { AssetsRepository, type AssetValues } from '../../../repositories/assets.ts';
import type { ActivityEntry } from '../../../repositories/project-access.ts';
import { foreignKeyViolation, ProjectLinksRepository, type LinkType } from '../../../repositories/project-links.ts';
import { uniqueViolation } from '../../../repositories/tenant-users.ts';
import { ThreatsRepository, type ThreatValues } from '../../../repositories/threats.ts';
import { VulnerabilitiesRepository, type VulnerabilityValues } from '../../../repositories/vulnerabilities.ts';
import { FieldErrors } from '../../../domain/errors.ts';
import { parseSeverities } from '../vulnerabilities/index.ts';
import {
  accessGuards,
  idParams,
  notFound,
  pagedResponse,
  parseBoolean,
  parseId,
  parsePaging,
  parseQueryId,
  stringQuery,
  type RawQuery,
} from '../shared.ts';
import { auditProjectWrite, projectGate, type ProjectNeed } from './access.ts';

/** A title quoted in an activity summary, kept short. */
export const quoted = (text: string) => `« ${text.length > 120 ? `${text.slice(0, 119)}…` : text} »`;

// ---------------------------------------------------------------------------------------------------------------
// Validation. The inventory's own rules and messages (assets, vulnerabilities and threats routes), applied here
// to the "create and link" bodies.

const MAX_PAGE_SIZE = 100;
const ASSET_LIST_LIMIT = 1000;
const CVE_RE = /^CVE-\d{4}-\d{4,}$/;

const MESSAGES = {
  projectRequired: 'Le projet est requis.',
  assetUnknown: 'Actif introuvable.',
  vulnerabilityUnknown: 'Vulnérabilité introuvable.',
  threatUnknown: 'Menace introuvable.',
  assetLinked: 'Cet actif est déjà lié à ce projet.',
  vulnerabilityLinked: 'Cette vulnérabilité est déjà liée à ce projet.',
  threatLinked: 'Cette menace est déjà liée à ce projet.',
  // Assets.
  nameRequired: 'Le nom de l’actif est requis.',
  nameTooLong: 'Le nom ne doit pas dépasser 200 caractères.',
  assetDuplicate: 'Un actif porte déjà ce nom.',
  assetType: `Type d’actif invalide. Valeurs possibles : ${ASSET_TYPES.join(', ')}.`,
  criticality: `Criticité invalide. Valeurs possibles : ${CRITICALITIES.join(', ')}.`,
  ip: 'Adresse IP invalide.',
  tags: 'Au plus 50 étiquettes de 100 caractères chacune.',
  // Findings.
  severity: `Sévérité invalide. Valeurs possibles : ${SEVERITIES.join(', ')}.`,
  findingTitleRequired: 'Le titre est requis (ou un identifiant CVE connu).',
  findingTitleTooLong: 'Le titre ne doit pas dépasser 500 caractères.',
  cveInvalid: 'Identifiant CVE invalide (format attendu : CVE-AAAA-NNNN).',
  cvss: 'Le score CVSS doit être compris entre 0 et 10.',
  port: 'Le port doit être un entier entre 0 et 65535.',
  findingDuplicate: 'Cette vulnérabilité est déjà enregistrée pour cet actif (même CVE).',
  // Threats.
  threatTitleRequired: 'Le titre est requis.',
  threatTitleTooLong: 'Le titre ne doit pas dépasser 300 caractères.',
  descriptionTooLong: 'La description ne doit pas dépasser 20000 caractères.',
  tooLong: (field: string) => `Le champ ${field} ne doit pas dépasser 200 caractères.`,
  statusInvalid: `Statut invalide. Valeurs possibles : ${THREAT_STATUSES.join(', ')}.`,
  contradiction: 'is_mitigated et status se contredisent : une menace atténuée a le statut MITIGATED ou CLOSED.',
} as const;

const invalid = (field: string, message: string) =>
  new ApiError(400, 'invalid', message, { fields: { [field]: [message] } });
const conflict = (field: string, message: string) =>
  new ApiError(409, 'duplicate', message, { fields: { [field]: [message] } });

const nullableString = (max: number) => ({ type: ['string', 'null'], maxLength: max });
const assetProperties = {
  name: { type: 'string', maxLength: 1000 },
  asset_type: { type: 'string', maxLength: 32 },
  hostname: nullableString(1000),
  ip_address: nullableString(1000),
  operating_system: nullableString(1000),
  criticality: { type: 'string', maxLength: 32 },
  owner: nullableString(1000),
  description: { type: 'string', maxLength: 100_000 },
  tags: { type: 'array', maxItems: 1000, items: { type: 'string', maxLength: 1000 } },
};
// Fields a client may send back from an object it read: ignored.
const ignored = (...names: string[]) => Object.fromEntries(names.map((n) => [n, {}]));

interface AssetBody {
  project?: number;
  asset_id?: number | null;
  name?: string;
  asset_type?: string;
  hostname?: string | null;
  ip_address?: string | null;
  operating_system?: string | null;
  criticality?: string;
  owner?: string | null;
  description?: string;
  tags?: string[];
}

const assetCreateBody = {
  type: 'object',
  additionalProperties: false,
  properties: {
    project: { type: 'integer' },
    asset_id: { type: ['integer', 'null'] },
    ...assetProperties,
    ...ignored('id', 'vulnerabilities_count', 'created_at', 'updated_at'),
  },
} as const;
const assetUpdateBody = {
  type: 'object',
  additionalProperties: false,
  properties: {
    ...assetProperties,
    ...ignored('id', 'project', 'asset_id', 'vulnerabilities_count', 'created_at', 'updated_at'),
  },
} as const;

const isAssetType = (v: string): v is AssetType => (ASSET_TYPES as readonly string[]).includes(v);
const isCriticality = (v: string): v is Criticality => (CRITICALITIES as readonly string[]).includes(v);
const optional = (v: string | null | undefined) => (v === undefined ? undefined : v?.trim() || null);

/** As POST/PUT /api/assets/ check an asset. */
function validateAsset(body: AssetBody, requireName: boolean): AssetValues {
  const errors = new FieldErrors();
  const out: AssetValues = {};
  const name = body.name?.trim();
  if (name === undefined || name === '') {
    if (requireName || name === '') errors.add('name', MESSAGES.nameRequired);
  } else if (name.length > 200) errors.add('name', MESSAGES.nameTooLong);
  else out.name = name;
  if (body.asset_type !== undefined) {
    const t = body.asset_type.trim().toLowerCase();
    if (isAssetType(t)) out.assetType = t;
    else errors.add('asset_type', MESSAGES.assetType);
  }
  if (body.criticality !== undefined) {
    const c = body.criticality.trim().toLowerCase();
    if (isCriticality(c)) out.criticality = c;
    else errors.add('criticality', MESSAGES.criticality);
  }
  const ip = optional(body.ip_address);
  if (ip && isIP(ip) === 0) errors.add('ip_address', MESSAGES.ip);
  else if (ip !== undefined) out.ipAddress = ip;
  if (body.hostname !== undefined) out.hostname = optional(body.hostname)!;
  if (body.operating_system !== undefined) out.operatingSystem = optional(body.operating_system)!;
  if (body.owner !== undefined) out.owner = optional(body.owner)!;
  if (body.description !== undefined) out.description = body.description;
  if (body.tags !== undefined) {
    const tags = [...new Set(body.tags.map((t) => t.trim()).filter((t) => t !== ''))];
    if (tags.length > 50 || tags.some((t) => t.length > 100)) errors.add('tags', MESSAGES.tags);
    else out.tags = tags;
  }
  errors.throwIfAny();
  return out;
}

interface FindingBody {
  project?: number;
  vulnerability_id?: number | null;
  title?: string;
  cve_id?: string | null;
  asset_id?: number | null;
  severity?: string;
  cvss_score?: number | null;
  description?: string;
  solution?: string;
  port?: number | null;
  protocol?: string | null;
  service?: string | null;
}

const findingCreateBody = {
  type: 'object',
  additionalProperties: false,
  properties: {
    project: { type: 'integer' },
    vulnerability_id: { type: ['integer', 'null'] },
    title: { type: 'string', maxLength: 4096 },
    cve_id: nullableString(64),
    asset_id: { type: ['integer', 'null'] },
    severity: { type: 'string', maxLength: 32 },
    cvss_score: { type: ['number', 'null'] },
    description: { type: 'string', maxLength: 100_000 },
    solution: { type: 'string', maxLength: 100_000 },
    port: { type: ['integer', 'null'] },
    protocol: nullableString(32),
    service: nullableString(200),
  },
} as const;
const resolveBody = {
  type: ['object', 'null'],
  additionalProperties: false,
  properties: { is_resolved: { type: 'boolean' } },
} as const;

/** As POST /api/vulnerabilities/vulnerabilities/ checks a new finding (CVE facts are merged afterwards). */
function validateFinding(body: FindingBody): VulnerabilityValues & { cveId?: string | null } {
  const errors = new FieldErrors();
  const out: VulnerabilityValues & { cveId?: string | null } = {};
  if (body.title !== undefined) {
    const title = body.title.trim();
    if (title.length > 500) errors.add('title', MESSAGES.findingTitleTooLong);
    else if (title !== '') out.title = title;
  }
  if (body.cve_id !== undefined) {
    const cve = body.cve_id?.trim().toUpperCase() ?? '';
    if (cve === '') out.cveId = null;
    else if (!CVE_RE.test(cve)) errors.add('cve_id', MESSAGES.cveInvalid);
    else out.cveId = cve;
  }
  if (body.asset_id !== undefined) {
    if (body.asset_id !== null && body.asset_id < 1) errors.add('asset_id', MESSAGES.assetUnknown);
    else out.assetId = body.asset_id;
  }
  if (body.severity !== undefined) {
    const s = body.severity.trim().toLowerCase();
    if ((SEVERITIES as readonly string[]).includes(s)) out.severity = s as Severity;
    else errors.add('severity', MESSAGES.severity);
  }
  if (body.cvss_score !== undefined) {
    if (body.cvss_score !== null && (body.cvss_score < 0 || body.cvss_score > 10)) {
      errors.add('cvss_score', MESSAGES.cvss);
    } else out.cvssScore = body.cvss_score;
  }
  if (body.port !== undefined) {
    if (body.port !== null && (body.port < 0 || body.port > 65535)) errors.add('port', MESSAGES.port);
    else out.port = body.port;
  }
  if (body.description !== undefined) out.description = body.description;
  if (body.solution !== undefined) out.solution = body.solution;
  if (body.protocol !== undefined) out.protocol = body.protocol?.trim() || null;
  if (body.service !== undefined) out.service = body.service?.trim() || null;
  errors.throwIfAny();
  return out;
}

interface ThreatBody {
  project?: number;
  threat_id?: number | null;
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

const threatCreateBody = {
  type: 'object',
  additionalProperties: false,
  properties: {
    project: { type: 'integer' },
    threat_id: { type: ['integer', 'null'] },
    title: { type: 'string', maxLength: 4096 },
    description: { type: 'string', maxLength: 100_000 },
    threat_type: { type: 'string', maxLength: 4096 },
    severity: { type: 'string', maxLength: 64 },
    status: { type: 'string', maxLength: 64 },
    is_mitigated: { type: 'boolean' },
    source: { type: 'string', maxLength: 4096 },
    cve_id: nullableString(64),
    asset_id: { type: ['integer', 'null'] },
  },
} as const;

/** As POST /api/threats/ checks a new threat, with its status and mitigation kept consistent. */
function validateThreat(body: ThreatBody, userId: number): ThreatValues & { title: string } {
  const title = (body.title ?? '').trim();
  if (title === '') throw invalid('title', MESSAGES.threatTitleRequired);
  if (title.length > 300) throw invalid('title', MESSAGES.threatTitleTooLong);
  const description = (body.description ?? '').trim();
  if (description.length > 20_000) throw invalid('description', MESSAGES.descriptionTooLong);
  const threatType = (body.threat_type ?? '').trim() || 'other';
  if (threatType.length > 200) throw invalid('threat_type', MESSAGES.tooLong('threat_type'));
  const source = (body.source ?? '').trim();
  if (source.length > 200) throw invalid('source', MESSAGES.tooLong('source'));
  let severity: Severity = 'medium';
  if (body.severity !== undefined) {
    if (!(SEVERITIES as readonly string[]).includes(body.severity)) throw invalid('severity', MESSAGES.severity);
    severity = body.severity as Severity;
  }
  const cve = (body.cve_id ?? '').trim().toUpperCase();
  if (cve !== '' && !CVE_RE.test(cve)) throw invalid('cve_id', MESSAGES.cveInvalid);
  let status: ThreatStatus | undefined;
  if (body.status !== undefined) {
    if (!(THREAT_STATUSES as readonly string[]).includes(body.status)) throw invalid('status', MESSAGES.statusInvalid);
    status = body.status as ThreatStatus;
  }
  const mitigatedState = status === 'MITIGATED' || status === 'CLOSED' || status === undefined;
  if ((status === 'MITIGATED' && body.is_mitigated === false) || (body.is_mitigated === true && !mitigatedState)) {
    throw invalid('is_mitigated', MESSAGES.contradiction);
  }
  const mitigated = status === 'MITIGATED' || body.is_mitigated === true;
  if (body.is_mitigated === true && status === undefined) status = 'MITIGATED';
  return {
    title,
    description,
    threatType,
    source,
    severity,
    cveId: cve || null,
    assetId: body.asset_id ?? null,
    status: status ?? 'ACTIVE',
    isMitigated: mitigated,
    mitigatedAt: mitigated ? new Date() : null,
    mitigatedBy: mitigated ? userId : null,
  };
}

function projectOf(body: { project?: number }): number {
  if (body.project === undefined) throw invalid('project', MESSAGES.projectRequired);
  // Not a possible id: unknown, like any project the caller cannot see.
  const id = parseId(String(body.project));
  if (id === undefined) throw notFound();
  return id;
}

function listFilters(errors: FieldErrors, query: RawQuery) {
  const paging = parsePaging(errors, query, MAX_PAGE_SIZE);
  const projectId = parseQueryId(errors, query, 'project');
  return { paging, projectId, limit: paging.pageSize, offset: (paging.page - 1) * paging.pageSize };
}

// ---------------------------------------------------------------------------------------------------------------

const PATHS = {
  asset: '/api/projects/assets/',
  vulnerability: '/api/projects/vulnerabilities/',
  threat: '/api/projects/threats/',
} as const;
const OBJECT_TYPES = { asset: 'project_asset', vulnerability: 'project_vulnerability', threat: 'project_threat' };
const ASSET_KEYS = ['page', 'page_size', 'project'] as const;
const VULNERABILITY_KEYS = ['page', 'page_size', 'project', 'severity', 'is_resolved'] as const;
const THREAT_KEYS = ASSET_KEYS;

/**
 * A project's links to the tenant's inventory (docs/api-projects.md "Project assets, findings and threats"):
 * lists over readable projects, link-or-create, and changes made through the link to the asset, the finding or
 * the threat itself.
 */
const linkRoutes: FastifyPluginAsync = async (app) => {
  const guard = accessGuards(app);
  const scope = projectGate();
  const links = new ProjectLinksRepository();
  const assetsRepo = new AssetsRepository();
  const findings = new VulnerabilitiesRepository();
  const threatsRepo = new ThreatsRepository();

  const linkIdOf = (request: FastifyRequest<{ Params: { id: string } }>) => {
    const id = parseId(request.params.id);
    if (id === undefined) throw notFound();
    return id;
  };

  /** The link's project through the gate: 404 when the link or its project is out of reach. */
  const reach = async (request: FastifyRequest, tx: TenantDb, type: LinkType, linkId: number, need: ProjectNeed) => {
    const ref = await links.ref(tx, type, linkId);
    if (!ref) throw notFound();
    await scope.require(request, tx, ref.projectId, need);
    return ref;
  };

  const entry = (
    request: FastifyRequest,
    type: LinkType,
    projectId: number,
    linkId: number,
    action: string,
    summary: string,
  ): ActivityEntry => ({
    projectId,
    userId: request.auth!.actor.userId,
    action,
    objectType: OBJECT_TYPES[type],
    objectId: linkId,
    summary,
  });

  /** Links inside the transaction; a second link of the same object → 409 on `field`. */
  const linkOnce = async (tx: TenantDb, type: LinkType, projectId: number, targetId: number, message: string) => {
    try {
      return await links.link(tx, type, projectId, targetId);
    } catch (err) {
      const field = { asset: 'asset_id', vulnerability: 'vulnerability_id', threat: 'threat_id' }[type];
      if (uniqueViolation(err) !== undefined) throw conflict(field, message);
      // The composite foreign key refuses another tenant's id (already checked above; a race lands here).
      if (foreignKeyViolation(err) !== undefined) throw invalid(field, MESSAGES[`${type}Unknown` as const]);
      throw err;
    }
  };

  /** Runs a write and its activity line, then audits it. */
  const write = async <T>(
    request: FastifyRequest,
    fn: (tx: TenantDb) => Promise<{ result: T; activity: ActivityEntry | null }>,
  ): Promise<T> => {
    const { result, activity } = await request.tenantDb(async (tx) => {
      const out = await fn(tx);
      if (out.activity) await scope.repo.record(tx, out.activity);
      return out;
    });
    if (activity) await auditProjectWrite(app, request, activity);
    return result;
  };

  // -------------------------------------------------------------------------------------------------------------
  // Assets.

  app.get<{ Querystring: RawQuery }>(
    PATHS.asset,
    { ...guard.read, schema: { querystring: stringQuery(ASSET_KEYS) } },
    async (request) => {
      const errors = new FieldErrors();
      const { paging, ...opts } = listFilters(errors, request.query);
      errors.throwIfAny();
      const page = await request.tenantDb((tx) => links.assetPage(tx, request.auth!.actor, opts));
      return pagedResponse(
        PATHS.asset,
        request.query,
        ASSET_KEYS,
        paging,
        page.count,
        page.rows.map(presentProjectAsset),
      );
    },
  );

  app.post<{ Body: AssetBody }>(
    PATHS.asset,
    { ...guard.write, schema: { body: assetCreateBody } },
    async (request, reply) => {
      const body = request.body;
      const projectId = projectOf(body);
      const linkId = await write(request, async (tx) => {
        await scope.require(request, tx, projectId, 'edit');
        let assetId: number;
        let summary: string;
        let action = 'linked';
        // An id links the existing asset (any asset fields beside it are ignored); without one, the asset is new.
        if (body.asset_id !== undefined && body.asset_id !== null) {
          const asset = body.asset_id >= 1 ? await assetsRepo.find(tx, body.asset_id) : undefined;
          if (!asset) throw invalid('asset_id', MESSAGES.assetUnknown);
          assetId = asset.id;
          summary = `Actif ${quoted(asset.name)} lié au projet`;
        } else {
          const values = validateAsset(body, true);
          try {
            const created = await assetsRepo.create(tx, { ...values, name: values.name! });
            assetId = created.id;
            summary = `Actif ${quoted(created.name)} créé et lié au projet`;
            action = 'created';
          } catch (err) {
            if (uniqueViolation(err) !== undefined) throw conflict('name', MESSAGES.assetDuplicate);
            throw err;
          }
        }
        const id = await linkOnce(tx, 'asset', projectId, assetId, MESSAGES.assetLinked);
        return { result: id, activity: entry(request, 'asset', projectId, id, action, summary) };
      });
      const row = await request.tenantDb((tx) => links.assetLink(tx, linkId));
      return reply.code(201).send(presentProjectAsset(row!));
    },
  );

  app.get<{ Params: { id: string } }>(
    `${PATHS.asset}:id/`,
    { ...guard.read, schema: { params: idParams } },
    async (request) => {
      const linkId = linkIdOf(request);
      const row = await request.tenantDb(async (tx) => {
        await reach(request, tx, 'asset', linkId, 'read');
        return links.assetLink(tx, linkId);
      });
      if (!row) throw notFound();
      return presentProjectAsset(row);
    },
  );

  for (const method of ['put', 'patch'] as const) {
    app[method]<{ Params: { id: string }; Body: AssetBody }>(
      `${PATHS.asset}:id/`,
      { ...guard.write, schema: { params: idParams, body: assetUpdateBody } },
      async (request) => {
        const linkId = linkIdOf(request);
        await write(request, async (tx) => {
          const ref = await reach(request, tx, 'asset', linkId, 'edit');
          const values = validateAsset(request.body, method === 'put');
          try {
            const updated = await assetsRepo.update(tx, ref.targetId, values);
            if (!updated) throw notFound();
            await links.touch(tx, 'asset', linkId);
            const summary = `Actif ${quoted(updated.name)} modifié`;
            return { result: null, activity: entry(request, 'asset', ref.projectId, linkId, 'updated', summary) };
          } catch (err) {
            if (uniqueViolation(err) !== undefined) throw conflict('name', MESSAGES.assetDuplicate);
            throw err;
          }
        });
        const row = await request.tenantDb((tx) => links.assetLink(tx, linkId));
        if (!row) throw notFound();
        return presentProjectAsset(row);
      },
    );
  }

  app.delete<{ Params: { id: string } }>(
    `${PATHS.asset}:id/`,
    { ...guard.write, schema: { params: idParams } },
    async (request, reply) => {
      const linkId = linkIdOf(request);
      await write(request, async (tx) => {
        const ref = await reach(request, tx, 'asset', linkId, 'edit');
        const name = (await assetsRepo.names(tx, [ref.targetId])).get(ref.targetId) ?? `#${ref.targetId}`;
        if (!(await links.unlink(tx, 'asset', linkId))) throw notFound();
        const summary = `Actif ${quoted(name)} retiré du projet`;
        return { result: null, activity: entry(request, 'asset', ref.projectId, linkId, 'unlinked', summary) };
      });
      return reply.code(204).send();
    },
  );

  app.get<{ Params: { id: string } }>(
    `${PATHS.asset}:id/vulnerabilities/`,
    { ...guard.read, schema: { params: idParams } },
    async (request) => {
      const linkId = linkIdOf(request);
      // A bare array (contract); bounded so one huge scan cannot make a huge answer.
      const rows = await request.tenantDb(async (tx) => {
        const ref = await reach(request, tx, 'asset', linkId, 'read');
        const page = await findings.page(tx, {
          filters: { assetId: ref.targetId },
          ordering: { field: 'created_at', desc: true },
          limit: ASSET_LIST_LIMIT,
          offset: 0,
        });
        return page.rows;
      });
      return rows.map(presentVulnerability);
    },
  );

  app.get<{ Params: { id: string } }>(
    `${PATHS.asset}:id/threats/`,
    { ...guard.read, schema: { params: idParams } },
    async (request) => {
      const linkId = linkIdOf(request);
      const rows = await request.tenantDb(async (tx) => {
        const ref = await reach(request, tx, 'asset', linkId, 'read');
        return links.threatsOnAsset(tx, ref.targetId, ASSET_LIST_LIMIT);
      });
      return rows.map(presentThreat);
    },
  );

  // -------------------------------------------------------------------------------------------------------------
  // Findings.

  app.get<{ Querystring: RawQuery }>(
    PATHS.vulnerability,
    { ...guard.read, schema: { querystring: stringQuery(VULNERABILITY_KEYS) } },
    async (request) => {
      const errors = new FieldErrors();
      const { paging, ...opts } = listFilters(errors, request.query);
      const severities = parseSeverities(errors, request.query.severity);
      const isResolved = parseBoolean(errors, request.query, 'is_resolved');
      errors.throwIfAny();
      const page = await request.tenantDb((tx) =>
        links.vulnerabilityPage(tx, request.auth!.actor, { ...opts, severities, isResolved }),
      );
      return pagedResponse(
        PATHS.vulnerability,
        request.query,
        VULNERABILITY_KEYS,
        paging,
        page.count,
        page.rows.map(presentProjectVulnerability),
      );
    },
  );

  app.post<{ Body: FindingBody }>(
    PATHS.vulnerability,
    { ...guard.write, schema: { body: findingCreateBody } },
    async (request, reply) => {
      const body = request.body;
      const projectId = projectOf(body);
      const linkId = await write(request, async (tx) => {
        await scope.require(request, tx, projectId, 'edit');
        let findingId: number;
        let summary: string;
        let action = 'linked';
        if (body.vulnerability_id !== undefined && body.vulnerability_id !== null) {
          const finding = body.vulnerability_id >= 1 ? await findings.find(tx, body.vulnerability_id) : undefined;
          if (!finding) throw invalid('vulnerability_id', MESSAGES.vulnerabilityUnknown);
          findingId = finding.id;
          summary = `Vulnérabilité ${quoted(finding.title)} liée au projet`;
        } else {
          const values = await newFinding(tx, body);
          try {
            findingId = await findings.create(tx, values);
          } catch (err) {
            if (uniqueViolation(err) !== undefined) throw new ApiError(409, 'duplicate', MESSAGES.findingDuplicate);
            throw err;
          }
          summary = `Vulnérabilité ${quoted(values.title)} créée et liée au projet`;
          action = 'created';
        }
        const id = await linkOnce(tx, 'vulnerability', projectId, findingId, MESSAGES.vulnerabilityLinked);
        return { result: id, activity: entry(request, 'vulnerability', projectId, id, action, summary) };
      });
      const row = await request.tenantDb((tx) => links.vulnerabilityLink(tx, linkId));
      return reply.code(201).send(presentProjectVulnerability(row!));
    },
  );

  /**
   * A new finding as POST /api/vulnerabilities/vulnerabilities/ makes it: the CVE store's facts fill what the body
   * leaves out (severity, score, vector, KEV, CWE, title, description), the asset must be the tenant's, and the
   * finding key is the CVE (else a manual key).
   */
  async function newFinding(tx: TenantDb, body: FindingBody) {
    const input = validateFinding(body);
    const values: VulnerabilityValues = { ...input };
    if (input.assetId !== undefined && input.assetId !== null) {
      if (!(await assetsRepo.names(tx, [input.assetId])).has(input.assetId)) {
        throw invalid('asset_id', MESSAGES.assetUnknown);
      }
    }
    const facts = input.cveId ? await findings.cveFacts(tx, input.cveId) : undefined;
    if (facts) {
      values.severity ??= facts.severity;
      if (input.cvssScore === undefined) {
        values.cvssScore = facts.cvssScore;
        values.cvssVector = facts.cvssVector;
      }
      values.kev = facts.kev;
      values.cweIds = facts.cweIds;
      values.title ??= facts.title || facts.cveId;
      if (body.description === undefined) values.description = facts.description;
    }
    if (!values.title) throw invalid('title', MESSAGES.findingTitleRequired);
    return { ...values, title: values.title, findingKey: input.cveId ?? `manual:${randomUUID()}` };
  }

  app.get<{ Params: { id: string } }>(
    `${PATHS.vulnerability}:id/`,
    { ...guard.read, schema: { params: idParams } },
    async (request) => {
      const linkId = linkIdOf(request);
      const row = await request.tenantDb(async (tx) => {
        await reach(request, tx, 'vulnerability', linkId, 'read');
        return links.vulnerabilityLink(tx, linkId);
      });
      if (!row) throw notFound();
      return presentProjectVulnerability(row);
    },
  );

  app.delete<{ Params: { id: string } }>(
    `${PATHS.vulnerability}:id/`,
    { ...guard.write, schema: { params: idParams } },
    async (request, reply) => {
      const linkId = linkIdOf(request);
      await write(request, async (tx) => {
        const ref = await reach(request, tx, 'vulnerability', linkId, 'edit');
        const title = (await findings.find(tx, ref.targetId))?.title ?? `#${ref.targetId}`;
        if (!(await links.unlink(tx, 'vulnerability', linkId))) throw notFound();
        const summary = `Vulnérabilité ${quoted(title)} retirée du projet`;
        return { result: null, activity: entry(request, 'vulnerability', ref.projectId, linkId, 'unlinked', summary) };
      });
      return reply.code(204).send();
    },
  );

  app.post<{ Params: { id: string }; Body: { is_resolved?: boolean } | null }>(
    `${PATHS.vulnerability}:id/mark_resolved/`,
    { ...guard.write, schema: { params: idParams, body: resolveBody } },
    async (request) => {
      const linkId = linkIdOf(request);
      const resolved = request.body?.is_resolved ?? true;
      await write(request, async (tx) => {
        const ref = await reach(request, tx, 'vulnerability', linkId, 'edit');
        const finding = await findings.find(tx, ref.targetId);
        if (!finding) throw notFound();
        // Resolving twice keeps the first resolution's date and author (as the vulnerability API does).
        if (finding.isResolved === resolved) return { result: null, activity: null };
        const userId = request.auth!.actor.userId;
        await findings.update(
          tx,
          finding.id,
          resolved
            ? { isResolved: true, resolvedAt: new Date(), resolvedBy: userId }
            : { isResolved: false, resolvedAt: null, resolvedBy: null },
        );
        await links.touch(tx, 'vulnerability', linkId);
        const summary = `Vulnérabilité ${quoted(finding.title)} ${resolved ? 'résolue' : 'rouverte'}`;
        const action = resolved ? 'resolved' : 'reopened';
        return { result: null, activity: entry(request, 'vulnerability', ref.projectId, linkId, action, summary) };
      });
      const row = await request.tenantDb((tx) => links.vulnerabilityLink(tx, linkId));
      if (!row) throw notFound();
      return presentProjectVulnerability(row);
    },
  );

  // -------------------------------------------------------------------------------------------------------------
  // Threats.

  app.get<{ Querystring: RawQuery }>(
    PATHS.threat,
    { ...guard.read, schema: { querystring: stringQuery(THREAT_KEYS) } },
    async (request) => {
      const errors = new FieldErrors();
      const { paging, ...opts } = listFilters(errors, request.query);
      errors.throwIfAny();
      const page = await request.tenantDb((tx) => links.threatPage(tx, request.auth!.actor, opts));
      return pagedResponse(
        PATHS.threat,
        request.query,
        THREAT_KEYS,
        paging,
        page.count,
        page.rows.map(presentProjectThreat),
      );
    },
  );

  app.post<{ Body: ThreatBody }>(
    PATHS.threat,
    { ...guard.write, schema: { body: threatCreateBody } },
    async (request, reply) => {
      const body = request.body;
      const projectId = projectOf(body);
      const linkId = await write(request, async (tx) => {
        await scope.require(request, tx, projectId, 'edit');
        let threatId: number;
        let summary: string;
        let action = 'linked';
        if (body.threat_id !== undefined && body.threat_id !== null) {
          const threat = body.threat_id >= 1 ? await threatsRepo.find(tx, body.threat_id) : undefined;
          if (!threat) throw invalid('threat_id', MESSAGES.threatUnknown);
          threatId = threat.id;
          summary = `Menace ${quoted(threat.title)} liée au projet`;
        } else {
          const values = validateThreat(body, request.auth!.actor.userId);
          if (values.assetId !== null && values.assetId !== undefined) {
            if (values.assetId < 1 || !(await threatsRepo.assetExists(tx, values.assetId))) {
              throw invalid('asset_id', MESSAGES.assetUnknown);
            }
          }
          const created = await threatsRepo.create(tx, request.auth!.tenant!.id, values);
          threatId = created.id;
          summary = `Menace ${quoted(created.title)} créée et liée au projet`;
          action = 'created';
        }
        const id = await linkOnce(tx, 'threat', projectId, threatId, MESSAGES.threatLinked);
        return { result: id, activity: entry(request, 'threat', projectId, id, action, summary) };
      });
      const row = await request.tenantDb((tx) => links.threatLink(tx, linkId));
      return reply.code(201).send(presentProjectThreat(row!));
    },
  );

  app.get<{ Params: { id: string } }>(
    `${PATHS.threat}:id/`,
    { ...guard.read, schema: { params: idParams } },
    async (request) => {
      const linkId = linkIdOf(request);
      const row = await request.tenantDb(async (tx) => {
        await reach(request, tx, 'threat', linkId, 'read');
        return links.threatLink(tx, linkId);
      });
      if (!row) throw notFound();
      return presentProjectThreat(row);
    },
  );

  app.delete<{ Params: { id: string } }>(
    `${PATHS.threat}:id/`,
    { ...guard.write, schema: { params: idParams } },
    async (request, reply) => {
      const linkId = linkIdOf(request);
      await write(request, async (tx) => {
        const ref = await reach(request, tx, 'threat', linkId, 'edit');
        const title = (await threatsRepo.find(tx, ref.targetId))?.title ?? `#${ref.targetId}`;
        if (!(await links.unlink(tx, 'threat', linkId))) throw notFound();
        const summary = `Menace ${quoted(title)} retirée du projet`;
        return { result: null, activity: entry(request, 'threat', ref.projectId, linkId, 'unlinked', summary) };
      });
      return reply.code(204).send();
    },
  );

  app.post<{ Params: { id: string } }>(
    `${PATHS.threat}:id/mark_mitigated/`,
    { ...guard.write, schema: { params: idParams } },
    async (request) => {
      const linkId = linkIdOf(request);
      await write(request, async (tx) => {
        const ref = await reach(request, tx, 'threat', linkId, 'edit');
        const threat = await threatsRepo.find(tx, ref.targetId);
        if (!threat) throw notFound();
        // As /api/threats/{id}/mark_mitigated/: status MITIGATED; a first mitigation records when and by whom.
        if (threat.isMitigated && threat.status === 'MITIGATED') return { result: null, activity: null };
        await threatsRepo.update(tx, threat.id, {
          status: 'MITIGATED',
          isMitigated: true,
          mitigatedAt: threat.isMitigated ? threat.mitigatedAt : new Date(),
          mitigatedBy: threat.isMitigated ? threat.mitigatedBy : request.auth!.actor.userId,
        });
        await links.touch(tx, 'threat', linkId);
        const summary = `Menace ${quoted(threat.title)} atténuée`;
        return { result: null, activity: entry(request, 'threat', ref.projectId, linkId, 'mitigated', summary) };
      });
      const row = await request.tenantDb((tx) => links.threatLink(tx, linkId));
      if (!row) throw notFound();
      return presentProjectThreat(row);
    },
  );
};

export default linkRoutes;
