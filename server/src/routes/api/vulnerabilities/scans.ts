import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import multipart from '@fastify/multipart';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { SCANNERS, SCAN_STATUSES, type ScanStatus } from '../../../db/schema.ts';
import type { TenantDb } from '../../../db/tenant-scope.ts';
import { ApiError, FieldErrors, notFound } from '../../../domain/errors.ts';
import { currentTenant, signedIn } from '../../../plugins/app/authorization.ts';
import { presentScan, ScanSchema } from '../../../presenters/scan.ts';
import { ScansRepository, type ScanRow, type ScanValues } from '../../../repositories/scans.ts';
import {
  FORMAT_LABELS,
  MAX_REPORT_BYTES,
  MAX_REPORT_MB,
  MESSAGES as REPORT_MESSAGES,
  parseReportFile,
  REPORT_EXTENSIONS,
  REPORT_FORMATS,
  ReportError,
  type FormatChoice,
  type ParsedReport,
} from '../../../scan-reports/index.ts';
import {
  Choice,
  IdParams,
  ListQuery,
  NoContent,
  Paged,
  replies,
  type Static,
  Type,
  WriteBody as writeBody,
} from '../../../schemas/common.ts';
import { reportPath, reportsDir } from '../../../services/scan-import.ts';
import { PROCESS_SCAN_REPORT } from '../../../tasks/scan-tasks.ts';
import { csvOf, parseId, parsePaging } from '../../../schemas/query.ts';
import { ASSET_UNKNOWN, invalid, optionalText, orNull, trimmed } from '../../../schemas/fields.ts';
import { checkAsset, found, taggedRoutes } from '../shared.ts';

const LIST_PATH = '/api/vulnerabilities/scans/';
const ITEM_PATH = `${LIST_PATH}:id/`;
const MAX_NAME = 200;
const MAX_TARGET = 1000;
const IMPORT_FIELDS = ['name', 'format', 'asset_id', 'start'];

const MESSAGES = {
  statusInvalid: `Statut invalide. Valeurs possibles : ${SCAN_STATUSES.join(', ')}.`,
  scannerInvalid: `Scanner invalide. Valeurs possibles : ${SCANNERS.join(', ')}.`,
  nameRequired: 'Le nom du scan est requis.',
  nameTooLong: `Le nom ne doit pas dépasser ${MAX_NAME} caractères.`,
  targetTooLong: `La cible ne doit pas dépasser ${MAX_TARGET} caractères.`,
  formatInvalid: 'Format invalide. Valeurs possibles : auto, trivy, nmap, openvas.',
  startInvalid: 'Valeur invalide pour start : true ou false attendu.',
  fileRequired: 'Le fichier du rapport est requis.',
  multipartRequired: 'Le rapport doit être envoyé en multipart/form-data (champ file).',
  multipartInvalid: 'Requête multipart invalide.',
  tooManyParts: 'Trop de champs ou de fichiers dans la requête.',
  unexpectedField: (name: string) => `Champ inattendu : ${name}.`,
  noReport: 'Aucun rapport à traiter : importez le rapport du scanner.',
  cannotStart: (s: ScanStatus) => `Impossible de démarrer un scan à l’état ${s} : seul un scan PENDING peut l’être.`,
  cannotRestart: (s: ScanStatus) =>
    `Impossible de relancer un scan à l’état ${s} : seul un scan COMPLETED, FAILED ou CANCELLED peut l’être.`,
  cannotCancel: (s: ScanStatus) =>
    `Impossible d’annuler un scan à l’état ${s} : seul un scan PENDING ou RUNNING peut l’être.`,
} as const;

const transitionRefused = (message: string) => new ApiError(409, 'invalid_transition', message);
const tooLarge = () => new ApiError(413, 'report_too_large', REPORT_MESSAGES.tooLarge(MAX_REPORT_MB));

const ListScansQuery = ListQuery({
  status: `Statuts séparés par des virgules : ${SCAN_STATUSES.join(', ')}`,
  scanner: `Scanners séparés par des virgules : ${SCANNERS.join(', ')}`,
});

/** Types and sizes by the schema; trimming, the default scanner and the French messages by `validateBody`. */
const ScanBody = writeBody(ScanSchema, {
  name: optionalText(4096, MESSAGES.nameTooLong),
  scanner: Type.Optional(Choice(SCANNERS, { errorMessage: MESSAGES.scannerInvalid })),
  target: orNull('string', { maxLength: 4096, errorMessage: { maxLength: MESSAGES.targetTooLong } }),
  asset_id: orNull('integer'),
});
type ScanBody = Static<typeof ScanBody>;

