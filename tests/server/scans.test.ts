import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { count, eq, like } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { assets, cves, scans, vulnerabilities } from '../../server/src/db/schema.ts';
import {
  applyFindings,
  processScanReport,
  undoImport,
  type ImportJournal,
  type TenantRun,
} from '../../server/src/services/scan-import.ts';
import { withTenant, type TenantId } from '../../server/src/db/tenant-scope.ts';
import type { Finding } from '../../server/src/scan-reports/types.ts';
import { jobQueueOf } from '../../server/src/services/task-queue.ts';
import { TASKS } from '../../server/src/tasks/index.ts';
import { PROCESS_SCAN_REPORT, scanTasks } from '../../server/src/tasks/scan-tasks.ts';
import type { TaskContext } from '../../server/src/tasks/types.ts';
import { apiFor, jsonOf, jsonWithFields } from './support/api.ts';
import { backend, useTestApp } from './support/app.ts';
import { FORBIDDEN, multipart, NOT_FOUND, type FormPart } from './support/http.ts';
import { auditEventsOf, seededTenants, type TenantName } from './support/world.ts';
import { testTask } from './support/tasks.ts';

const emptyJournal = (): ImportJournal => ({
  createdAssets: [],
  createdFindings: [],
  previous: [],
  createdCritical: [],
  moves: [],
});

const SCANS_DIR = path.resolve(import.meta.dirname, '../../seed-data/scans');
const report = (rel: string) => readFileSync(path.join(SCANS_DIR, rel));
const URL_LIST = '/api/vulnerabilities/scans/';
const SCAN_FIELDS = [
  'id',
  'name',
  'scanner',
  'target',
  'asset_id',
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
].sort();

/** Waits on its signal: a RUNNING scan's job that only a cancel ends. */
const waiting = testTask(
  'tests.scans.waiting',
  'Attente',
  'Attend son annulation.',
  (ctx) =>
    new Promise((_, reject) =>
      ctx.signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true }),
    ),
  { scope: 'tenant', retryLimit: 0 },
);

