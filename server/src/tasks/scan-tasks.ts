import { failInterruptedScan, processScanReport } from '../services/scan-import.ts';
import type { TaskDefinition } from './types.ts';

export const PROCESS_SCAN_REPORT = 'vulnerabilities.tasks.process_scan_report';

/** Scan start/restart: applies the scan's stored scanner report to the tenant (services/scan-import.ts). */
const processScanReportTask: TaskDefinition = {
  name: PROCESS_SCAN_REPORT,
  label: 'Traitement d’un rapport de scan',
  description:
    'Lit le rapport importé (Trivy, Grype, CycloneDX, SARIF, Nmap, OpenVAS, Nessus, ZAP, Dependency-Check) et met à jour les actifs et les vulnérabilités du scan.',
  scope: 'tenant',
  // Parsing is deterministic: a failed report fails again, and the scan already says why.
  retryLimit: 0,
  expireInSeconds: 3600,
  async run(ctx) {
    const scanId = ctx.args.scanId;
    if (ctx.tenantId === null) throw new Error('process_scan_report runs inside a tenant');
    if (typeof scanId !== 'number' || !Number.isSafeInteger(scanId) || scanId < 1) {
      throw new Error('Argument scanId invalide.');
    }
    const outcome = await processScanReport(ctx.database, {
      tenantId: ctx.tenantId,
      scanId,
      filesDir: ctx.filesDir,
      signal: ctx.signal,
      progress: (percent) => ctx.progress(percent),
      requestedBy: ctx.requestedBy,
    });
    switch (outcome.status) {
      case 'COMPLETED': {
        const s = outcome.summary;
        return {
          result: `Scan ${scanId} traité : ${s.findings} vulnérabilités (${s.created} nouvelles, ${s.updated} mises à jour), ${s.assets_created} actifs créés.`,
          meta: { progress: 100, scan_id: scanId, summary: s },
        };
      }
      case 'FAILED':
        // The queue records the failure; the scan row carries the same message.
        throw new Error(outcome.error);
      case 'CANCELLED':
        return { result: `Traitement du scan ${scanId} annulé.`, meta: { scan_id: scanId } };
      case 'SKIPPED':
        return { result: `Scan ${scanId} non traité (${outcome.reason}).`, meta: { scan_id: scanId } };
    }
  },
  /**
   * The process died while processing the report: the scan is FAILED, not requeued. Its findings are written in one
   * transaction, so nothing half-applied remains and a rerun would be safe for the data; but the death may be the
   * report's doing (a report too big for the process's memory: the OOM killer's kill -9), and a requeued run would
   * then kill every next process too, the web with it on a single-process install. The scan says why it stopped and
   * restart/ reprocesses it in one click (docs/api-vulnerabilities.md "Scans").
   */
  async recover(ctx) {
    const scanId = ctx.args.scanId;
    if (!ctx.final || ctx.tenantId === null || typeof scanId !== 'number') return;
    if (await failInterruptedScan(ctx.database, { tenantId: ctx.tenantId, scanId, taskId: ctx.taskId })) {
      ctx.log.warn({ scanId }, 'scan interrupted by the death of its process marked FAILED');
    }
  },
};

export const scanTasks: TaskDefinition[] = [processScanReportTask];
