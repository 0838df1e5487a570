import { randomUUID } from 'node:crypto';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { SEVERITIES, type Severity } from '../../../db/schema.ts';
import { ApiError, FieldErrors, notFound } from '../../../domain/errors.ts';
import { signedIn } from '../../../plugins/app/authorization.ts';
import { presentCve } from '../../../presenters/cve.ts';
import { VulnerabilitySummarySchema } from '../../../presenters/dashboard.ts';
import {
  CSV_COLUMNS,
  exportCsvLine,
  presentExportRow,
  presentVulnerability,
  VulnerabilityDetailSchema,
  VulnerabilitySchema,
} from '../../../presenters/vulnerability.ts';
import { AssetsRepository } from '../../../repositories/assets.ts';
import { DashboardRepository } from '../../../repositories/dashboard.ts';
import { uniqueViolation } from '../../../repositories/tenant-users.ts';
import {
  VULNERABILITY_ORDERINGS,
  VulnerabilitiesRepository,
  type VulnerabilityFilters,
  type VulnerabilityRow,
  type VulnerabilityValues,
} from '../../../repositories/vulnerabilities.ts';
import {
  FilterQuery,
  IdParams,
  ListQuery,
  NoContent,
  Nullable,
  Paged,
  replies,
  Type,
  type Static,
} from '../../../schemas/common.ts';
import { sendExport, type ExportFormat } from '../export-stream.ts';
import { pagedResponse } from '../../../presenters/paged.ts';
import {
  parseBoolean,
  parseOrdering,
  parsePaging,
  parseQueryId,
  parseText,
  type RawQuery,
} from '../../../schemas/query.ts';
import { ASSET_UNKNOWN, CVE_INVALID, CVE_RE, invalid, optionalText, orNull } from '../../../schemas/fields.ts';
import { found, taggedRoutes } from '../shared.ts';

const LIST_PATH = '/api/vulnerabilities/vulnerabilities/';
const ITEM_PATH = `${LIST_PATH}:id/`;
const EXPORT_BATCH = 2000;

const MESSAGES = {
  severity: `Sévérité invalide. Valeurs possibles : ${SEVERITIES.join(', ')}.`,
  titleRequired: 'Le titre est requis (ou un identifiant CVE connu).',
  titleTooLong: 'Le titre ne doit pas dépasser 500 caractères.',
  cvss: 'Le score CVSS doit être compris entre 0 et 10.',
  port: 'Le port doit être un entier entre 0 et 65535.',
  duplicate: 'Cette vulnérabilité est déjà enregistrée pour cet actif (même CVE).',
  format: 'Format d’export invalide : csv ou json attendu.',
  days: 'Nombre de jours invalide : un entier entre 1 et 366 est attendu.',
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

const FILTERS = {
  severity: `Sévérités séparées par des virgules : ${SEVERITIES.join(', ')}`,
  is_resolved: 'true ou false',
  asset: 'Identifiant d’actif',
  cve: 'Identifiant CVE',
  kev: 'true ou false : au catalogue KEV de la CISA',
  text: 'Recherche dans la CVE, le titre et la description',
  scan: 'Identifiant du scan',
};
const FILTER_KEYS = Object.keys(FILTERS) as (keyof typeof FILTERS)[];
const ListVulnerabilitiesQuery = ListQuery({
  ordering: `Tri : ${VULNERABILITY_ORDERINGS.join(', ')} (préfixe - pour décroissant)`,
  ...FILTERS,
});
const ExportQuery = FilterQuery({ format: 'csv (défaut) ou json', ...FILTERS });
/** A stream, so the serializer (and the reply check) never sees it. */
const ExportReply = Type.String({
  description:
    'Pièce jointe vulnerabilites-AAAA-MM-JJ.csv (text/csv, UTF-8 avec BOM) ou .json (tableau de Vulnerability)',
});
const SummaryQuery = FilterQuery({
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
    cveId: cve ? cve.slice(0, 64) : undefined,
    kev: parseBoolean(errors, query, 'kev'),
    text: parseText(errors, query, 'text'),
    scanId: parseQueryId(errors, query, 'scan'),
  };
}

/** Types, sizes and ranges by the schema; trimming, case and CVE facts by `validateWrite` and `save`. */
const writeFields = {
  title: optionalText(4096, MESSAGES.titleTooLong),
  cve_id: orNull('string', { maxLength: 64, errorMessage: CVE_INVALID }),
  asset_id: orNull('integer', { minimum: 1, errorMessage: { minimum: ASSET_UNKNOWN } }),
  severity: Type.Optional(Type.String({ maxLength: 32, errorMessage: MESSAGES.severity })),
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
};
const CreateBody = Type.Object(writeFields, { additionalProperties: false });
const UpdateBody = Type.Object(
  { ...writeFields, is_resolved: Type.Optional(Type.Boolean()) },
  { additionalProperties: false },
);
type WriteBody = Static<typeof UpdateBody>;
const ResolveBody = Nullable(
  Type.Object({ is_resolved: Type.Optional(Type.Boolean()) }, { additionalProperties: false }),
);

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
    else if (!CVE_RE.test(cve)) errors.add('cve_id', CVE_INVALID);
    else out.cveId = cve;
  }
  if (body.asset_id !== undefined) out.assetId = body.asset_id;
  if (body.severity !== undefined) {
    const s = body.severity.trim().toLowerCase();
    if ((SEVERITIES as readonly string[]).includes(s)) out.severity = s as Severity;
    else errors.add('severity', MESSAGES.severity);
  }
  if (body.cvss_score !== undefined) out.cvssScore = body.cvss_score;
  if (body.port !== undefined) out.port = body.port;
  if (body.description !== undefined) out.description = body.description;
  if (body.solution !== undefined) out.solution = body.solution;
  if (body.protocol !== undefined) out.protocol = body.protocol?.trim() || null;
  if (body.service !== undefined) out.service = body.service?.trim() || null;
  errors.throwIfAny();
  return out;
}

