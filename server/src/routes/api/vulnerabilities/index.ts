import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { ApiError } from '../../../domain/errors.ts';
import { currentTenant, signedIn } from '../../../plugins/app/authorization.ts';
import { todayUtc } from '../../../domain/risk-scoring.ts';
import { presentCve } from '../../../presenters/cve.ts';
import { VulnerabilitySummarySchema } from '../../../presenters/dashboard.ts';
import { pagedResponse } from '../../../presenters/paged.ts';
import {
  CSV_COLUMNS,
  CSV_HEADERS,
  csvHeaderOf,
  exportCsvLine,
  presentExportRow,
  presentSsvc,
  presentVulnerability,
  VulnerabilityDetailSchema,
  VulnerabilitySchema,
} from '../../../presenters/vulnerability.ts';
import type { TenantDb } from '../../../db/tenant-scope.ts';
import { DashboardRepository } from '../../../repositories/dashboard.ts';
import { VulnerabilitiesRepository, type VulnerabilityRow } from '../../../repositories/vulnerabilities.ts';
import { IdParams, Paged, replies, Type } from '../../../schemas/common.ts';
import {
  CreateBody,
  ExportQuery,
  ExportReply,
  type FindingBody,
  ListVulnerabilitiesQuery,
  MESSAGES,
  readExportQuery,
  readListQuery,
  readSummaryQuery,
  BulkBody,
  BulkReply,
  CommentBody,
  readBulk,
  ResolveBody,
  readSeverity,
  SeverityBody,
  SummaryQuery,
  TransitionBody,
  UpdateBody,
  validateWrite,
} from '../../../schemas/vulnerabilities.ts';
import { unlessDuplicate } from '../../../services/unique-writes.ts';
import { findingWithCve, saveFinding } from '../../../services/vulnerabilities.ts';
import { assessSsvc } from '../../../domain/ssvc.ts';
import { moveFinding, setResolved, type Moved } from '../../../services/finding-lifecycle.ts';
import { FindingEventsRepository } from '../../../repositories/finding-events.ts';
import { TenantUsersRepository } from '../../../repositories/tenant-users.ts';
import { applyBulk } from '../../../services/finding-bulk.ts';
import { describeUserAgent } from '../../../plugins/app/audit.ts';
import { canAcceptRisk } from '../../../policies/index.ts';
import { FINDING_STATE_LABELS, type FindingState } from '../../../../../contract/finding-states.ts';
import {
  FINDING_SEVERITY_LABELS,
  SEVERITY_SOURCE_LABELS,
  type FindingSeverity,
} from '../../../../../contract/severity.ts';
import { checkedReason, overrideSeverity, withdrawSeverity } from '../../../services/finding-severity.ts';
import { AssigneeSchema, FindingEventSchema, presentFindingEvent } from '../../../presenters/finding-event.ts';
import { sendExport } from '../export-stream.ts';
import { auditProjectRefusals } from '../projects/access.ts';
import { found, taggedRoutes } from '../shared.ts';
import { pageWindow } from '../../../schemas/query.ts';

const LIST_PATH = '/api/vulnerabilities/vulnerabilities/';
const ITEM_PATH = `${LIST_PATH}:id/`;
const EXPORT_BATCH = 2000;
const EXPORT = { statementClass: 'export', heavy: true } as const;

