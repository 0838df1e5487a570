/**
 * Scans' work (docs/api-vulnerabilities.md § Scans): the report import and the lifecycle. A scan's work is the
 * processing of its stored report by the 'process_scan_report' background task.
 */
import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { Multipart } from '@fastify/multipart';
import type { ScanStatus } from '../db/schema.ts';
import type { TenantDb, TenantId } from '../db/tenant-scope.ts';
import { ApiError, notFound } from '../domain/errors.ts';
import { storageFailure } from '../domain/storage-errors.ts';
import { clipText } from '../../../contract/text.ts';
import { ScansRepository, type ScanRow } from '../repositories/scans.ts';
import {
  FORMAT_LABELS,
  MAX_REPORT_MB,
  MESSAGES as REPORT_MESSAGES,
  parseReportFile,
  ReportError,
  type ParsedReport,
} from '../scan-reports/index.ts';
import { invalid } from '../schemas/fields.ts';
import { IMPORT_FIELDS, MAX_SCAN_NAME, MAX_SCAN_TARGET, type ImportOptions } from '../schemas/scans.ts';
import { PROCESS_SCAN_REPORT } from '../tasks/scan-tasks.ts';
import type { JobQueue } from '../tasks/types.ts';
import { reportPath, reportsDir } from './scan-import.ts';

