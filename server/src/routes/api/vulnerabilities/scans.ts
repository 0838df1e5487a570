import multipart from '@fastify/multipart';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import type { TenantDb } from '../../../db/tenant-scope.ts';
import { notFound } from '../../../domain/errors.ts';
import { currentTenant, signedIn } from '../../../plugins/app/authorization.ts';
import { presentScan, ScanSchema } from '../../../presenters/scan.ts';
import { ScansRepository } from '../../../repositories/scans.ts';
import { MAX_REPORT_BYTES } from '../../../scan-reports/index.ts';
import { REPORT_FORMAT_LABELS, REPORT_FORMATS } from '../../../../../contract/scan-formats.ts';
import { IdParams, Paged, replies, Type } from '../../../schemas/common.ts';
import { FindingEventsRepository } from '../../../repositories/finding-events.ts';
import { presentScanChange, ScanChangeSchema } from '../../../presenters/finding-event.ts';
import { invalid } from '../../../schemas/fields.ts';
import {
  importOptions,
  ListScansQuery,
  MESSAGES,
  readScanList,
  ScanBody,
  validateScan,
} from '../../../schemas/scans.ts';
import { ScanService, type ScanScope } from '../../../services/scans.ts';
import { checkAsset, found, taggedRoutes } from '../shared.ts';

const LIST_PATH = '/api/vulnerabilities/scans/';
const ITEM_PATH = `${LIST_PATH}:id/`;
const CHANGES_SHOWN = 1000;

/** The list's links: page and page_size always, then the filters the query had. */
function pageLink(page: number, pageSize: number, query: { status?: string; scanner?: string }): string {
  const params = new URLSearchParams({ page: String(page), page_size: String(pageSize) });
  if (query.status) params.set('status', query.status);
  if (query.scanner) params.set('scanner', query.scanner);
  return `${LIST_PATH}?${params.toString()}`;
}

/** The caller and its tenant, for the service (services/scans.ts). */
function scope(request: FastifyRequest): ScanScope {
  const { user } = signedIn(request);
  return {
    inTenant: (fn) => request.tenantDb(fn),
    tenantId: currentTenant(request),
    userId: user.id,
    username: user.username,
  };
}

/** Scans (docs/api-vulnerabilities.md § Scans): CRUD, the report import and the lifecycle. */
const scanRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const repo = new ScansRepository();
  const scans = new ScanService(app.jobs, app.filesDir);
  const events = new FindingEventsRepository();
  // Encapsulated here: only the import route accepts multipart bodies, with the report's own limits.
  await app.register(multipart, {
    limits: { fileSize: MAX_REPORT_BYTES, files: 1, fields: 10, fieldSize: 4096, parts: 12, headerPairs: 100 },
  });

  const { read, write, deleteById } = taggedRoutes(app, ['Scans']);
  const load = (request: FastifyRequest, id: string) => found(request, (tx) => repo.find(tx, Number(id)));
  const assetName = (tx: TenantDb, id: number) => repo.assetName(tx, id);

  app.get(
    LIST_PATH,
    read({ querystring: ListScansQuery, response: replies.signedIn({ 200: Paged(ScanSchema) }, 400) }),
    async (request) => {
      const q = request.query;
      const { paging, filters } = readScanList(q);
      const { page, pageSize } = paging;
      const { count, rows } = await request.tenantDb((tx) => repo.page(tx, filters, pageSize, (page - 1) * pageSize));
      const lastPage = Math.max(1, Math.ceil(count / pageSize));
      return {
        count,
        next: page < lastPage ? pageLink(page + 1, pageSize, q) : null,
        previous: page > 1 ? pageLink(Math.min(page - 1, lastPage), pageSize, q) : null,
        results: rows.map(presentScan),
      };
    },
  );

  app.post(
    LIST_PATH,
    write({ body: ScanBody, response: replies.signedIn({ 201: ScanSchema }, 400) }),
    async (request, reply) => {
      const values = validateScan(request.body, false);
      await checkAsset(request, values.assetId, assetName);
      const { tenantId, userId } = scope(request);
      const created = await request.tenantDb((tx) =>
        repo.create(tx, tenantId, { ...values, name: values.name!, createdBy: userId }),
      );
      return reply.code(201).send(presentScan(created));
    },
  );

  app.post(
    `${LIST_PATH}import/`,
    {
      config: { heavy: true },
      ...write({
        description:
          `multipart/form-data : file (le rapport : ${Object.values(REPORT_FORMAT_LABELS).join(', ')} ; ` +
          `éventuellement compressé en gzip), name, format (auto, ${REPORT_FORMATS.join(', ')}), asset_id, ` +
          'start (true par défaut : le traitement démarre aussitôt).',
        response: replies.signedIn({ 201: ScanSchema }, 400, 409, 413, 415),
      }),
    },
    async (request, reply) => {
      if (!request.isMultipart()) throw invalid('file', MESSAGES.multipartRequired);
      const scan = await scans.withUpload(request.parts(), request.log, async (upload) => {
        const options = importOptions(upload.fields);
        const asset = await checkAsset(request, options.assetId, assetName);
        const imported = await scans.importReport(scope(request), upload, options, asset);
        await app.audit.record(request, {
          eventType: 'vulnerability_scan',
          description: `Rapport de scan importé : ${imported.scan.name}`,
          extra: { scan_id: imported.scan.id, ...imported.report },
        });
        return options.start ? scans.launch(scope(request), imported.scan) : imported.scan;
      });
      return reply.code(201).send(presentScan(scan));
    },
  );

  app.get(
    ITEM_PATH,
    read({ params: IdParams, response: replies.signedIn({ 200: ScanSchema }, 404) }),
    async (request) => presentScan(await load(request, request.params.id)),
  );

  // What the scan's reconciliation changed (issue 21): findings reopened or closed as fixed, at most CHANGES_SHOWN.
  app.get(
    `${ITEM_PATH}changes/`,
    read({ params: IdParams, response: replies.signedIn({ 200: Type.Array(ScanChangeSchema) }, 404) }),
    async (request) => {
      const scan = await load(request, request.params.id);
      const rows = await request.tenantDb((tx) => events.byScan(tx, scan.id, CHANGES_SHOWN));
      return rows.map(presentScanChange);
    },
  );

  for (const method of ['put', 'patch'] as const) {
    app[method](
      ITEM_PATH,
      write({ params: IdParams, body: ScanBody, response: replies.signedIn({ 200: ScanSchema }, 400, 404) }),
      async (request) => {
        const scan = await load(request, request.params.id);
        const values = validateScan(request.body, method === 'patch');
        await checkAsset(request, values.assetId, assetName);
        const updated = await request.tenantDb((tx) => repo.update(tx, scan.id, values));
        if (!updated) throw notFound();
        return presentScan(updated);
      },
    );
  }

  deleteById(ITEM_PATH, async (request, id) => scans.remove(scope(request), await load(request, String(id))));

  const lifecycle = write({ params: IdParams, response: replies.signedIn({ 200: ScanSchema }, 404, 409) });
  for (const action of ['start', 'restart', 'cancel'] as const) {
    app.post(`${ITEM_PATH}${action}/`, lifecycle, async (request) =>
      presentScan(await scans[action](scope(request), await load(request, request.params.id))),
    );
  }
};

export default scanRoutes;
