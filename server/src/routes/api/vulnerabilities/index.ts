import { randomUUID } from 'node:crypto';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { SEVERITIES, type Severity } from '../../../db/schema.ts';
import { ApiError } from '../../../domain/errors.ts';
import {
  CSV_COLUMNS,
  exportCsvLine,
  presentExportRow,
  presentVulnerability,
} from '../../../presenters/vulnerability.ts';
import { presentCve } from '../../../presenters/cve.ts';
import { sendExport, type ExportFormat } from '../export-stream.ts';
import { AssetsRepository } from '../../../repositories/assets.ts';
import { DashboardRepository } from '../../../repositories/dashboard.ts';
import { uniqueViolation } from '../../../repositories/tenant-users.ts';
import {
  VULNERABILITY_ORDERINGS,
  VulnerabilitiesRepository,
  type VulnerabilityFilters,
  type VulnerabilityOrderField,
  type VulnerabilityValues,
} from '../../../repositories/vulnerabilities.ts';
import { FieldErrors } from '../../../domain/errors.ts';
import {
  accessGuards,
  idParams,
  notFound,
  pagedResponse,
  parseBoolean,
  parseId,
  parseOrdering,
  parsePaging,
  parseQueryId,
  parseText,
  stringQuery,
  type RawQuery,
} from '../shared.ts';

// ---------------------------------------------------------------------------------------------------------------
// Findings.

const LIST_PATH = '/api/vulnerabilities/vulnerabilities/';
const FILTER_KEYS = ['severity', 'is_resolved', 'asset', 'cve', 'kev', 'text', 'scan'] as const;
const LIST_KEYS = ['page', 'page_size', 'ordering', ...FILTER_KEYS] as const;
const EXPORT_BATCH = 2000;
const CVE_RE = /^CVE-\d{4}-\d{4,}$/;

const SEVERITY_LIST = SEVERITIES.join(', ');
const MESSAGES = {
  severity: `Sévérité invalide. Valeurs possibles : ${SEVERITY_LIST}.`,
  titleRequired: 'Le titre est requis (ou un identifiant CVE connu).',
  titleTooLong: 'Le titre ne doit pas dépasser 500 caractères.',
  cveInvalid: 'Identifiant CVE invalide (format attendu : CVE-AAAA-NNNN).',
  cvss: 'Le score CVSS doit être compris entre 0 et 10.',
  port: 'Le port doit être un entier entre 0 et 65535.',
  assetUnknown: 'Actif introuvable.',
  duplicate: 'Cette vulnérabilité est déjà enregistrée pour cet actif (même CVE).',
  format: 'Format d’export invalide : csv ou json attendu.',
} as const;

export function parseSeverities(errors: FieldErrors, raw: string | undefined): Severity[] | undefined {
  if (raw === undefined || raw.trim() === '') return undefined;
  const list = raw
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter((s) => s !== '');
  if (list.length === 0 || !list.every((s): s is Severity => (SEVERITIES as readonly string[]).includes(s))) {
    errors.add('severity', MESSAGES.severity);
    return undefined;
  }
  return [...new Set(list)];
}

function parseFilters(errors: FieldErrors, query: RawQuery): VulnerabilityFilters {
  const cve = query.cve?.trim().toUpperCase();
  return {
    severities: parseSeverities(errors, query.severity),
    isResolved: parseBoolean(errors, query, 'is_resolved'),
    assetId: parseQueryId(errors, query, 'asset'),
    cveId: cve ? cve.slice(0, 64) : undefined,
    kev: parseBoolean(errors, query, 'kev'),
    text: parseText(errors, query, 'text'),
    scanId: parseQueryId(errors, query, 'scan'),
  };
}

interface WriteBody {
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
  is_resolved?: boolean;
}

const nullableString = (max: number) => ({ type: ['string', 'null'], maxLength: max });
const writeProperties = {
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
};
const createBody = { type: 'object', additionalProperties: false, properties: writeProperties } as const;
const updateBody = {
  type: 'object',
  additionalProperties: false,
  properties: { ...writeProperties, is_resolved: { type: 'boolean' } },
} as const;
const resolveBody = {
  type: ['object', 'null'],
  additionalProperties: false,
  properties: { is_resolved: { type: 'boolean' } },
} as const;
const exportQuery = stringQuery(['format', ...FILTER_KEYS]);

