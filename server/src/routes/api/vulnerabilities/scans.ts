import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import multipart from '@fastify/multipart';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { SCANNERS, SCAN_STATUSES, type Scanner, type ScanStatus } from '../../../db/schema.ts';
import { ApiError } from '../../../domain/errors.ts';
import { FORBIDDEN_MESSAGE } from '../../../policies/index.ts';
import { accessGuards, notFound, parseId } from '../shared.ts';
import { presentScan } from '../../../presenters/scan.ts';
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
import { reportPath, reportsDir } from '../../../services/scan-import.ts';
import { PROCESS_SCAN_REPORT } from '../../../tasks/scan-tasks.ts';

const LIST_PATH = '/api/vulnerabilities/scans/';
const DEFAULT_PAGE_SIZE = 25;
const MAX_PAGE_SIZE = 500;
const MAX_NAME = 200;
const MAX_TARGET = 1000;

const MESSAGES = {
  pageInvalid: 'Numéro de page invalide : un entier supérieur ou égal à 1 est attendu.',
  pageSizeInvalid: `Taille de page invalide : un entier entre 1 et ${MAX_PAGE_SIZE} est attendu.`,
  statusInvalid: `Statut invalide. Valeurs possibles : ${SCAN_STATUSES.join(', ')}.`,
  scannerInvalid: `Scanner invalide. Valeurs possibles : ${SCANNERS.join(', ')}.`,
  nameRequired: 'Le nom du scan est requis.',
  nameTooLong: `Le nom ne doit pas dépasser ${MAX_NAME} caractères.`,
  targetTooLong: `La cible ne doit pas dépasser ${MAX_TARGET} caractères.`,
  assetUnknown: 'Actif introuvable.',
  formatInvalid: 'Format invalide. Valeurs possibles : auto, trivy, nmap, openvas.',
  startInvalid: 'Valeur invalide pour start : true ou false attendu.',
  fileRequired: 'Le fichier du rapport est requis.',
  multipartRequired: 'Le rapport doit être envoyé en multipart/form-data (champ file).',
  multipartInvalid: 'Requête multipart invalide.',
  unexpectedField: (name: string) => `Champ inattendu : ${name}.`,
  noReport: 'Aucun rapport à traiter : importez le rapport du scanner.',
  cannotStart: (s: ScanStatus) => `Impossible de démarrer un scan à l’état ${s} : seul un scan PENDING peut l’être.`,
  cannotRestart: (s: ScanStatus) =>
    `Impossible de relancer un scan à l’état ${s} : seul un scan COMPLETED, FAILED ou CANCELLED peut l’être.`,
  cannotCancel: (s: ScanStatus) =>
    `Impossible d’annuler un scan à l’état ${s} : seul un scan PENDING ou RUNNING peut l’être.`,
} as const;

const invalid = (field: string, message: string) =>
  new ApiError(400, 'invalid', message, { fields: { [field]: [message] } });

interface ListQuery {
  page?: string;
  page_size?: string;
  status?: string;
  scanner?: string;
}

// No additionalProperties:false on queries: clients add cache-busting parameters to GETs.
const listQuery = {
  type: 'object',
  properties: {
    page: { type: 'string' },
    page_size: { type: 'string' },
    status: { type: 'string', maxLength: 200 },
    scanner: { type: 'string', maxLength: 200 },
  },
} as const;

interface IdParams {
  id: string;
}
const idParams = { type: 'object', required: ['id'], properties: { id: { type: 'string' } } } as const;

interface ScanBody {
  name?: string;
  scanner?: string;
  target?: string | null;
  asset_id?: number | null;
}

// Fields a client may send back from a Scan it read; they are ignored (the lifecycle routes own them).
const READ_ONLY = [
  'id',
  'status',
  'progress',
  'task_id',
  'report_format',
  'report_size',
  'summary',
  'error',
  'created_by',
  'started_at',
  'completed_at',
  'created_at',
  'updated_at',
] as const;