/** Findings of the current tenant, their summary and their export (docs/api-vulnerabilities.md). */
const vulnerabilityRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const repo = new VulnerabilitiesRepository();
  const history = new FindingEventsRepository();
  const members = new TenantUsersRepository();
  const dashboard = new DashboardRepository();
  const { read, write, deleteById } = taggedRoutes(app, ['Vulnérabilités']);

  const load = (request: FastifyRequest, id: string) => found(request, (tx) => repo.find(tx, Number(id)));

  /** Checks and writes one finding (services/vulnerabilities.ts); same asset and CVE twice → 409. */
  const save = async (
    request: FastifyRequest,
    body: FindingBody,
    existing: VulnerabilityRow | undefined,
    requireTitle: boolean,
  ) => {
    const input = validateWrite(body);
    const options = { requireTitle, userId: signedIn(request).actor.userId };
    const row = await unlessDuplicate(
      request.tenantDb((tx) => saveFinding(tx, input, existing, options)),
      MESSAGES.duplicate,
    );
    return presentVulnerability(row);
  };

  app.get(
    LIST_PATH,
    read({
      querystring: ListVulnerabilitiesQuery,
      response: replies.signedIn({ 200: Paged(VulnerabilitySchema) }, 400),
    }),
    async (request, reply) => {
      const { paging, filters, ordering } = readListQuery(request.query);
      const window = pageWindow(paging);
      const read = (tx: TenantDb) => repo.page(tx, { filters, ordering, ...window });
      // Shaped once the transaction ended: the connection is held only while the database works.
      const present = ({ count, rows }: { count: number; rows: VulnerabilityRow[] }) =>
        pagedResponse(
          LIST_PATH,
          request.query,
          ListVulnerabilitiesQuery,
          paging,
          count,
          rows.map(presentVulnerability),
        );
      // Every page is kept under the data version (wall screens and analysts open the same ones); the rows include the
      // CVEs' EPSS scores, platform rows.
      const key = `vulnerability-list|${currentTenant(request)}|${JSON.stringify(request.query)}`;
      return reply.cachedAnswer(key, true, read, 'list-pages', present);
    },
  );

  app.post(
    LIST_PATH,
    write({ body: CreateBody, response: replies.signedIn({ 201: VulnerabilitySchema }, 400, 409) }),
    async (request, reply) => reply.code(201).send(await save(request, request.body, undefined, true)),
  );

  app.get(
    ITEM_PATH,
    read({ params: IdParams, response: replies.signedIn({ 200: VulnerabilityDetailSchema }, 404) }),
    async (request) => {
      const { row, cve, epssThreshold } = await found(request, (tx) => findingWithCve(tx, Number(request.params.id)));
      // The facts migration 0029 keeps the finding's decision from (a resolved finding keeps none).
      const ssvc = assessSsvc({
        kev: row.kev,
        epssScore: row.epssScore,
        exploitReference: cve?.record.references.some((r) => r.tags?.includes('Exploit')) ?? false,
        cvssVector: row.cvssVector,
        criticality: row.assetId === null ? null : row.assetCriticality,
        internetExposed: row.assetId === null ? undefined : (row.assetExposed ?? undefined),
        epssThreshold,
      });
      return {
        ...presentVulnerability(row),
        cve: cve ? presentCve(cve.record, cve.cwes, cve.affectedAssets) : null,
        ssvc: presentSsvc(ssvc),
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
      async (request) => save(request, request.body, await load(request, request.params.id), method === 'put'),
    );
  }

  deleteById(ITEM_PATH, (request, id) => request.tenantDb((tx) => repo.remove(tx, id)));

  /** A state move goes to the audit trail too (its history line is written in the move's transaction). */
  const audited = async (request: FastifyRequest, moved: Moved) => {
    const { row, from } = moved;
    if (from !== row.state) {
      await app.audit.record(request, {
        eventType: 'data_change',
        description: `Vulnérabilité #${row.id} : « ${FINDING_STATE_LABELS[from]} » → « ${FINDING_STATE_LABELS[row.state]} »`,
        extra: { vulnerability_id: row.id, from, to: row.state },
      });
    }
    return presentVulnerability(row);
  };

  app.post(
    `${ITEM_PATH}mark_resolved/`,
    write({ params: IdParams, body: ResolveBody, response: replies.signedIn({ 200: VulnerabilitySchema }, 400, 404) }),
    async (request) => {
      const resolved = request.body?.is_resolved ?? true;
      const userId = signedIn(request).actor.userId;
      return audited(
        request,
        await found(request, (tx) => setResolved(tx, Number(request.params.id), resolved, userId)),
      );
    },
  );

  // Issue 21: the lifecycle's moves, the finding's history and its comments.
  app.post(
    `${ITEM_PATH}transition/`,
    write({
      params: IdParams,
      body: TransitionBody,
      response: replies.signedIn({ 200: VulnerabilitySchema }, 400, 403, 404, 409),
    }),
    async (request) => {
      const { actor } = signedIn(request);
      const {
        state,
        comment = '',
        accepted_until,
      } = request.body as {
        state: FindingState;
        comment?: string;
        accepted_until?: string | null;
      };
      const move = { to: state, comment, acceptedUntil: accepted_until ?? undefined, userId: actor.userId };
      return audited(
        request,
        await found(request, (tx) =>
          moveFinding(tx, Number(request.params.id), { ...move, mayAcceptRisk: canAcceptRisk(actor) }),
        ),
      );
    },
  );

  // An analyst's rating over the source's, with its reason (docs/severity.md); withdrawn, the source's is back.
  const rated = async (request: FastifyRequest, { row, from }: { row: VulnerabilityRow; from: FindingSeverity }) => {
    await app.audit.record(request, {
      eventType: 'data_change',
      description: `Vulnérabilité #${row.id} : gravité « ${FINDING_SEVERITY_LABELS[from]} » → « ${FINDING_SEVERITY_LABELS[row.severity]} » (${SEVERITY_SOURCE_LABELS[row.severitySource]})`,
      extra: { vulnerability_id: row.id, from, to: row.severity, source: row.severitySource },
    });
    return presentVulnerability(row);
  };
  app.post(
    `${ITEM_PATH}severity/`,
    write({ params: IdParams, body: SeverityBody, response: replies.signedIn({ 200: VulnerabilitySchema }, 400, 404) }),
    async (request) => {
      const severity = readSeverity(request.body.severity);
      const reason = checkedReason(request.body.reason);
      const userId = signedIn(request).actor.userId;
      return rated(
        request,
        await found(request, (tx) => overrideSeverity(tx, Number(request.params.id), { severity, reason, userId })),
      );
    },
  );
  app.delete(
    `${ITEM_PATH}severity/`,
    write({ params: IdParams, response: replies.signedIn({ 200: VulnerabilitySchema }, 400, 404) }),
    async (request) => {
      const userId = signedIn(request).actor.userId;
      return rated(request, await found(request, (tx) => withdrawSeverity(tx, Number(request.params.id), userId)));
    },
  );

  // Many findings at once: ticked ones, or all a filter matches; one transaction, one audit event per finding. A
  // project link goes through the project's gate, whose 403 is audited as in the projects area.
  auditProjectRefusals(app);
  app.post(
    '/api/vulnerabilities/bulk/',
    {
      ...write({ body: BulkBody, response: replies.signedIn({ 200: BulkReply }, 400, 403, 404) }),
      config: { statementClass: 'import', heavy: true },
    },
    async (request) => {
      const { selection, action } = readBulk(request.body);
      const { actor } = signedIn(request);
      const agent = describeUserAgent(request.headers['user-agent']);
      return request.tenantDb((tx) =>
        applyBulk(tx, selection, action, {
          userId: actor.userId,
          username: actor.username,
          ip: request.ip,
          browser: agent.browser,
          os: agent.os,
          mayAcceptRisk: canAcceptRisk(actor),
          actor,
        }),
      );
    },
  );

  // Whom a finding may be assigned to: the tenant's members who may act on it, named for the pickers.
  app.get(
    '/api/vulnerabilities/assignees/',
    read({ response: replies.signedIn({ 200: Type.Array(AssigneeSchema) }) }),
    async (request) =>
      (await request.tenantDb((tx) => members.assignable(tx))).map((m) => ({
        id: m.id,
        username: m.username,
        name: `${m.firstName} ${m.lastName}`.trim() || m.username,
      })),
  );

  app.get(
    `${ITEM_PATH}history/`,
    read({ params: IdParams, response: replies.signedIn({ 200: Type.Array(FindingEventSchema) }, 404) }),
    async (request) => {
      const id = Number(request.params.id);
      const rows = await found(request, async (tx) => ((await repo.find(tx, id)) ? history.list(tx, id) : undefined));
      return rows.map(presentFindingEvent);
    },
  );

  app.post(
    `${ITEM_PATH}comments/`,
    write({ params: IdParams, body: CommentBody, response: replies.signedIn({ 201: FindingEventSchema }, 400, 404) }),
    async (request, reply) => {
      const id = Number(request.params.id);
      const userId = signedIn(request).actor.userId;
      const comment = request.body.comment.trim();
      if (!comment) throw new ApiError(400, 'invalid', MESSAGES.comment, { fields: { comment: [MESSAGES.comment] } });
      const rows = await found(request, async (tx) => {
        if (!(await repo.find(tx, id))) return undefined;
        await history.add(tx, [{ vulnerabilityId: id, userId, kind: 'comment', comment }]);
        return history.list(tx, id);
      });
      return reply.code(201).send(presentFindingEvent(rows[rows.length - 1]!));
    },
  );

  // spec §3 vulnerability dashboard summary.
  app.get(
    '/api/vulnerabilities/summary/',
    read({ querystring: SummaryQuery, response: replies.signedIn({ 200: VulnerabilitySummarySchema }, 400) }),
    async (request, reply) => {
      const filters = readSummaryQuery(request.query);
      // Keyed by the UTC day too: the trend window ends today.
      const key = `vulnerability-summary|${currentTenant(request)}|${todayUtc()}|${JSON.stringify(filters)}`;
      return reply.cachedAnswer(key, true, (tx) => dashboard.vulnerabilitySummary(tx, filters));
    },
  );

  // Export: every filtered row (or only the ids given), streamed in keyset batches so memory stays flat whatever the
  // size.
  app.get(
    '/api/vulnerabilities/export/',
    { ...read({ querystring: ExportQuery, response: replies.signedIn({ 200: ExportReply }, 400) }), config: EXPORT },
    async (request, reply) => {
      const { format, filters, ids, given } = readExportQuery(request.query);
      await app.audit.record(request, {
        eventType: 'sensitive_data_access',
        description: `Export des vulnérabilités (${format.toUpperCase()})`,
        extra: { format, filters: given, ...(ids ? { ids } : {}) },
      });
      const prepared = await request.tenantDb((tx) => repo.prepare(tx, filters));
      return sendExport(reply, 'vulnerabilites', {
        format,
        csvHeader: csvHeaderOf(CSV_COLUMNS, CSV_HEADERS),
        batchSize: EXPORT_BATCH,
        batchAfter: (last: { id: number } | undefined) =>
          request.tenantDb((tx) => repo.exportBatch(tx, prepared, last?.id ?? 0, EXPORT_BATCH, ids)),
        csvRow: exportCsvLine,
        jsonRow: presentExportRow,
      });
    },
  );
};

export default vulnerabilityRoutes;