/** Checks a write body; returns the columns it sets (CVE facts are merged by the caller). */
function validateWrite(body: WriteBody): VulnerabilityValues & { cveId?: string | null } {
  const errors = new FieldErrors();
  const out: VulnerabilityValues & { cveId?: string | null } = {};
  if (body.title !== undefined) {
    const title = body.title.trim();
    if (title.length > 500) errors.add('title', MESSAGES.titleTooLong);
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
    if (body.cvss_score !== null && (body.cvss_score < 0 || body.cvss_score > 10))
      errors.add('cvss_score', MESSAGES.cvss);
    else out.cvssScore = body.cvss_score;
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

const duplicate = () => new ApiError(409, 'duplicate', MESSAGES.duplicate);

const vulnerabilityRoutes: FastifyPluginAsync = async (app) => {
  const repo = new VulnerabilitiesRepository();
  const assetsRepo = new AssetsRepository();
  const dashboard = new DashboardRepository();
  const guard = accessGuards(app);

  const load = async (request: FastifyRequest<{ Params: { id: string } }>) => {
    const id = parseId(request.params.id);
    const row = id === undefined ? undefined : await request.tenantDb((tx) => repo.find(tx, id));
    if (!row) throw notFound();
    return row;
  };

  app.get<{ Querystring: RawQuery }>(
    LIST_PATH,
    { ...guard.read, schema: { querystring: stringQuery(LIST_KEYS) } },
    async (request) => {
      const errors = new FieldErrors();
      const paging = parsePaging(errors, request.query);
      const filters = parseFilters(errors, request.query);
      const ordering = parseOrdering<VulnerabilityOrderField>(errors, request.query.ordering, VULNERABILITY_ORDERINGS, {
        field: 'created_at',
        desc: true,
      });
      errors.throwIfAny();
      const { count, rows } = await request.tenantDb((tx) =>
        repo.page(tx, { filters, ordering, limit: paging.pageSize, offset: (paging.page - 1) * paging.pageSize }),
      );
      return pagedResponse(LIST_PATH, request.query, LIST_KEYS, paging, count, rows.map(presentVulnerability));
    },
  );

  /**
   * Writes one finding: CVE facts fill what the body leaves out (severity, score, vector, KEV, CWE, title), the
   * asset must be one of the tenant's (the foreign key alone would accept another tenant's id), and the finding
   * key follows the CVE. Same asset and CVE twice → 409.
   */
  const write = async (
    request: FastifyRequest,
    body: WriteBody,
    existing: { id: number; cveId: string | null; findingKey: string; isResolved: boolean } | undefined,
    requireTitle: boolean,
  ): Promise<number> => {
    const input = validateWrite(body);
    const actorId = request.auth!.actor.userId;
    try {
      return await request.tenantDb(async (tx) => {
        const values: VulnerabilityValues = { ...input };
        if (input.assetId !== undefined && input.assetId !== null) {
          if (!(await assetsRepo.names(tx, [input.assetId])).has(input.assetId)) {
            throw new ApiError(400, 'invalid', MESSAGES.assetUnknown, {
              fields: { asset_id: [MESSAGES.assetUnknown] },
            });
          }
        }
        const cveChanged = input.cveId !== undefined && input.cveId !== (existing?.cveId ?? null);
        const facts = input.cveId ? await repo.cveFacts(tx, input.cveId) : undefined;
        if (cveChanged && input.cveId) {
          if (facts) {
            values.severity ??= facts.severity;
            if (input.cvssScore === undefined) {
              values.cvssScore = facts.cvssScore;
              values.cvssVector = facts.cvssVector;
            }
            values.kev = facts.kev;
            values.cweIds = facts.cweIds;
            // A finding's own title and description stay when it is re-linked to another CVE.
            if (!existing) {
              values.title ??= facts.title || facts.cveId;
              if (body.description === undefined) values.description = facts.description;
            }
          } else if (existing) {
            values.kev = false;
            values.cweIds = [];
          }
        } else if (cveChanged && existing) {
          values.kev = false;
          values.cweIds = [];
        }
        // A known CVE stands in for a missing title.
        if (facts && requireTitle && !existing) values.title ??= facts.title || facts.cveId;
        if (requireTitle && !values.title && !(facts && existing)) {
          throw new ApiError(400, 'invalid', MESSAGES.titleRequired, { fields: { title: [MESSAGES.titleRequired] } });
        }
        if (body.is_resolved !== undefined && body.is_resolved !== (existing?.isResolved ?? false)) {
          Object.assign(values, resolution(body.is_resolved, actorId));
        }
        if (!existing) {
          return repo.create(tx, {
            ...values,
            title: values.title!,
            findingKey: input.cveId ?? `manual:${randomUUID()}`,
          });
        }
        // A manual or CVE-keyed finding follows its CVE; a scanner's own key (an OID, a port) stays.
        if (cveChanged && (existing.findingKey === existing.cveId || existing.findingKey.startsWith('manual:'))) {
          values.findingKey = input.cveId ?? `manual:${randomUUID()}`;
        }
        if (!(await repo.update(tx, existing.id, values))) throw notFound();
        return existing.id;
      });
    } catch (err) {
      if (uniqueViolation(err) !== undefined) throw duplicate();
      throw err;
    }
  };

  app.post<{ Body: WriteBody }>(LIST_PATH, { ...guard.write, schema: { body: createBody } }, async (request, reply) => {
    const id = await write(request, request.body, undefined, true);
    const row = await request.tenantDb((tx) => repo.find(tx, id));
    return reply.code(201).send(presentVulnerability(row!));
  });

  app.get<{ Params: { id: string } }>(
    `${LIST_PATH}:id/`,
    { ...guard.read, schema: { params: idParams } },
    async (request) => {
      const row = await load(request);
      const cve = row.cveId ? await request.tenantDb((tx) => repo.cveDetail(tx, row.cveId!)) : undefined;
      return {
        ...presentVulnerability(row),
        cve: cve ? presentCve(cve.record, cve.cwes, cve.affectedAssets) : null,
      };
    },
  );

  for (const method of ['put', 'patch'] as const) {
    app[method]<{ Params: { id: string }; Body: WriteBody }>(
      `${LIST_PATH}:id/`,
      { ...guard.write, schema: { params: idParams, body: updateBody } },
      async (request) => {
        const existing = await load(request);
        await write(request, request.body, existing, method === 'put');
        return presentVulnerability((await request.tenantDb((tx) => repo.find(tx, existing.id)))!);
      },
    );
  }

  app.delete<{ Params: { id: string } }>(
    `${LIST_PATH}:id/`,
    { ...guard.write, schema: { params: idParams } },
    async (request, reply) => {
      const id = parseId(request.params.id);
      const removed = id !== undefined && (await request.tenantDb((tx) => repo.remove(tx, id)));
      if (!removed) throw notFound();
      return reply.code(204).send();
    },
  );

  app.post<{ Params: { id: string }; Body: { is_resolved?: boolean } | null }>(
    `${LIST_PATH}:id/mark_resolved/`,
    { ...guard.write, schema: { params: idParams, body: resolveBody } },
    async (request) => {
      const existing = await load(request);
      const resolved = request.body?.is_resolved ?? true;
      // Resolving twice keeps the first resolution's date and author.
      if (resolved !== existing.isResolved) {
        await request.tenantDb((tx) => repo.update(tx, existing.id, resolution(resolved, request.auth!.actor.userId)));
      }
      return presentVulnerability((await request.tenantDb((tx) => repo.find(tx, existing.id)))!);
    },
  );

  // -------------------------------------------------------------------------------------------------------------
  // Summary (§3 vulnerability dashboard summary).

  app.get<{ Querystring: RawQuery }>(
    '/api/vulnerabilities/summary/',
    { ...guard.read, schema: { querystring: stringQuery(['days', 'asset', 'severity', 'is_resolved', 'kev']) } },
    async (request) => {
      const errors = new FieldErrors();
      const daysRaw = request.query.days?.trim();
      let days = 30;
      if (daysRaw) {
        days = /^\d{1,4}$/.test(daysRaw) ? Number(daysRaw) : 0;
        if (days < 1 || days > 366)
          errors.add('days', 'Nombre de jours invalide : un entier entre 1 et 366 est attendu.');
      }
      const filters = {
        days,
        assetId: parseQueryId(errors, request.query, 'asset'),
        severities: parseSeverities(errors, request.query.severity),
        isResolved: parseBoolean(errors, request.query, 'is_resolved'),
        kev: parseBoolean(errors, request.query, 'kev'),
      };
      errors.throwIfAny();
      return request.tenantDb((tx) => dashboard.vulnerabilitySummary(tx, filters));
    },
  );

  // -------------------------------------------------------------------------------------------------------------
  // Export: every filtered row, streamed in keyset batches so memory stays flat whatever the size.

  app.get<{ Querystring: RawQuery }>(
    '/api/vulnerabilities/export/',
    { ...guard.read, schema: { querystring: exportQuery } },
    async (request, reply) => {
      const errors = new FieldErrors();
      const format = request.query.format?.trim().toLowerCase() || 'csv';
      if (format !== 'csv' && format !== 'json') errors.add('format', MESSAGES.format);
      const filters = parseFilters(errors, request.query);
      errors.throwIfAny();

      await app.audit.record(request, {
        eventType: 'sensitive_data_access',
        description: `Export des vulnérabilités (${format.toUpperCase()})`,
        extra: {
          format,
          filters: Object.fromEntries(FILTER_KEYS.filter((k) => request.query[k]).map((k) => [k, request.query[k]])),
        },
      });

      const prepared = await request.tenantDb((tx) => repo.prepare(tx, filters));

      return sendExport(reply, 'vulnerabilites', {
        format: format as ExportFormat,
        csvColumns: CSV_COLUMNS,
        batchSize: EXPORT_BATCH,
        batchAfter: (last: { id: number } | undefined) =>
          request.tenantDb((tx) => repo.exportBatch(tx, prepared, last?.id ?? 0, EXPORT_BATCH)),
        csvRow: exportCsvLine,
        jsonRow: presentExportRow,
      });
    },
  );
};

/** Resolving records when and by whom; reopening clears both. */
function resolution(resolved: boolean, userId: number): VulnerabilityValues {
  return resolved
    ? { isResolved: true, resolvedAt: new Date(), resolvedBy: userId }
    : { isResolved: false, resolvedAt: null, resolvedBy: null };
}

export default vulnerabilityRoutes;