const scanBody = {
  type: 'object',
  additionalProperties: false,
  properties: {
    name: { type: 'string', maxLength: 4096 },
    scanner: { type: 'string', maxLength: 64 },
    target: { type: ['string', 'null'], maxLength: 4096 },
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

function pageLink(page: number, pageSize: number, query: ListQuery): string {
  const params = new URLSearchParams({ page: String(page), page_size: String(pageSize) });
  if (query.status) params.set('status', query.status);
  if (query.scanner) params.set('scanner', query.scanner);
  return `${LIST_PATH}?${params.toString()}`;
}

/** Checks a create/update body; `partial` for PATCH (absent fields stay as they are). */
function validateBody(body: ScanBody, partial: boolean): ScanValues & { assetId?: number | null } {
  const out: ScanValues = {};
  if (body.name !== undefined || !partial) {
    const name = (body.name ?? '').trim();
    if (name === '') throw invalid('name', MESSAGES.nameRequired);
    if (name.length > MAX_NAME) throw invalid('name', MESSAGES.nameTooLong);
    out.name = name;
  }
  if (body.scanner !== undefined) {
    if (!(SCANNERS as readonly string[]).includes(body.scanner)) throw invalid('scanner', MESSAGES.scannerInvalid);
    out.scanner = body.scanner as Scanner;
  } else if (!partial) {
    out.scanner = 'manual';
  }
  if (body.target !== undefined || !partial) {
    const target = (body.target ?? '').trim();
    if (target.length > MAX_TARGET) throw invalid('target', MESSAGES.targetTooLong);
    out.target = target;
  }
  if (body.asset_id !== undefined || !partial) out.assetId = body.asset_id ?? null;
  return out;
}

/**
 * Scans (docs/api-vulnerabilities.md § Scans): CRUD, the report import and the lifecycle. A scan's work is the
 * processing of its stored report by the 'process_scan_report' background task.
 */
const scanRoutes: FastifyPluginAsync = async (app) => {
  const repo = new ScansRepository();
  // Encapsulated here: only the import route accepts multipart bodies, with the report's own limits.
  await app.register(multipart, {
    limits: { fileSize: MAX_REPORT_BYTES, files: 1, fields: 10, fieldSize: 4096, parts: 12, headerPairs: 100 },
  });

  // Authorization runs before body validation, so a viewer always gets the 403 (and the refusal is audited).
  const { read: reading, write: writing } = accessGuards(app);

  const tenantId = (request: FastifyRequest) => {
    const tenant = request.auth!.tenant;
    if (!tenant) throw new ApiError(403, 'permission_denied', FORBIDDEN_MESSAGE);
    return tenant.id;
  };

  const load = async (request: FastifyRequest, rawId: string): Promise<ScanRow> => {
    const id = parseId(rawId);
    const row = id === undefined ? undefined : await request.tenantDb((tx) => repo.find(tx, id));
    if (!row) throw notFound();
    return row;
  };

  const checkAsset = async (request: FastifyRequest, assetId: number | null | undefined) => {
    if (assetId === null || assetId === undefined) return undefined;
    const name = await request.tenantDb((tx) => repo.assetName(tx, assetId));
    if (name === undefined) throw invalid('asset_id', MESSAGES.assetUnknown);
    return name;
  };

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
    if (!running) throw new ApiError(409, 'invalid_transition', MESSAGES.cannotStart(scan.status));
    let taskId: string;
    try {
      const run = await app.jobs.launch(
        PROCESS_SCAN_REPORT,
        { scanId: scan.id },
        { tenantId: tenantId(request), requestedBy: request.auth!.user.id },
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

  app.get<{ Querystring: ListQuery }>(
    LIST_PATH,
    { ...reading, schema: { querystring: listQuery } },
    async (request) => {
      const q = request.query;
      const page = positiveInt(q.page, 1);
      if (page === undefined) throw invalid('page', MESSAGES.pageInvalid);
      const pageSize = positiveInt(q.page_size, DEFAULT_PAGE_SIZE);
      if (pageSize === undefined || pageSize > MAX_PAGE_SIZE) throw invalid('page_size', MESSAGES.pageSizeInvalid);
      const filters = {
        status: csvOf(q.status, SCAN_STATUSES, 'status', MESSAGES.statusInvalid),
        scanner: csvOf(q.scanner, SCANNERS, 'scanner', MESSAGES.scannerInvalid),
      };
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

  app.post<{ Body: ScanBody }>(LIST_PATH, { ...writing, schema: { body: scanBody } }, async (request, reply) => {
    const values = validateBody(request.body, false);
    await checkAsset(request, values.assetId);
    const tenant = tenantId(request);
    const created = await request.tenantDb((tx) =>
      repo.create(tx, tenant, { ...values, name: values.name!, createdBy: request.auth!.user.id }),
    );
    return reply.code(201).send(presentScan(created));
  });

  app.post(`${LIST_PATH}import/`, writing, async (request, reply) => {
    if (!request.isMultipart()) throw invalid('file', MESSAGES.multipartRequired);
    const dir = reportsDir(app.filesDir);
    await mkdir(dir, { recursive: true });
    const id = randomUUID();
    // A server-chosen name: the client's file name is only ever a label.
    const uploadPath = path.join(dir, `${id}.upload`);
    const fields: Record<string, string> = {};
    let file: { name: string; size: number } | undefined;
    let parsed: ParsedReport;
    let format: FormatChoice = 'auto';
    try {
      try {
        for await (const part of request.parts()) {
          if (part.type === 'file') {
            if (part.fieldname !== 'file' || file) {
              part.file.resume();
              throw invalid(part.fieldname, MESSAGES.unexpectedField(part.fieldname));
            }
            await pipeline(part.file, createWriteStream(uploadPath, { flags: 'wx' }));
            if (part.file.truncated) {
              throw new ApiError(413, 'report_too_large', REPORT_MESSAGES.tooLarge(MAX_REPORT_MB));
            }
            file = { name: part.filename, size: (await stat(uploadPath)).size };
          } else {
            if (!['name', 'format', 'asset_id', 'start'].includes(part.fieldname)) {
              throw invalid(part.fieldname, MESSAGES.unexpectedField(part.fieldname));
            }
            fields[part.fieldname] = String(part.value);
          }
        }
      } catch (err) {
        if (err instanceof ApiError) throw err;
        const code = (err as { code?: string }).code;
        if (code === 'FST_REQ_FILE_TOO_LARGE') {
          throw new ApiError(413, 'report_too_large', REPORT_MESSAGES.tooLarge(MAX_REPORT_MB));
        }
        if (code === 'FST_FILES_LIMIT' || code === 'FST_FIELDS_LIMIT' || code === 'FST_PARTS_LIMIT') {
          throw new ApiError(413, 'too_many_parts', 'Trop de champs ou de fichiers dans la requête.');
        }
        request.log.info({ err }, 'multipart upload refused');
        throw new ApiError(400, 'invalid', MESSAGES.multipartInvalid);
      }
      if (!file) throw invalid('file', MESSAGES.fileRequired);

      const name = (fields.name ?? '').trim();
      if (name.length > MAX_NAME) throw invalid('name', MESSAGES.nameTooLong);
      const rawFormat = (fields.format ?? 'auto').trim() || 'auto';
      if (rawFormat !== 'auto' && !(REPORT_FORMATS as readonly string[]).includes(rawFormat)) {
        throw invalid('format', MESSAGES.formatInvalid);
      }
      format = rawFormat as FormatChoice;
      const start = (fields.start ?? 'true').trim().toLowerCase();
      if (!['true', 'false', '1', '0'].includes(start)) throw invalid('start', MESSAGES.startInvalid);
      let assetId: number | undefined;
      if (fields.asset_id !== undefined && fields.asset_id.trim() !== '') {
        assetId = parseId(fields.asset_id.trim());
        if (assetId === undefined) throw invalid('asset_id', MESSAGES.assetUnknown);
      }
      const assetName = await checkAsset(request, assetId);

      try {
        parsed = await parseReportFile(uploadPath, format);
      } catch (err) {
        if (err instanceof ReportError) throw new ApiError(err.status, err.code, err.message);
        throw err;
      }
      const reportFile = `${id}.${REPORT_EXTENSIONS[parsed.format]}`;
      await rename(uploadPath, reportPath(app.filesDir, reportFile));

      const reportAssets = [...new Set(parsed.findings.map((f) => f.asset.name))];
      const target =
        assetName ?? (reportAssets.length > 1 ? `${reportAssets[0]} (+${reportAssets.length - 1})` : reportAssets[0]);
      // eslint-disable-next-line no-control-regex -- control characters are dropped from a display label
      const label = file.name.replace(/[\u0000-\u001f]/g, '').slice(0, 100);
      let scan: ScanRow;
      try {
        const tenant = tenantId(request);
        scan = await request.tenantDb((tx) =>
          repo.create(tx, tenant, {
            name: name || `Import ${FORMAT_LABELS[parsed.format]}${label ? ` — ${label}` : ''}`.slice(0, MAX_NAME),
            scanner: parsed.format,
            target: (target ?? '').slice(0, MAX_TARGET),
            assetId: assetId ?? null,
            reportFile,
            reportFormat: parsed.format,
            reportSize: file!.size,
            createdBy: request.auth!.user.id,
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
      if (start === 'true' || start === '1') scan = await launch(request, scan);
      return reply.code(201).send(presentScan(scan));
    } finally {
      // Whatever happened, no partial upload stays behind (a kept report was renamed away already).
      await rm(uploadPath, { force: true });
    }
  });

  app.get<{ Params: IdParams }>(`${LIST_PATH}:id/`, { ...reading, schema: { params: idParams } }, async (request) =>
    presentScan(await load(request, request.params.id)),
  );

  for (const method of ['PUT', 'PATCH'] as const) {
    app.route<{ Params: IdParams; Body: ScanBody }>({
      method,
      url: `${LIST_PATH}:id/`,
      ...writing,
      schema: { params: idParams, body: scanBody },
      handler: async (request) => {
        const scan = await load(request, request.params.id);
        const values = validateBody(request.body, method === 'PATCH');
        if (values.assetId !== undefined) await checkAsset(request, values.assetId);
        const updated = await request.tenantDb((tx) => repo.update(tx, scan.id, values));
        if (!updated) throw notFound();
        return presentScan(updated);
      },
    });
  }

  app.delete<{ Params: IdParams }>(
    `${LIST_PATH}:id/`,
    { ...writing, schema: { params: idParams } },
    async (request, reply) => {
      const scan = await load(request, request.params.id);
      if (scan.jobId && (scan.status === 'PENDING' || scan.status === 'RUNNING')) {
        await app.jobs.cancel(scan.jobId, { by: request.auth!.user.username, reason: 'Scan supprimé.' });
      }
      // Its findings stay: the foreign key clears their scan_id.
      const removed = await request.tenantDb((tx) => repo.remove(tx, scan.id));
      if (!removed) throw notFound();
      if (removed.reportFile) await rm(reportPath(app.filesDir, removed.reportFile), { force: true });
      return reply.code(204).send();
    },
  );

  app.post<{ Params: IdParams }>(
    `${LIST_PATH}:id/start/`,
    { ...writing, schema: { params: idParams } },
    async (request) => {
      const scan = await load(request, request.params.id);
      if (scan.status !== 'PENDING') throw new ApiError(409, 'invalid_transition', MESSAGES.cannotStart(scan.status));
      if (!scan.reportFile) throw new ApiError(409, 'no_report', MESSAGES.noReport);
      return presentScan(await launch(request, scan));
    },
  );

  app.post<{ Params: IdParams }>(
    `${LIST_PATH}:id/restart/`,
    { ...writing, schema: { params: idParams } },
    async (request) => {
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
      if (!pending) throw new ApiError(409, 'invalid_transition', MESSAGES.cannotRestart(scan.status));
      // Without a report the scan waits in PENDING for one.
      return presentScan(pending.reportFile ? await launch(request, pending) : pending);
    },
  );

  app.post<{ Params: IdParams }>(
    `${LIST_PATH}:id/cancel/`,
    { ...writing, schema: { params: idParams } },
    async (request) => {
      const scan = await load(request, request.params.id);
      if (scan.status !== 'PENDING' && scan.status !== 'RUNNING') {
        throw new ApiError(409, 'invalid_transition', MESSAGES.cannotCancel(scan.status));
      }
      // Revoke first: the run's signal rolls its transaction back before the scan is marked.
      if (scan.jobId) {
        await app.jobs.cancel(scan.jobId, { by: request.auth!.user.username, reason: 'Scan annulé.' });
      }
      const cancelled = await request.tenantDb((tx) =>
        repo.transition(tx, scan.id, ['PENDING', 'RUNNING'], { status: 'CANCELLED', completedAt: new Date() }),
      );
      if (!cancelled) {
        // It finished meanwhile.
        const now = await load(request, request.params.id);
        throw new ApiError(409, 'invalid_transition', MESSAGES.cannotCancel(now.status));
      }
      return presentScan(cancelled);
    },
  );
};

export default scanRoutes;