/** The list's links: page and page_size always, then the filters the query had. */
function pageLink(page: number, pageSize: number, query: { status?: string; scanner?: string }): string {
  const params = new URLSearchParams({ page: String(page), page_size: String(pageSize) });
  if (query.status) params.set('status', query.status);
  if (query.scanner) params.set('scanner', query.scanner);
  return `${LIST_PATH}?${params.toString()}`;
}

/** Checks a create/update body; `partial` for PATCH (absent fields stay as they are). */
function validateBody(body: ScanBody, partial: boolean): ScanValues {
  const given = (value: unknown) => value !== undefined || !partial;
  return {
    name: trimmed(body.name, partial, 'name', MAX_NAME, MESSAGES.nameTooLong, MESSAGES.nameRequired),
    scanner: given(body.scanner) ? (body.scanner ?? 'manual') : undefined,
    target: trimmed(body.target, partial, 'target', MAX_TARGET, MESSAGES.targetTooLong),
    assetId: given(body.asset_id) ? (body.asset_id ?? null) : undefined,
  };
}

/**
 * The import's parts: one `file` part, written to `uploadPath` (a server-chosen name), and the text fields. Any
 * other part, a report over the limit, or a broken body is refused in French.
 */
async function receiveUpload(request: FastifyRequest, uploadPath: string) {
  const fields: Record<string, string> = {};
  let file: { name: string; size: number } | undefined;
  try {
    for await (const part of request.parts()) {
      if (part.type === 'file') {
        if (part.fieldname !== 'file' || file) {
          part.file.resume();
          throw invalid(part.fieldname, MESSAGES.unexpectedField(part.fieldname));
        }
        await pipeline(part.file, createWriteStream(uploadPath, { flags: 'wx' }));
        if (part.file.truncated) throw tooLarge();
        file = { name: part.filename, size: (await stat(uploadPath)).size };
      } else {
        if (!IMPORT_FIELDS.includes(part.fieldname)) {
          throw invalid(part.fieldname, MESSAGES.unexpectedField(part.fieldname));
        }
        fields[part.fieldname] = String(part.value);
      }
    }
  } catch (err) {
    if (err instanceof ApiError) throw err;
    const code = (err as { code?: string }).code;
    if (code === 'FST_REQ_FILE_TOO_LARGE') throw tooLarge();
    if (code === 'FST_FILES_LIMIT' || code === 'FST_FIELDS_LIMIT' || code === 'FST_PARTS_LIMIT') {
      throw new ApiError(413, 'too_many_parts', MESSAGES.tooManyParts);
    }
    request.log.info({ err }, 'multipart upload refused');
    throw new ApiError(400, 'invalid', MESSAGES.multipartInvalid);
  }
  if (!file) throw invalid('file', MESSAGES.fileRequired);
  return { fields, file };
}

/** The import's text fields: name, format (auto by default), asset_id, start (true by default). */
function importOptions(fields: Record<string, string>) {
  const name = (fields.name ?? '').trim();
  if (name.length > MAX_NAME) throw invalid('name', MESSAGES.nameTooLong);
  const format = (fields.format ?? 'auto').trim() || 'auto';
  if (format !== 'auto' && !(REPORT_FORMATS as readonly string[]).includes(format)) {
    throw invalid('format', MESSAGES.formatInvalid);
  }
  const start = (fields.start ?? 'true').trim().toLowerCase();
  if (!['true', 'false', '1', '0'].includes(start)) throw invalid('start', MESSAGES.startInvalid);
  let assetId: number | undefined;
  if (fields.asset_id !== undefined && fields.asset_id.trim() !== '') {
    assetId = parseId(fields.asset_id.trim());
    if (assetId === undefined) throw invalid('asset_id', ASSET_UNKNOWN);
  }
  return { name, format: format as FormatChoice, start: start === 'true' || start === '1', assetId };
}

/**
 * Scans (docs/api-vulnerabilities.md § Scans): CRUD, the report import and the lifecycle. A scan's work is the
 * processing of its stored report by the 'process_scan_report' background task.
 */
const scanRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const repo = new ScansRepository();
  // Encapsulated here: only the import route accepts multipart bodies, with the report's own limits.
  await app.register(multipart, {
    limits: { fileSize: MAX_REPORT_BYTES, files: 1, fields: 10, fieldSize: 4096, parts: 12, headerPairs: 100 },
  });

  const { read, write } = taggedRoutes(app, ['Scans']);
  const load = (request: FastifyRequest, id: string) => found(request, (tx) => repo.find(tx, Number(id)));
  const assetName = (tx: TenantDb, id: number) => repo.assetName(tx, id);

  /**
   * PENDING → RUNNING and the processing job. Never inside a tenantDb transaction: the queue writes with its own
   * connection (on PGlite, waiting for our transaction would deadlock).
   */
  const launch = async (request: FastifyRequest, scan: ScanRow): Promise<ScanRow> => {
    const running = await request.tenantDb((tx) =>
      repo.transition(tx, scan.id, ['PENDING'], {
        status: 'RUNNING',
        progress: 0,
        error: null,
        startedAt: new Date(),
        completedAt: null,
      }),
    );
    if (!running) throw transitionRefused(MESSAGES.cannotStart(scan.status));
    let taskId: string;
    try {
      const run = await app.jobs.launch(
        PROCESS_SCAN_REPORT,
        { scanId: scan.id },
        { tenantId: currentTenant(request), requestedBy: signedIn(request).user.id },
      );
      taskId = run.id;
    } catch (err) {
      // No job runs it: back to PENDING so start/ can be tried again.
      await request.tenantDb((tx) => repo.transition(tx, scan.id, ['RUNNING'], { status: 'PENDING', startedAt: null }));
      throw err;
    }
    // Only the job id: the task may already have moved the scan on.
    return (await request.tenantDb((tx) => repo.update(tx, scan.id, { jobId: taskId }))) ?? running;
  };

  /** Revokes the scan's job, if it has one still to run. */
  const revoke = async (request: FastifyRequest, scan: ScanRow, reason: string) => {
    if (scan.jobId && (scan.status === 'PENDING' || scan.status === 'RUNNING')) {
      await app.jobs.cancel(scan.jobId, { by: signedIn(request).user.username, reason });
    }
  };

  app.get(
    LIST_PATH,
    read({ querystring: ListScansQuery, response: replies.signedIn({ 200: Paged(ScanSchema) }, 400) }),
    async (request) => {
      const q = request.query;
      const errors = new FieldErrors();
      const { page, pageSize } = parsePaging(errors, q);
      const filters = {
        status: csvOf(errors, q.status, SCAN_STATUSES, 'status', MESSAGES.statusInvalid),
        scanner: csvOf(errors, q.scanner, SCANNERS, 'scanner', MESSAGES.scannerInvalid),
      };
      errors.throwIfAny();
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
      const values = validateBody(request.body, false);
      await checkAsset(request, values.assetId, assetName);
      const tenant = currentTenant(request);
      const createdBy = signedIn(request).user.id;
      const created = await request.tenantDb((tx) =>
        repo.create(tx, tenant, { ...values, name: values.name!, createdBy }),
      );
      return reply.code(201).send(presentScan(created));
    },
  );

  app.post(
    `${LIST_PATH}import/`,
    write({
      description:
        'multipart/form-data : file (le rapport Trivy JSON, Nmap XML ou OpenVAS XML), name, format ' +
        '(auto, trivy, nmap, openvas), asset_id, start (true par défaut : le traitement démarre aussitôt).',
      response: replies.signedIn({ 201: ScanSchema }, 400, 409, 413, 415),
    }),
    async (request, reply) => {
      if (!request.isMultipart()) throw invalid('file', MESSAGES.multipartRequired);
      const dir = reportsDir(app.filesDir);
      await mkdir(dir, { recursive: true });
      const id = randomUUID();
      // A server-chosen name: the client's file name is only ever a label.
      const uploadPath = path.join(dir, `${id}.upload`);
      try {
        const { fields, file } = await receiveUpload(request, uploadPath);
        const options = importOptions(fields);
        const asset = await checkAsset(request, options.assetId, assetName);
        let parsed: ParsedReport;
        try {
          parsed = await parseReportFile(uploadPath, options.format);
        } catch (err) {
          if (err instanceof ReportError) throw new ApiError(err.status, err.code, err.message);
          throw err;
        }
        const reportFile = `${id}.${REPORT_EXTENSIONS[parsed.format]}`;
        await rename(uploadPath, reportPath(app.filesDir, reportFile));

        const reportAssets = [...new Set(parsed.findings.map((f) => f.asset.name))];
        const target =
          asset ?? (reportAssets.length > 1 ? `${reportAssets[0]} (+${reportAssets.length - 1})` : reportAssets[0]);
        // eslint-disable-next-line no-control-regex -- control characters are dropped from a display label
        const label = file.name.replace(/[\u0000-\u001f]/g, '').slice(0, 100);
        let scan: ScanRow;
        try {
          const tenant = currentTenant(request);
          const createdBy = signedIn(request).user.id;
          scan = await request.tenantDb((tx) =>
            repo.create(tx, tenant, {
              name:
                options.name ||
                `Import ${FORMAT_LABELS[parsed.format]}${label ? ` — ${label}` : ''}`.slice(0, MAX_NAME),
              scanner: parsed.format,
              target: (target ?? '').slice(0, MAX_TARGET),
              assetId: options.assetId ?? null,
              reportFile,
              reportFormat: parsed.format,
              reportSize: file.size,
              createdBy,
            }),
          );
        } catch (err) {
          await rm(reportPath(app.filesDir, reportFile), { force: true });
          throw err;
        }
        await app.audit.record(request, {
          eventType: 'vulnerability_scan',
          description: `Rapport de scan importé : ${scan.name}`,
          extra: {
            scan_id: scan.id,
            format: parsed.format,
            report_size: file.size,
            findings: parsed.findings.length,
            assets: reportAssets.length,
          },
        });
        if (options.start) scan = await launch(request, scan);
        return reply.code(201).send(presentScan(scan));
      } finally {
        // Whatever happened, no partial upload stays behind (a kept report was renamed away already).
        await rm(uploadPath, { force: true });
      }
    },
  );

  app.get(
    ITEM_PATH,
    read({ params: IdParams, response: replies.signedIn({ 200: ScanSchema }, 404) }),
    async (request) => presentScan(await load(request, request.params.id)),
  );

  for (const method of ['put', 'patch'] as const) {
    app[method](
      ITEM_PATH,
      write({ params: IdParams, body: ScanBody, response: replies.signedIn({ 200: ScanSchema }, 400, 404) }),
      async (request) => {
        const scan = await load(request, request.params.id);
        const values = validateBody(request.body, method === 'patch');
        if (values.assetId !== undefined) await checkAsset(request, values.assetId, assetName);
        const updated = await request.tenantDb((tx) => repo.update(tx, scan.id, values));
        if (!updated) throw notFound();
        return presentScan(updated);
      },
    );
  }

  app.delete(
    ITEM_PATH,
    write({ params: IdParams, response: replies.signedIn({ 204: NoContent }, 404) }),
    async (request, reply) => {
      const scan = await load(request, request.params.id);
      await revoke(request, scan, 'Scan supprimé.');
      // Its findings stay: the foreign key clears their scan_id.
      const removed = await request.tenantDb((tx) => repo.remove(tx, scan.id));
      if (!removed) throw notFound();
      if (removed.reportFile) await rm(reportPath(app.filesDir, removed.reportFile), { force: true });
      return reply.code(204).send();
    },
  );

  const lifecycle = write({ params: IdParams, response: replies.signedIn({ 200: ScanSchema }, 404, 409) });

  app.post(`${ITEM_PATH}start/`, lifecycle, async (request) => {
    const scan = await load(request, request.params.id);
    if (scan.status !== 'PENDING') throw transitionRefused(MESSAGES.cannotStart(scan.status));
    if (!scan.reportFile) throw new ApiError(409, 'no_report', MESSAGES.noReport);
    return presentScan(await launch(request, scan));
  });

  app.post(`${ITEM_PATH}restart/`, lifecycle, async (request) => {
    const scan = await load(request, request.params.id);
    const pending = await request.tenantDb((tx) =>
      repo.transition(tx, scan.id, ['COMPLETED', 'FAILED', 'CANCELLED'], {
        status: 'PENDING',
        progress: 0,
        summary: {},
        error: null,
        jobId: null,
        startedAt: null,
        completedAt: null,
      }),
    );
    if (!pending) throw transitionRefused(MESSAGES.cannotRestart(scan.status));
    // Without a report the scan waits in PENDING for one.
    return presentScan(pending.reportFile ? await launch(request, pending) : pending);
  });

  app.post(`${ITEM_PATH}cancel/`, lifecycle, async (request) => {
    const scan = await load(request, request.params.id);
    if (scan.status !== 'PENDING' && scan.status !== 'RUNNING') {
      throw transitionRefused(MESSAGES.cannotCancel(scan.status));
    }
    // Revoke first: the run's signal rolls its transaction back before the scan is marked.
    await revoke(request, scan, 'Scan annulé.');
    const cancelled = await request.tenantDb((tx) =>
      repo.transition(tx, scan.id, ['PENDING', 'RUNNING'], { status: 'CANCELLED', completedAt: new Date() }),
    );
    // Finished meanwhile.
    if (!cancelled) throw transitionRefused(MESSAGES.cannotCancel((await load(request, request.params.id)).status));
    return presentScan(cancelled);
  });
};

export default scanRoutes;