/** Resolving records when and by whom; reopening clears both. */
function resolution(resolved: boolean, userId: number): VulnerabilityValues {
  return resolved
    ? { isResolved: true, resolvedAt: new Date(), resolvedBy: userId }
    : { isResolved: false, resolvedAt: null, resolvedBy: null };
}

/** Findings of the current tenant, their summary and their export (docs/api-vulnerabilities.md). */
const vulnerabilityRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const repo = new VulnerabilitiesRepository();
  const assetsRepo = new AssetsRepository();
  const dashboard = new DashboardRepository();
  const { read, write } = taggedRoutes(app, ['Vulnérabilités']);

  const load = (request: FastifyRequest, id: string) => found(request, (tx) => repo.find(tx, Number(id)));
  const reread = async (request: FastifyRequest, id: number) =>
    presentVulnerability((await request.tenantDb((tx) => repo.find(tx, id)))!);

  /**
   * Writes one finding: CVE facts fill what the body leaves out (severity, score, vector, KEV, CWE, title), the
   * asset must be one of the tenant's (the foreign key alone would accept another tenant's id), and the finding
   * key follows the CVE. Same asset and CVE twice → 409.
   */
  const save = async (
    request: FastifyRequest,
    body: WriteBody,
    existing: VulnerabilityRow | undefined,
    requireTitle: boolean,
  ): Promise<number> => {
    const input = validateWrite(body);
    const actorId = signedIn(request).actor.userId;
    try {
      return await request.tenantDb(async (tx) => {
        const values: VulnerabilityValues = { ...input };
        if (input.assetId !== undefined && input.assetId !== null) {
          if (!(await assetsRepo.names(tx, [input.assetId])).has(input.assetId)) {
            throw invalid('asset_id', ASSET_UNKNOWN);
          }
        }
        const cveChanged = input.cveId !== undefined && input.cveId !== (existing?.cveId ?? null);
        const facts = input.cveId ? await repo.cveFacts(tx, input.cveId) : undefined;
        if (cveChanged && input.cveId && facts) {
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
        } else if (cveChanged && existing) {
          // Re-linked to an unknown CVE, or unlinked.
          values.kev = false;
          values.cweIds = [];
        }
        // A known CVE stands in for a missing title.
        if (facts && requireTitle && !existing) values.title ??= facts.title || facts.cveId;
        if (requireTitle && !values.title && !(facts && existing)) throw invalid('title', MESSAGES.titleRequired);
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
      if (uniqueViolation(err) !== undefined) throw new ApiError(409, 'duplicate', MESSAGES.duplicate);
      throw err;
    }
  };

  app.get(
    LIST_PATH,
    read({
      querystring: ListVulnerabilitiesQuery,
      response: replies.signedIn({ 200: Paged(VulnerabilitySchema) }, 400),
    }),
    async (request) => {
      const q = request.query;
      const errors = new FieldErrors();
      const paging = parsePaging(errors, q);
      const filters = parseFilters(errors, q);
      const ordering = parseOrdering(errors, q.ordering, VULNERABILITY_ORDERINGS, { field: 'created_at', desc: true });
      errors.throwIfAny();
      const { count, rows } = await request.tenantDb((tx) =>
        repo.page(tx, { filters, ordering, limit: paging.pageSize, offset: (paging.page - 1) * paging.pageSize }),
      );
      const keys = Object.keys(ListVulnerabilitiesQuery.properties);
      return pagedResponse(LIST_PATH, q, keys, paging, count, rows.map(presentVulnerability));
    },
  );

  app.post(
    LIST_PATH,
    write({ body: CreateBody, response: replies.signedIn({ 201: VulnerabilitySchema }, 400, 409) }),
    async (request, reply) => {
      const id = await save(request, request.body, undefined, true);
      return reply.code(201).send(await reread(request, id));
    },
  );

  app.get(
    ITEM_PATH,
    read({ params: IdParams, response: replies.signedIn({ 200: VulnerabilityDetailSchema }, 404) }),
    async (request) => {
      const row = await load(request, request.params.id);
      const cve = row.cveId ? await request.tenantDb((tx) => repo.cveDetail(tx, row.cveId!)) : undefined;
      return {
        ...presentVulnerability(row),
        cve: cve ? presentCve(cve.record, cve.cwes, cve.affectedAssets) : null,
      };
    },
  );

  for (const method of ['put', 'patch'] as const) {
    app[method](
      ITEM_PATH,
      write({
        params: IdParams,
        body: UpdateBody,
        response: replies.signedIn({ 200: VulnerabilitySchema }, 400, 404, 409),
      }),
      async (request) => {
        const existing = await load(request, request.params.id);
        await save(request, request.body, existing, method === 'put');
        return reread(request, existing.id);
      },
    );
  }

  app.delete(
    ITEM_PATH,
    write({ params: IdParams, response: replies.signedIn({ 204: NoContent }, 404) }),
    async (request, reply) => {
      if (!(await request.tenantDb((tx) => repo.remove(tx, Number(request.params.id))))) throw notFound();
      return reply.code(204).send();
    },
  );

  app.post(
    `${ITEM_PATH}mark_resolved/`,
    write({ params: IdParams, body: ResolveBody, response: replies.signedIn({ 200: VulnerabilitySchema }, 400, 404) }),
    async (request) => {
      const existing = await load(request, request.params.id);
      const resolved = request.body?.is_resolved ?? true;
      // Resolving twice keeps the first resolution's date and author.
      if (resolved !== existing.isResolved) {
        const values = resolution(resolved, signedIn(request).actor.userId);
        await request.tenantDb((tx) => repo.update(tx, existing.id, values));
      }
      return reread(request, existing.id);
    },
  );

  // spec §3 vulnerability dashboard summary.
  app.get(
    '/api/vulnerabilities/summary/',
    read({ querystring: SummaryQuery, response: replies.signedIn({ 200: VulnerabilitySummarySchema }, 400) }),
    async (request) => {
      const q = request.query;
      const errors = new FieldErrors();
      const daysRaw = q.days?.trim();
      const days = daysRaw ? (/^\d{1,4}$/.test(daysRaw) ? Number(daysRaw) : 0) : 30;
      if (days < 1 || days > 366) errors.add('days', MESSAGES.days);
      const filters = {
        days,
        assetId: parseQueryId(errors, q, 'asset'),
        severities: parseSeverities(errors, q.severity),
        isResolved: parseBoolean(errors, q, 'is_resolved'),
        kev: parseBoolean(errors, q, 'kev'),
      };
      errors.throwIfAny();
      return request.tenantDb((tx) => dashboard.vulnerabilitySummary(tx, filters));
    },
  );

  // Export: every filtered row, streamed in keyset batches so memory stays flat whatever the size.
  app.get(
    '/api/vulnerabilities/export/',
    read({
      querystring: ExportQuery,
      response: replies.signedIn({ 200: ExportReply }, 400),
    }),
    async (request, reply) => {
      const q = request.query;
      const errors = new FieldErrors();
      const format = q.format?.trim().toLowerCase() || 'csv';
      if (format !== 'csv' && format !== 'json') errors.add('format', MESSAGES.format);
      const filters = parseFilters(errors, q);
      errors.throwIfAny();

      await app.audit.record(request, {
        eventType: 'sensitive_data_access',
        description: `Export des vulnérabilités (${format.toUpperCase()})`,
        extra: { format, filters: Object.fromEntries(FILTER_KEYS.filter((k) => q[k]).map((k) => [k, q[k]])) },
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

export default vulnerabilityRoutes;