const MESSAGES = {
  fileRequired: 'Le fichier du rapport est requis.',
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

/** Who acts, and where: each step runs in its own tenant transaction (request.tenantDb). */
export interface ScanScope {
  inTenant: <T>(fn: (tx: TenantDb) => Promise<T>) => Promise<T>;
  tenantId: TenantId;
  userId: number;
  username: string;
}

/** An import's parts: the report, written under a server-chosen name, and the text fields. */
export interface ReportUpload {
  id: string;
  path: string;
  fields: Record<string, string>;
  file: { name: string; size: number };
}

interface Log {
  info(obj: object, msg: string): void;
}

/**
 * Reads the import's parts: one `file` part, written to `uploadPath`, and the text fields. Any other part, a report
 * over the limit, or a broken body is refused in French.
 */
async function receiveParts(parts: AsyncIterable<Multipart>, uploadPath: string, log: Log) {
  const fields: Record<string, string> = {};
  let file: { name: string; size: number } | undefined;
  try {
    for await (const part of parts) {
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
    // A refusal of ours, or the server's disk failing (503 from the errors plugin): not a broken form.
    if (err instanceof ApiError || storageFailure(err)) throw err;
    const code = (err as { code?: string }).code;
    if (code === 'FST_REQ_FILE_TOO_LARGE') throw tooLarge();
    if (code === 'FST_FILES_LIMIT' || code === 'FST_FIELDS_LIMIT' || code === 'FST_PARTS_LIMIT') {
      throw new ApiError(413, 'too_many_parts', MESSAGES.tooManyParts);
    }
    log.info({ err }, 'multipart upload refused');
    throw new ApiError(400, 'invalid', MESSAGES.multipartInvalid);
  }
  if (!file) throw invalid('file', MESSAGES.fileRequired);
  return { fields, file };
}

export class ScanService {
  private readonly repo = new ScansRepository();

  constructor(
    private readonly jobs: JobQueue,
    private readonly filesDir: string,
  ) {}

  /**
   * Receives an import's parts into the reports folder and hands them to `use`; whatever happened, no partial
   * upload stays behind (a kept report was renamed away by then).
   */
  async withUpload<T>(parts: AsyncIterable<Multipart>, log: Log, use: (upload: ReportUpload) => Promise<T>) {
    const dir = reportsDir(this.filesDir);
    await mkdir(dir, { recursive: true });
    const id = randomUUID();
    // A server-chosen name: the client's file name is only ever a label.
    const uploadPath = path.join(dir, `${id}.upload`);
    try {
      return await use({ id, path: uploadPath, ...(await receiveParts(parts, uploadPath, log)) });
    } finally {
      await rm(uploadPath, { force: true });
    }
  }

  /** Parses the uploaded report, keeps it, and creates its PENDING scan (named after it unless `options` name it). */
  async importReport(scope: ScanScope, upload: ReportUpload, options: ImportOptions, asset: string | undefined) {
    let parsed: ParsedReport;
    try {
      parsed = await parseReportFile(upload.path, options.format);
    } catch (err) {
      if (err instanceof ReportError) throw new ApiError(err.status, err.code, err.message);
      throw err;
    }
    // Kept as received (a gzip one stays compressed): its extension says what it holds.
    const reportFile = `${upload.id}.${parsed.extension}`;
    await rename(upload.path, reportPath(this.filesDir, reportFile));

    const reportAssets = [...new Set(parsed.findings.map((f) => f.asset.name))];
    const target =
      asset ?? (reportAssets.length > 1 ? `${reportAssets[0]} (+${reportAssets.length - 1})` : reportAssets[0]);
    // eslint-disable-next-line no-control-regex -- control characters are dropped from a display label
    const label = clipText(upload.file.name.replace(/[\u0000-\u001f]/g, ''), 100);
    try {
      const scan = await scope.inTenant((tx) =>
        this.repo.create(tx, scope.tenantId, {
          name:
            options.name ||
            clipText(`Import ${FORMAT_LABELS[parsed.format]}${label ? ` — ${label}` : ''}`, MAX_SCAN_NAME),
          scanner: parsed.format,
          target: clipText(target ?? '', MAX_SCAN_TARGET),
          assetId: options.assetId ?? null,
          reportFile,
          reportFormat: parsed.format,
          reportSize: upload.file.size,
          createdBy: scope.userId,
        }),
      );
      const report = { format: parsed.format, report_size: upload.file.size, findings: parsed.findings.length };
      return { scan, report: { ...report, assets: reportAssets.length } };
    } catch (err) {
      await rm(reportPath(this.filesDir, reportFile), { force: true });
      throw err;
    }
  }

  /**
   * PENDING → RUNNING and the processing job. Never inside a tenantDb transaction: the queue writes with its own
   * connection (on PGlite, waiting for our transaction would deadlock).
   */
  async launch(scope: ScanScope, scan: ScanRow): Promise<ScanRow> {
    const running = await scope.inTenant((tx) =>
      this.repo.transition(tx, scan.id, ['PENDING'], {
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
      const run = await this.jobs.launch(
        PROCESS_SCAN_REPORT,
        { scanId: scan.id },
        { tenantId: scope.tenantId, requestedBy: scope.userId },
      );
      taskId = run.id;
    } catch (err) {
      // No job runs it: back to PENDING so start/ can be tried again.
      await scope.inTenant((tx) =>
        this.repo.transition(tx, scan.id, ['RUNNING'], { status: 'PENDING', startedAt: null }),
      );
      throw err;
    }
    // Only the job id: the task may already have moved the scan on.
    return (await scope.inTenant((tx) => this.repo.update(tx, scan.id, { jobId: taskId }))) ?? running;
  }

  async start(scope: ScanScope, scan: ScanRow): Promise<ScanRow> {
    if (scan.status !== 'PENDING') throw transitionRefused(MESSAGES.cannotStart(scan.status));
    if (!scan.reportFile) throw new ApiError(409, 'no_report', MESSAGES.noReport);
    return this.launch(scope, scan);
  }

  async restart(scope: ScanScope, scan: ScanRow): Promise<ScanRow> {
    const pending = await scope.inTenant((tx) =>
      this.repo.transition(tx, scan.id, ['COMPLETED', 'FAILED', 'CANCELLED'], {
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
    return pending.reportFile ? this.launch(scope, pending) : pending;
  }

  async cancel(scope: ScanScope, scan: ScanRow): Promise<ScanRow> {
    if (scan.status !== 'PENDING' && scan.status !== 'RUNNING') {
      throw transitionRefused(MESSAGES.cannotCancel(scan.status));
    }
    // Revoke first: the run's signal rolls its transaction back before the scan is marked.
    await this.revoke(scope, scan, 'Scan annulé.');
    const cancelled = await scope.inTenant((tx) =>
      this.repo.transition(tx, scan.id, ['PENDING', 'RUNNING'], { status: 'CANCELLED', completedAt: new Date() }),
    );
    if (cancelled) return cancelled;
    // Finished meanwhile.
    const now = await scope.inTenant((tx) => this.repo.find(tx, scan.id));
    if (!now) throw notFound();
    throw transitionRefused(MESSAGES.cannotCancel(now.status));
  }

  /** Deletes the scan and its report; its findings stay (the foreign key clears their scan_id). */
  async remove(scope: ScanScope, scan: ScanRow): Promise<void> {
    await this.revoke(scope, scan, 'Scan supprimé.');
    const removed = await scope.inTenant((tx) => this.repo.remove(tx, scan.id));
    if (!removed) throw notFound();
    if (removed.reportFile) await rm(reportPath(this.filesDir, removed.reportFile), { force: true });
  }

  /** Revokes the scan's job, if it has one still to run. */
  private async revoke(scope: ScanScope, scan: ScanRow, reason: string) {
    if (scan.jobId && (scan.status === 'PENDING' || scan.status === 'RUNNING')) {
      await this.jobs.cancel(scan.jobId, { by: scope.username, reason });
    }
  }
}