describe(`scans (${backend})`, () => {
  const t = useTestApp({ tasks: [...TASKS, waiting] });
  const { call } = apiFor(t);
  let seeded: { acme: string; horizon: string };
  beforeAll(async () => {
    seeded = await seededTenants(t.database.db);
  });

  const acme = () => seeded.acme;
  // app.jobs lives inside the app plugin's context; the queue is also reachable by its database.
  const jobs = () => jobQueueOf(t.database)!;

  const upload = (username: string, parts: FormPart[], tenant?: TenantName) =>
    call(username, 'POST', `${URL_LIST}import/`, { ...multipart(parts), ...(tenant ? { tenant } : {}) });

  const storedReports = () => {
    const dir = path.join(t.filesDir, 'reports');
    return existsSync(dir) ? readdirSync(dir).sort() : [];
  };
  const scanCount = async () => (await t.database.db.select({ n: count() }).from(scans))[0]!.n;
  const findingsOf = (scanId: number) =>
    t.database.db.select().from(vulnerabilities).where(eq(vulnerabilities.scanId, scanId));
  const scanRow = async (id: number) => (await t.database.db.select().from(scans).where(eq(scans.id, id)))[0]!;

  describe('import', () => {
    it('stores a Trivy report under a server-chosen name and creates a PENDING scan when start=false', async () => {
      const content = report('trivy/image_alpine_scheme2.json');
      const before = storedReports();
      const res = await upload('analyste', [
        { name: 'start', value: 'false' },
        { name: 'file', value: content, filename: '../../etc/passwd' },
      ]);
      const scan = jsonWithFields(res, 201, SCAN_FIELDS);
      expect(scan).toMatchObject({
        // Only the base name of the client's file name is kept, as a label.
        name: 'Import Trivy JSON — passwd',
        scanner: 'trivy',
        target: 'teamdojo:latest',
        status: 'PENDING',
        progress: 0,
        task_id: null,
        report_format: 'trivy',
        report_size: content.length,
        summary: null,
        error: null,
      });
      const added = storedReports().filter((f) => !before.includes(f));
      expect(added).toHaveLength(1);
      expect(added[0]).toMatch(/^[0-9a-f-]{36}\.json$/);
      expect(readFileSync(path.join(t.filesDir, 'reports', added[0]!)).equals(content)).toBe(true);
      expect((await scanRow(scan.id)).reportFile).toBe(added[0]);
      const audit = await auditEventsOf(t.database.db, { eventType: 'vulnerability_scan', username: 'analyste' });
      expect(audit).toHaveLength(1);
      expect(audit[0]!.details).toMatchObject({ scan_id: scan.id, format: 'trivy', findings: 5 });
      expect(audit[0]!.tenantId).toBe(acme());
    });

    it('refuses hostile, broken and unknown reports with a French 400, storing nothing', async () => {
      const scansBefore = await scanCount();
      const filesBefore = storedReports();
      const xxe = '<?xml version="1.0"?><!DOCTYPE r [<!ENTITY x SYSTEM "file:///etc/passwd">]><nmaprun>&x;</nmaprun>';
      const laughs =
        '<?xml version="1.0"?><!DOCTYPE l [<!ENTITY a "aaaa"><!ENTITY b "&a;&a;&a;&a;&a;">]><report>&b;</report>';
      const cases: [FormPart[], string][] = [
        [
          [{ name: 'file', value: xxe, filename: 'r.xml' }],
          'Rapport refusé : les DTD et entités XML ne sont pas acceptées.',
        ],
        [
          [
            { name: 'format', value: 'openvas' },
            { name: 'file', value: laughs, filename: 'r.xml' },
          ],
          'Rapport refusé : les DTD et entités XML ne sont pas acceptées.',
        ],
        [[{ name: 'file', value: '<nmaprun><host>', filename: 'r.xml' }], 'Rapport Nmap XML invalide'],
        [
          [{ name: 'file', value: '{"SchemaVersion": 2,', filename: 'r.json' }],
          'Rapport JSON invalide : JSON mal formé.',
        ],
        [
          [{ name: 'file', value: report('openvas/many_vuln.csv'), filename: 'r.csv' }],
          'Format de rapport non reconnu (formats acceptés : Trivy JSON, Nmap XML, OpenVAS XML, OWASP ZAP XML/JSON, ' +
            'Nessus XML, Grype JSON, CycloneDX JSON, OWASP Dependency-Check XML, SARIF 2.1.0 ; fichier brut ou ' +
            'compressé en gzip).',
        ],
        [
          [
            { name: 'format', value: 'nmap' },
            { name: 'file', value: report('openvas/one_vuln.xml'), filename: 'r.xml' },
          ],
          'Rapport Nmap XML invalide : élément racine <report> inattendu.',
        ],
        [[{ name: 'file', value: '', filename: 'r.json' }], 'Le fichier du rapport est vide.'],
        [[{ name: 'name', value: 'Sans fichier' }], 'Le fichier du rapport est requis.'],
        [
          [
            { name: 'format', value: 'qualys' },
            { name: 'file', value: report('nmap/localhost.xml'), filename: 'r.xml' },
          ],
          'Format invalide. Valeurs possibles : auto, trivy, nmap, openvas, zap, nessus, grype, cyclonedx, ' +
            'dependency-check, sarif.',
        ],
        [
          [
            { name: 'path', value: '/etc/passwd' },
            { name: 'file', value: report('nmap/localhost.xml'), filename: 'r.xml' },
          ],
          'Champ inattendu : path.',
        ],
        [
          [
            { name: 'asset_id', value: '999999' },
            { name: 'file', value: report('nmap/localhost.xml'), filename: 'r.xml' },
          ],
          'Actif introuvable.',
        ],
      ];
      for (const [parts, message] of cases) {
        const res = await upload('analyste', parts);
        expect(res.statusCode, message).toBe(400);
        expect(res.json().detail, message).toContain(message);
      }
      const json = await call('analyste', 'POST', `${URL_LIST}import/`, {
        payload: { file: 'x' } as unknown as string,
      });
      expect(json.statusCode).toBe(400);
      expect(json.json().detail).toBe('Le rapport doit être envoyé en multipart/form-data (champ file).');
      expect(await scanCount()).toBe(scansBefore);
      expect(storedReports()).toEqual(filesBefore);
    });

    it('answers 413 to a gzip report that expands past 50 MB, and keeps nothing', async () => {
      const scansBefore = await scanCount();
      const filesBefore = storedReports();
      const bomb = gzipSync(Buffer.concat([Buffer.from('<OWASPZAPReport>'), Buffer.alloc(50 * 1024 * 1024, 0x20)]));
      const res = await upload('analyste', [{ name: 'file', value: bomb, filename: 'zap.xml.gz' }]);
      expect(res.statusCode).toBe(413);
      expect(res.json()).toEqual({
        detail: 'Rapport trop volumineux une fois décompressé (50 Mo au maximum).',
        code: 'report_too_large',
      });
      expect(await scanCount()).toBe(scansBefore);
      expect(storedReports()).toEqual(filesBefore);
    });

    it('answers 413 to a report over 50 MB and keeps nothing', async () => {
      const scansBefore = await scanCount();
      const filesBefore = storedReports();
      const big = Buffer.alloc(50 * 1024 * 1024 + 1, 0x20);
      const res = await upload('analyste', [{ name: 'file', value: big, filename: 'big.json' }]);
      expect(res.statusCode).toBe(413);
      expect(res.json()).toEqual({ detail: 'Rapport trop volumineux (50 Mo au maximum).', code: 'report_too_large' });
      expect(await scanCount()).toBe(scansBefore);
      expect(storedReports()).toEqual(filesBefore);
    });
  });

  describe('processing (services/scan-import.ts)', () => {
    const importOnly = async (rel: string, extra: FormPart[] = []) => {
      const res = await upload('analyste', [
        { name: 'start', value: 'false' },
        ...extra,
        { name: 'file', value: report(rel), filename: path.basename(rel) },
      ]);
      expect(res.statusCode, res.body).toBe(201);
      return res.json<{ id: number }>().id;
    };
    const process = (scanId: number, more: { signal?: AbortSignal; progress?: (p: number) => Promise<void> } = {}) =>
      processScanReport(t.database, { tenantId: acme(), scanId, filesDir: t.filesDir, ...more });

    it('creates assets and findings, copies known CVE facts, and updates instead of duplicating on re-import', async () => {
      // A known CVE: its severity, score, KEV flag and CWEs win over the report's.
      const facts = {
        severity: 'high' as const,
        cvss3Score: 7.5,
        cvss3Vector: 'CVSS:3.1/AV:N',
        kev: true,
        cweIds: ['CWE-119'],
      };
      await t.database.db
        .insert(cves)
        .values({ cveId: 'CVE-2019-12900', ...facts })
        .onConflictDoUpdate({ target: cves.cveId, set: facts });

      const first = await importOnly('trivy/image_alpine_scheme2.json');
      const progress: number[] = [];
      const outcome = await process(first, { progress: async (p) => void progress.push(p) });
      expect(outcome).toEqual({
        status: 'COMPLETED',
        summary: {
          findings: 5,
          created: 5,
          updated: 0,
          assets_created: 1,
          by_severity: { critical: 0, high: 2, medium: 3, low: 0, info: 0, unrated: 0 },
          still_present: 0,
          reopened: 0,
          fixed: 0,
        },
      });
      expect(progress).toEqual([10, 50, 100]);
      const scan = await scanRow(first);
      expect(scan).toMatchObject({ status: 'COMPLETED', progress: 100, error: null });
      expect(scan.completedAt).not.toBeNull();
      const rows = await findingsOf(first);
      expect(rows).toHaveLength(5);
      const libbz2 = rows.find((r) => r.findingKey === 'CVE-2019-12900|libbz2')!;
      expect(libbz2).toMatchObject({
        severity: 'high',
        cvssScore: 7.5,
        kev: true,
        cweIds: ['CWE-119'],
        source: 'trivy',
      });
      const [asset] = await t.database.db.select().from(assets).where(eq(assets.id, libbz2.assetId!));
      expect(asset).toMatchObject({ name: 'teamdojo:latest', tenantId: acme(), assetType: 'container' });

      const second = await importOnly('trivy/image_alpine_scheme2.json');
      const again = await process(second);
      expect(again).toMatchObject({
        status: 'COMPLETED',
        summary: { findings: 5, created: 0, updated: 5, assets_created: 0 },
      });
      expect(await findingsOf(first)).toHaveLength(0);
      const moved = await findingsOf(second);
      expect(moved).toHaveLength(5);
      const same = moved.find((r) => r.findingKey === 'CVE-2019-12900|libbz2')!;
      expect(same.id).toBe(libbz2.id);
      expect(same.firstSeen.getTime()).toBe(libbz2.firstSeen.getTime());
      expect(same.lastSeen.getTime()).toBeGreaterThan(libbz2.lastSeen.getTime());
      const all = await t.database.db
        .select({ n: count() })
        .from(vulnerabilities)
        .where(eq(vulnerabilities.assetId, libbz2.assetId!));
      expect(all[0]!.n).toBe(5);
    });

    it('imports an OWASP ZAP XML report through the API and creates its findings', async () => {
      const content = report('zap/zap_2.9.0_some.xml');
      const res = await upload('analyste', [
        { name: 'start', value: 'false' },
        { name: 'file', value: content, filename: 'zap_2.9.0_some.xml' },
      ]);
      const scan = jsonWithFields(res, 201, SCAN_FIELDS);
      expect(scan).toMatchObject({
        name: 'Import OWASP ZAP XML/JSON — zap_2.9.0_some.xml',
        scanner: 'zap',
        target: 'https://mainsite.com',
        status: 'PENDING',
        report_format: 'zap',
        report_size: content.length,
      });
      expect((await scanRow(scan.id)).reportFile).toMatch(/^[0-9a-f-]{36}\.xml$/);
      expect(await process(scan.id)).toEqual({
        status: 'COMPLETED',
        summary: {
          findings: 14,
          created: 14,
          updated: 0,
          assets_created: 1,
          by_severity: { critical: 0, high: 0, medium: 1, low: 12, info: 1, unrated: 0 },
          still_present: 0,
          reopened: 0,
          fixed: 0,
        },
      });
      const rows = await findingsOf(scan.id);
      expect(rows).toHaveLength(14);
      expect(rows.find((r) => r.findingKey === 'zap:10011|https://mainsite.com|opvc')).toMatchObject({
        title: 'Cookie Without Secure Flag',
        severity: 'low',
        cweIds: ['CWE-614'],
        port: 443,
        source: 'zap',
      });
      expect(rows.every((r) => !r.description.includes('<p>'))).toBe(true);
      const listed = (await call('analyste', 'GET', `${URL_LIST}?scanner=zap`)).json();
      expect(listed.results.map((s: { id: number }) => s.id)).toContain(scan.id);
    });

    it('keeps a gzip Nessus report compressed and processes it', async () => {
      const content = report('nessus/nessus_many_vuln.nessus.gz');
      const res = await upload('analyste', [
        { name: 'start', value: 'false' },
        { name: 'format', value: 'nessus' },
        { name: 'file', value: content, filename: 'scan.nessus.gz' },
      ]);
      expect(res.statusCode, res.body).toBe(201);
      const scan = res.json<{ id: number; scanner: string; target: string }>();
      expect(scan).toMatchObject({ scanner: 'nessus', target: 'preprod.boardvantage.net' });
      const stored = (await scanRow(scan.id)).reportFile!;
      expect(stored).toMatch(/^[0-9a-f-]{36}\.xml\.gz$/);
      expect(readFileSync(path.join(t.filesDir, 'reports', stored)).equals(content)).toBe(true);
      expect(await process(scan.id)).toMatchObject({ status: 'COMPLETED', summary: { findings: 7, created: 7 } });
    });

    it('puts every finding on the asset named at import', async () => {
      const [target] = await t.database.db
        .insert(assets)
        .values({ tenantId: acme(), name: 'serveur-import-forcé' })
        .returning();
      const id = await importOnly('nmap/nmap_script_vulners.xml', [{ name: 'asset_id', value: String(target!.id) }]);
      expect((await scanRow(id)).target).toBe('serveur-import-forcé');
      expect(await process(id)).toMatchObject({ status: 'COMPLETED', summary: { findings: 3, assets_created: 0 } });
      expect(new Set((await findingsOf(id)).map((r) => r.assetId))).toEqual(new Set([target!.id]));
    });

    it('leaves no partial state when cancelled mid-way', async () => {
      const id = await importOnly('openvas/many_vuln_metasploitable2.xml');
      const controller = new AbortController();
      const outcome = await process(id, {
        signal: controller.signal,
        // Aborts once parsing is done, while the findings are being written.
        progress: async (p) => {
          if (p === 50) controller.abort(new Error('revoked'));
        },
      });
      expect(outcome).toEqual({ status: 'CANCELLED' });
      expect(await scanRow(id)).toMatchObject({ status: 'CANCELLED', summary: {} });
      expect(await findingsOf(id)).toHaveLength(0);
      expect(await t.database.db.select().from(assets).where(eq(assets.name, 'b6b9f466d63'))).toHaveLength(0);
    });

    it('writes in short transactions, and a stop half-way puts back every finding and asset as it was', async () => {
      const tenantId = acme();
      const run: TenantRun = (fn) => withTenant(t.database.db, tenantId as TenantId, fn);
      const finding = (i: number, title: string): Finding => ({
        asset: { name: `hôte-lot-${i % 3}`, asset_type: 'server' },
        finding_key: `lot:${i}`,
        title,
        description: '',
        severity: i % 10 === 0 ? 'critical' : 'medium',
        solution: '',
      });
      const first = Array.from({ length: 300 }, (_, i) => finding(i, `Première ${i}`));
      const done = emptyJournal();
      const summary = await applyFindings(
        run,
        { tenantId, scanId: null, source: 'trivy', findings: first, batchSize: 250 },
        done,
      );
      expect(summary).toMatchObject({ findings: 300, created: 300, updated: 0, assets_created: 3 });
      expect(done.createdCritical).toHaveLength(30);
      const lot = () =>
        t.database.db
          .select({ key: vulnerabilities.findingKey, title: vulnerabilities.title })
          .from(vulnerabilities)
          .where(like(vulnerabilities.findingKey, 'lot:%'));
      const before = new Map((await lot()).map((r) => [r.key, r.title]));
      const assetsBefore = await t.database.db.select({ id: assets.id }).from(assets);

      // A second import of 900 (300 updates, 600 new, 3 new hosts), stopped after its assets and two batches of findings.
      const second = Array.from({ length: 900 }, (_, i) => ({
        ...finding(i, `Seconde ${i}`),
        asset: { name: `hôte-lot-${i % 6}`, asset_type: 'server' as const },
      }));
      const controller = new AbortController();
      let batches = 0;
      const counting: TenantRun = async (fn) => {
        const out = await run(fn);
        if (++batches === 3) controller.abort(new Error('revoked'));
        return out;
      };
      const journal = emptyJournal();
      await expect(
        applyFindings(
          counting,
          { tenantId, scanId: null, source: 'trivy', findings: second, signal: controller.signal, batchSize: 250 },
          journal,
        ),
      ).rejects.toThrow();
      expect(journal.createdFindings.length + journal.previous.length).toBeGreaterThan(0);
      await undoImport(run, journal, 250);
      expect(new Map((await lot()).map((r) => [r.key, r.title]))).toEqual(before);
      expect(await t.database.db.select({ id: assets.id }).from(assets)).toEqual(assetsBefore);
    });

    it('marks the scan FAILED with a French error when its stored report is broken', async () => {
      const id = await importOnly('nmap/localhost.xml');
      writeFileSync(path.join(t.filesDir, 'reports', (await scanRow(id)).reportFile!), '<nmaprun><host>');
      const outcome = await process(id);
      expect(outcome.status).toBe('FAILED');
      const scan = await scanRow(id);
      expect(scan.status).toBe('FAILED');
      expect(scan.error).toMatch(/^Rapport Nmap XML invalide : XML mal formé/);
      expect(await findingsOf(id)).toHaveLength(0);
    });

    it('runs as the process_scan_report task with the scan id as its only argument', async () => {
      const id = await importOnly('openvas/one_vuln.xml');
      const task = scanTasks.find((d) => d.name === PROCESS_SCAN_REPORT)!;
      expect(task).toMatchObject({ label: 'Traitement d’un rapport de scan', scope: 'tenant' });
      const ctx = {
        taskId: 'test',
        tenantId: acme(),
        args: { scanId: id },
        requestedBy: null,
        database: t.database,
        filesDir: t.filesDir,
        log: t.app.log,
        signal: new AbortController().signal,
        progress: async () => {},
      } satisfies TaskContext;
      const outcome = await task.run(ctx);
      expect(outcome.result).toBe(
        `Scan ${id} traité : 12 vulnérabilités (12 nouvelles, 0 mises à jour), 1 actifs créés.`,
      );
      await expect(task.run({ ...ctx, args: { scanId: 'x' } })).rejects.toThrow('Argument scanId invalide.');
    });
  });

  describe('lifecycle', () => {
    const create = async (body: Record<string, unknown> = { name: 'Scan manuel', scanner: 'manual' }) =>
      jsonOf<{ id: number; status: string }>(await call('analyste', 'POST', URL_LIST, { payload: body }), 201);
    const act = (id: number, action: string, username = 'analyste') =>
      call(username, 'POST', `${URL_LIST}${id}/${action}/`);

    it('refuses start without a report and every transition the lifecycle does not list', async () => {
      const scan = await create();
      expect(scan.status).toBe('PENDING');
      const start = await act(scan.id, 'start');
      expect(start.statusCode).toBe(409);
      expect(start.json()).toEqual({
        detail: 'Aucun rapport à traiter : importez le rapport du scanner.',
        code: 'no_report',
      });
      const restartPending = await act(scan.id, 'restart');
      expect(restartPending.statusCode).toBe(409);
      expect(restartPending.json().code).toBe('invalid_transition');

      const cancelled = await act(scan.id, 'cancel');
      expect(cancelled.statusCode).toBe(200);
      expect(cancelled.json()).toMatchObject({ status: 'CANCELLED' });
      expect(cancelled.json().completed_at).not.toBeNull();
      for (const action of ['cancel', 'start']) {
        const res = await act(scan.id, action);
        expect(res.statusCode, action).toBe(409);
        expect(res.json().code).toBe('invalid_transition');
        expect(res.json().detail).toContain('CANCELLED');
      }
      // Without a report a restarted scan waits in PENDING.
      const restarted = await act(scan.id, 'restart');
      expect(restarted.statusCode).toBe(200);
      expect(restarted.json()).toMatchObject({ status: 'PENDING', task_id: null, completed_at: null });
      expect((await act(999999, 'start')).statusCode).toBe(404);
    });

    it('imports and processes through the job queue: RUNNING, then COMPLETED; restart re-processes', async () => {
      const res = await upload('analyste', [{ name: 'file', value: report('nmap/localhost.xml'), filename: 'l.xml' }]);
      expect(res.statusCode, res.body).toBe(201);
      const scan = res.json();
      expect(scan.task_id).toEqual(expect.any(String));
      expect(['RUNNING', 'COMPLETED']).toContain(scan.status);
      const run = await jobs().waitFor(scan.task_id);
      expect(run).toMatchObject({ status: 'SUCCESS', full_name: PROCESS_SCAN_REPORT, tenant_id: acme() });
      const done = (await call('analyste', 'GET', `${URL_LIST}${scan.id}/`)).json();
      expect(done).toMatchObject({
        status: 'COMPLETED',
        progress: 100,
        summary: { findings: 4, created: 4, updated: 0, assets_created: 1, by_severity: { info: 4 } },
      });
      expect((await act(scan.id, 'start')).statusCode).toBe(409);
      expect((await act(scan.id, 'cancel')).statusCode).toBe(409);

      const restarted = await act(scan.id, 'restart');
      expect(restarted.statusCode).toBe(200);
      const second = restarted.json();
      expect(second.task_id).not.toBe(scan.task_id);
      expect(['RUNNING', 'COMPLETED']).toContain(second.status);
      await jobs().waitFor(second.task_id);
      expect((await call('analyste', 'GET', `${URL_LIST}${scan.id}/`)).json()).toMatchObject({
        status: 'COMPLETED',
        summary: { findings: 4, created: 0, updated: 4, assets_created: 0 },
      });
    });

    it('starts a PENDING imported scan, and cancel/ revokes the job of a RUNNING one', async () => {
      const imported = await upload('analyste', [
        { name: 'start', value: 'false' },
        { name: 'file', value: report('nmap/scanme.nmap.org-ipv6.xml'), filename: 's.xml' },
      ]);
      const started = await act(imported.json().id, 'start');
      expect(started.statusCode).toBe(200);
      expect(started.json().task_id).toEqual(expect.any(String));
      await jobs().waitFor(started.json().task_id);
      expect((await scanRow(imported.json().id)).status).toBe('COMPLETED');

      // A RUNNING scan whose job only ends when revoked.
      const scan = await create();
      const run = await jobs().launch(waiting.name, {}, { tenantId: acme(), requestedBy: null });
      await t.database.db.update(scans).set({ status: 'RUNNING', jobId: run.id }).where(eq(scans.id, scan.id));
      const cancelled = await act(scan.id, 'cancel');
      expect(cancelled.statusCode).toBe(200);
      expect(cancelled.json()).toMatchObject({ status: 'CANCELLED' });
      const revoked = await jobs().get(run.id);
      expect(revoked).toMatchObject({ status: 'REVOKED', meta: { revoked_by: 'analyste' } });
    });
  });

  describe('CRUD, roles and tenants', () => {
    it('creates, lists with filters and pages, reads, updates and validates', async () => {
      const bad = await call('analyste', 'POST', URL_LIST, { payload: { scanner: 'manual' } });
      expect(bad.statusCode).toBe(400);
      expect(bad.json()).toMatchObject({
        detail: 'Le nom du scan est requis.',
        fields: { name: ['Le nom du scan est requis.'] },
      });
      const badScanner = await call('analyste', 'POST', URL_LIST, { payload: { name: 'x', scanner: 'qualys' } });
      expect(badScanner.json().detail).toBe(
        'Scanner invalide. Valeurs possibles : trivy, nmap, openvas, zap, nessus, grype, cyclonedx, dependency-check, ' +
          'sarif, manual.',
      );
      const unknownField = await call('analyste', 'POST', URL_LIST, {
        payload: { name: 'x', report_file: '/etc/passwd' },
      });
      expect(unknownField.statusCode).toBe(400);

      const created = await call('analyste', 'POST', URL_LIST, {
        payload: { name: '  Audit réseau  ', scanner: 'nmap', target: '10.0.0.0/24' },
      });
      expect(created.statusCode).toBe(201);
      const scan = created.json();
      expect(scan).toMatchObject({ name: 'Audit réseau', scanner: 'nmap', target: '10.0.0.0/24', status: 'PENDING' });

      const list = await call('analyste', 'GET', `${URL_LIST}?page_size=2`);
      expect(list.statusCode).toBe(200);
      const total = list.json().count;
      expect(total).toBe(
        await t.database.db
          .select({ n: count() })
          .from(scans)
          .where(eq(scans.tenantId, acme()))
          .then((r) => r[0]!.n),
      );
      expect(list.json().results).toHaveLength(2);
      expect(list.json().results[0].id).toBe(scan.id);
      expect(list.json().next).toBe('/api/vulnerabilities/scans/?page=2&page_size=2');
      expect(list.json().previous).toBeNull();
      const filtered = await call('analyste', 'GET', `${URL_LIST}?status=PENDING&scanner=nmap`);
      expect(filtered.json().results.map((s: { id: number }) => s.id)).toContain(scan.id);
      expect(
        filtered
          .json()
          .results.every((s: { status: string; scanner: string }) => s.status === 'PENDING' && s.scanner === 'nmap'),
      ).toBe(true);
      for (const q of ['status=DONE', 'page=0', 'page_size=501']) {
        expect((await call('analyste', 'GET', `${URL_LIST}?${q}`)).statusCode, q).toBe(400);
      }

      const patched = await call('analyste', 'PATCH', `${URL_LIST}${scan.id}/`, { payload: { target: '10.0.1.0/24' } });
      expect(patched.json()).toMatchObject({ name: 'Audit réseau', target: '10.0.1.0/24' });
      // A Scan read back and sent whole: read-only fields are ignored.
      const put = await call('analyste', 'PUT', `${URL_LIST}${scan.id}/`, {
        payload: { ...patched.json<Record<string, unknown>>(), name: 'Audit réseau 2', status: 'COMPLETED' },
      });
      expect(put.statusCode, put.body).toBe(200);
      expect(put.json()).toMatchObject({ name: 'Audit réseau 2', status: 'PENDING', scanner: 'nmap' });
      expect((await call('analyste', 'GET', `${URL_LIST}${scan.id}/`)).json().name).toBe('Audit réseau 2');
      for (const id of ['abc', '0', '999999']) {
        expect((await call('analyste', 'GET', `${URL_LIST}${id}/`)).json(), id).toEqual(NOT_FOUND);
      }
    });

    it('deletes a scan and its stored report; its findings stay without a scan', async () => {
      const res = await upload('analyste', [
        { name: 'start', value: 'false' },
        { name: 'file', value: report('trivy/fs_cvssv4_severity_source.json'), filename: 'c.json' },
      ]);
      const id = res.json().id as number;
      await processScanReport(t.database, { tenantId: acme(), scanId: id, filesDir: t.filesDir });
      const findingIds = (await findingsOf(id)).map((r) => r.id);
      expect(findingIds).toHaveLength(3);
      const file = path.join(t.filesDir, 'reports', (await scanRow(id)).reportFile!);
      expect(statSync(file).isFile()).toBe(true);

      expect((await call('analyste', 'DELETE', `${URL_LIST}${id}/`)).statusCode).toBe(204);
      expect(existsSync(file)).toBe(false);
      expect((await call('analyste', 'GET', `${URL_LIST}${id}/`)).statusCode).toBe(404);
      const kept = await t.database.db.select().from(vulnerabilities).where(eq(vulnerabilities.id, findingIds[0]!));
      expect(kept[0]?.scanId).toBeNull();
    });

    it('lets viewers read only, and keeps another tenant’s scans out of reach', async () => {
      const scan = (await call('analyste', 'POST', URL_LIST, { payload: { name: 'Acme seulement' } })).json();
      const horizon = { tenant: 'Banque Horizon' as const };
      const list = await call('lecteur', 'GET', URL_LIST, horizon);
      expect(list.statusCode).toBe(200);
      expect(list.json().results.map((s: { id: number }) => s.id)).not.toContain(scan.id);
      const horizonScan = list.json().results[0]?.id ?? 1;
      for (const [method, url, payload] of [
        ['POST', URL_LIST, { name: 'x' }],
        ['PATCH', `${URL_LIST}${horizonScan}/`, { name: 'x' }],
        ['PUT', `${URL_LIST}${horizonScan}/`, { name: 'x' }],
        ['DELETE', `${URL_LIST}${horizonScan}/`, undefined],
        ['POST', `${URL_LIST}${horizonScan}/start/`, undefined],
        ['POST', `${URL_LIST}${horizonScan}/restart/`, undefined],
        ['POST', `${URL_LIST}${horizonScan}/cancel/`, undefined],
        ['POST', `${URL_LIST}import/`, { file: 'x' }],
      ] as const) {
        const res = await call('lecteur', method, url, { ...horizon, payload });
        expect(res.statusCode, `${method} ${url}`).toBe(403);
        expect(res.json()).toEqual(FORBIDDEN);
      }
      const viewerUpload = await upload(
        'lecteur',
        [{ name: 'file', value: report('nmap/localhost.xml'), filename: 'x.xml' }],
        'Banque Horizon',
      );
      expect(viewerUpload.statusCode).toBe(403);

      for (const [method, suffix, payload] of [
        ['GET', '', undefined],
        ['PATCH', '', { name: 'Pirate' }],
        ['DELETE', '', undefined],
        ['POST', 'cancel/', undefined],
        ['POST', 'start/', undefined],
      ] as const) {
        const res = await call('admin', method, `${URL_LIST}${scan.id}/${suffix}`, { ...horizon, payload });
        expect(res.statusCode, `${method} ${suffix}`).toBe(404);
        expect(res.json()).toEqual(NOT_FOUND);
      }
      expect(await scanRow(scan.id)).toMatchObject({ name: 'Acme seulement', status: 'PENDING' });
    });
  });
});
