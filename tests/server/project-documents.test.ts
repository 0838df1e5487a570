import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { and, desc, eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { auditEvents, projectActivity, projectDocuments, projects } from '../../server/src/db/schema.ts';
import { attachmentDisposition, downloadName, safeFileName } from '../../server/src/lib/file-type.ts';
import { documentMaxBytes, formatLimit } from '../../server/src/routes/api/projects/documents.ts';
import { createTestApp } from './helpers.ts';
import { apiFor, jsonWithFields } from './support/api.ts';
import { backend, useTestApp, withEnv } from './support/app.ts';
import { BOUNDARY, FORBIDDEN, multipart, multipartBody, NOT_FOUND, type FormPart } from './support/http.ts';
import { addProject, addUser, auditEventsOf, seededTenants, userIdsOf } from './support/world.ts';

const LIMIT = 64 * 1024;
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const DOCUMENT_FIELDS = [
  'id',
  'name',
  'title',
  'file',
  'project',
  'description',
  'document_type',
  'file_size',
  'file_type',
  'sha256',
  'uploaded_by',
  'created_at',
  'updated_at',
].sort();
const UNSUPPORTED = 'Type de fichier non autorisé.';

const PDF = Buffer.from('%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n', 'latin1');
// A real 1 × 1 PNG.
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);
const CSV = Buffer.from('nom;criticité\nsrv-01;élevée\n', 'utf8');
const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');

describe('document names and limits', () => {
  it('keeps only a safe display name from a client’s file name', () => {
    expect(safeFileName('../../etc/passwd')).toBe('passwd');
    expect(safeFileName('..\\..\\win.ini')).toBe('win.ini');
    expect(safeFileName('a/b/c.pdf')).toBe('c.pdf');
    expect(safeFileName('rap\u0000port\r\n final.pdf')).toBe('rapport final.pdf');
    expect(safeFileName('facture\u202Efdp.exe')).toBe('facturefdp.exe');
    expect(safeFileName('..')).toBe('document');
    expect(safeFileName('  ..rapport...pdf.. ')).toBe('rapport.pdf');
    expect(safeFileName('/', '')).toBe('');
    const long = safeFileName(`${'é'.repeat(300)}.pdf`);
    expect(Array.from(long)).toHaveLength(200);
    expect(long.endsWith('é.pdf')).toBe(true);
  });

  it('names a download after its stored type and encodes it for Content-Disposition', () => {
    expect(downloadName('win.ini', 'application/pdf')).toBe('win.ini.pdf');
    expect(downloadName('note.html', 'text/plain')).toBe('note.html.txt');
    expect(downloadName('photo.JPEG', 'image/jpeg')).toBe('photo.JPEG');
    expect(attachmentDisposition('Évaluation "été" 100%.csv')).toBe(
      `attachment; filename="Evaluation _ete_ 100_.csv"; filename*=UTF-8''%C3%89valuation%20%22%C3%A9t%C3%A9%22%20100%25.csv`,
    );
  });

  it('reads the size limit from VIGIE_DOCUMENT_MAX_BYTES, 25 MiB by default', () => {
    expect(documentMaxBytes({})).toBe(25 * 1024 * 1024);
    expect(documentMaxBytes({ VIGIE_DOCUMENT_MAX_BYTES: '1048576' })).toBe(1024 * 1024);
    expect(() => documentMaxBytes({ VIGIE_DOCUMENT_MAX_BYTES: '25Mo' })).toThrow(/VIGIE_DOCUMENT_MAX_BYTES/);
    expect(formatLimit(25 * 1024 * 1024)).toBe('25 Mo');
    expect(formatLimit(1.5 * 1024 * 1024)).toBe('1,5 Mo');
    expect(formatLimit(LIMIT)).toBe('64 Ko');
  });
});

describe(`project documents (${backend})`, () => {
  // Read when the documents plugin registers: a small limit keeps the over-limit uploads small.
  const t = useTestApp(() =>
    withEnv({ VIGIE_DOCUMENT_MAX_BYTES: String(LIMIT) }, () => createTestApp({ runJobs: false })),
  );
  const api = apiFor(t);
  const { call } = api;
  let userIds = new Map<string, number>();
  let acme: string;
  let p1: number;
  let ph: number;

  const db = () => t.database.db;

  const upload = async (username: string, parts: FormPart[], tenant?: string) =>
    call(username, 'POST', '/api/projects/documents/', { ...multipart(parts), ...(tenant ? { tenant } : {}) });

  const documentsDir = () => path.join(t.filesDir, 'documents');
  /** Every stored file, relative to filesDir/documents. */
  const storedFiles = (): string[] =>
    existsSync(documentsDir())
      ? readdirSync(documentsDir(), { recursive: true, withFileTypes: true })
          .filter((e) => e.isFile())
          .map((e) => path.relative(documentsDir(), path.join(e.parentPath, e.name)))
          .sort()
      : [];
  const rowCount = async () => (await db().select().from(projectDocuments)).length;

  beforeAll(async () => {
    let horizon: string;
    ({ acme, horizon } = await seededTenants(db()));
    for (const username of ['membre', 'spectateur', 'etranger']) await addUser(db(), username, [acme, 'user']);
    userIds = await userIdsOf(db());
    // The demo seed's projects would blur the lists: start from none.
    await db().delete(projects);
    p1 = await addProject(db(), acme, 'Audit du SI', {
      owner: 'analyste',
      team: { analyste: 'ADMIN', membre: 'MEMBER', spectateur: 'VIEWER' },
    });
    ph = await addProject(db(), horizon, 'Audit Horizon', { owner: 'manager' });
  });

  let pdfDoc: { id: number; file: string };

  it('uploads a PDF: contract fields, a UUID file under documents/{tenant}/, activity and audit', async () => {
    const res = await upload('membre', [
      { name: 'project', value: String(p1) },
      { name: 'title', value: 'Rapport d’audit' },
      { name: 'description', value: 'Version finale' },
      { name: 'document_type', value: 'report' },
      { name: 'file', filename: 'rapport-audit.pdf', content: PDF },
    ]);
    const body = jsonWithFields(res, 201, DOCUMENT_FIELDS);
    expect(body).toMatchObject({
      name: 'rapport-audit.pdf',
      title: 'Rapport d’audit',
      description: 'Version finale',
      project: p1,
      document_type: 'REPORT',
      file: `/api/projects/documents/${body.id}/download/`,
      file_size: PDF.length,
      file_type: 'application/pdf',
      sha256: sha256(PDF),
      uploaded_by: userIds.get('membre'),
    });
    pdfDoc = body;

    const files = storedFiles();
    expect(files).toHaveLength(1);
    const [tenantDir, fileName] = files[0]!.split(path.sep);
    expect(tenantDir).toBe(acme);
    expect(fileName).toMatch(UUID_RE);
    expect(readFileSync(path.join(documentsDir(), files[0]!)).equals(PDF)).toBe(true);
    const [row] = await db().select().from(projectDocuments).where(eq(projectDocuments.id, body.id));
    expect(row).toMatchObject({ storageKey: `${acme}/${fileName}`, originalName: 'rapport-audit.pdf' });

    const [activity] = await db()
      .select()
      .from(projectActivity)
      .where(eq(projectActivity.projectId, p1))
      .orderBy(desc(projectActivity.id));
    expect(activity).toMatchObject({
      action: 'uploaded',
      objectType: 'document',
      objectId: body.id,
      summary: 'Document « rapport-audit.pdf » ajouté',
    });
    const audits = await auditEventsOf(db(), { eventType: 'data_change', userId: userIds.get('membre')! });
    expect(audits.map((a) => a.details)).toContainEqual(
      expect.objectContaining({ action: 'document_uploaded', document_id: body.id, sha256: sha256(PDF) }),
    );
  });

  it('downloads it back byte for byte, as an attachment that is never sniffed or cached', async () => {
    const res = await call('spectateur', 'GET', pdfDoc.file);
    expect(res.statusCode).toBe(200);
    expect(res.rawPayload.equals(PDF)).toBe(true);
    expect(res.headers['content-type']).toBe('application/pdf');
    expect(res.headers['content-length']).toBe(String(PDF.length));
    expect(res.headers['content-disposition']).toBe(
      `attachment; filename="rapport-audit.pdf"; filename*=UTF-8''rapport-audit.pdf`,
    );
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['cache-control']).toBe('private, no-store');
    const [audit] = await db()
      .select()
      .from(auditEvents)
      .where(
        and(eq(auditEvents.eventType, 'sensitive_data_access'), eq(auditEvents.userId, userIds.get('spectateur')!)),
      );
    expect(audit?.details).toMatchObject({ action: 'document_downloaded', document_id: pdfDoc.id, project_id: p1 });
  });

  it('round-trips a PNG and a UTF-8 CSV with an accented name', async () => {
    const png = await upload('analyste', [
      { name: 'project', value: String(p1) },
      { name: 'file', filename: 'capture.png', content: PNG },
    ]);
    expect(png.statusCode, png.body).toBe(201);
    expect(png.json()).toMatchObject({ file_type: 'image/png', document_type: 'OTHER', title: '' });
    const pngBack = await call('analyste', 'GET', png.json().file);
    expect(pngBack.rawPayload.equals(PNG)).toBe(true);
    expect(pngBack.headers['content-type']).toBe('image/png');

    const csv = await upload('membre', [
      { name: 'file', filename: 'inventaire.csv', content: CSV },
      { name: 'project', value: String(p1) },
      { name: 'name', value: 'Évaluation des risques été.csv' },
      { name: 'document_type', value: 'EVIDENCE' },
    ]);
    expect(csv.statusCode, csv.body).toBe(201);
    expect(csv.json()).toMatchObject({
      name: 'Évaluation des risques été.csv',
      file_type: 'text/csv',
      sha256: sha256(CSV),
    });
    const csvBack = await call('membre', 'GET', csv.json().file);
    expect(csvBack.rawPayload.equals(CSV)).toBe(true);
    expect(csvBack.headers['content-disposition']).toBe(
      `attachment; filename="Evaluation des risques ete.csv"; ` +
        `filename*=UTF-8''%C3%89valuation%20des%20risques%20%C3%A9t%C3%A9.csv`,
    );
    expect(storedFiles()).toHaveLength(3);
  });

  it('refuses a file over the limit with 413 and keeps nothing (exactly the limit is fine)', async () => {
    const before = { rows: await rowCount(), files: storedFiles() };
    const over = await upload('membre', [
      { name: 'project', value: String(p1) },
      { name: 'file', filename: 'gros.txt', content: Buffer.alloc(LIMIT + 1, 'a') },
    ]);
    expect(over.statusCode).toBe(413);
    expect(over.json()).toMatchObject({
      detail: 'Fichier trop volumineux (64 Ko au maximum).',
      code: 'file_too_large',
    });
    expect(await rowCount()).toBe(before.rows);
    expect(storedFiles()).toEqual(before.files);

    const exact = await upload('membre', [
      { name: 'project', value: String(p1) },
      { name: 'file', filename: 'juste.txt', content: Buffer.alloc(LIMIT, 'a') },
    ]);
    expect(exact.statusCode, exact.body).toBe(201);
    expect(exact.json().file_size).toBe(LIMIT);
    expect((await call('membre', 'DELETE', `/api/projects/documents/${exact.json().id}/`)).statusCode).toBe(204);
    expect(storedFiles()).toEqual(before.files);
  });

  it('answers 413 to a body announced at 200 MB before reading it', async () => {
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = t.app.server.address() as AddressInfo;
    const headers = await api.headers('membre');
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = httpRequest({
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/api/projects/documents/',
        headers: {
          ...headers,
          'content-type': `multipart/form-data; boundary=${BOUNDARY}`,
          'content-length': String(200 * 1024 * 1024),
        },
      });
      req.on('response', (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => {
          resolve({ status: res.statusCode ?? 0, body });
          req.destroy();
        });
      });
      req.on('error', reject);
      // Only the start of the form is ever sent.
      req.write(multipartBody([{ name: 'project', value: String(p1) }]).subarray(0, 100));
    });
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.body)).toMatchObject({ detail: 'Fichier trop volumineux (64 Ko au maximum).' });
  });

  it('refuses SVG, HTML, scripts, executables and content that does not match its extension (415)', async () => {
    const before = { rows: await rowCount(), files: storedFiles() };
    const ELF = Buffer.concat([Buffer.from([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0]), Buffer.alloc(200)]);
    const cases: [string, Buffer | string][] = [
      ['evil.svg', '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'],
      ['x.html', '<html><script>alert(1)</script></html>'],
      ['page.htm', '<p>bonjour</p>'],
      ['script.js', 'alert(1)'],
      ['outil.exe', Buffer.concat([Buffer.from('MZ'), Buffer.alloc(100)])],
      ['sans-extension', PDF],
      ['binaire.pdf', ELF],
      ['page.pdf', '<!DOCTYPE html><html><body>pas un PDF</body></html>'],
      ['image.png', PDF],
      ['photo.jpg', PNG],
      ['rapport.docx', PDF],
      ['nul.txt', Buffer.from('texte\u0000binaire')],
      ['latin1.csv', Buffer.from([0x6e, 0x6f, 0x6d, 0x3b, 0xe9, 0x74, 0xe9, 0x0a])],
      ['deguise.txt', '\uFEFF  <!doctype html><script>alert(1)</script>'],
      ['deguise.xml', '<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>'],
    ];
    for (const [filename, content] of cases) {
      const res = await upload('membre', [
        { name: 'project', value: String(p1) },
        { name: 'file', filename, content },
      ]);
      expect(res.statusCode, filename).toBe(415);
      expect(res.json(), filename).toEqual({
        detail: UNSUPPORTED,
        code: 'unsupported_file_type',
        fields: { file: [UNSUPPORTED] },
      });
    }
    expect(await rowCount()).toBe(before.rows);
    expect(storedFiles()).toEqual(before.files);

    // The allowed office and data formats pass when their bytes match.
    for (const [filename, content, type] of [
      ['classeur.xlsx', Buffer.concat([Buffer.from('PK\u0003\u0004', 'latin1'), Buffer.alloc(60)]), 'spreadsheetml'],
      ['notes.md', '# Titre\n\nÀ faire : corriger.\n', 'text/markdown'],
      ['export.json', '{"clé": "valeur"}', 'application/json'],
      ['config.xml', '<?xml version="1.0"?><config><x>1</x></config>', 'application/xml'],
    ] as const) {
      const res = await upload('membre', [
        { name: 'project', value: String(p1) },
        { name: 'file', filename, content },
      ]);
      expect(res.statusCode, `${filename} ${res.body}`).toBe(201);
      expect(res.json().file_type).toContain(type);
    }
  });

  it('keeps only a safe display name, and stores the bytes under a UUID whatever the name', async () => {
    const names: [string, string | undefined, string][] = [
      ['a/b/c.pdf', undefined, 'c.pdf'],
      ['Synthèse été.pdf', undefined, 'Synthèse été.pdf'],
      ['ok.pdf', '../../etc/passwd', 'passwd'],
      ['ok.pdf', '..\\..\\win.ini', 'win.ini'],
      ['ok.pdf', 'rap\u0000port\r\nfinal\t.pdf', 'rapportfinal.pdf'],
      ['ok.pdf', `${'x'.repeat(300)}.pdf`, `${'x'.repeat(196)}.pdf`],
    ];
    for (const [filename, name, expected] of names) {
      const res = await upload('membre', [
        { name: 'project', value: String(p1) },
        ...(name !== undefined ? [{ name: 'name', value: name }] : []),
        { name: 'file', filename, content: PDF },
      ]);
      expect(res.statusCode, `${filename} ${name} ${res.body}`).toBe(201);
      expect(res.json().name).toBe(expected);
    }
    for (const file of storedFiles()) {
      const [tenantDir, fileName, ...rest] = file.split(path.sep);
      expect([tenantDir, rest]).toEqual([acme, []]);
      expect(fileName).toMatch(UUID_RE);
    }
    expect(existsSync(path.join(t.filesDir, 'etc'))).toBe(false);
    // A name without the stored type's extension is saved with it.
    const [winIni] = await db().select().from(projectDocuments).where(eq(projectDocuments.name, 'win.ini'));
    const download = await call('membre', 'GET', `/api/projects/documents/${winIni!.id}/download/`);
    expect(download.headers['content-disposition']).toBe(
      `attachment; filename="win.ini.pdf"; filename*=UTF-8''win.ini.pdf`,
    );
  });

  it('refuses bad forms with field errors and keeps nothing', async () => {
    const before = { rows: await rowCount(), files: storedFiles() };
    const file = { name: 'file', filename: 'ok.pdf', content: PDF };
    const project = { name: 'project', value: String(p1) };
    const cases: [FormPart[], number, string][] = [
      [[project], 400, 'file'],
      [[file], 400, 'project'],
      [[{ name: 'project', value: 'abc' }, file], 400, 'project'],
      [[project, { name: 'document_type', value: 'FACTURE' }, file], 400, 'document_type'],
      [[project, { name: 'title', value: 't'.repeat(301) }, file], 400, 'title'],
      [[project, { name: 'couleur', value: 'bleu' }, file], 400, 'couleur'],
      [[project, { name: 'file', filename: 'vide.pdf', content: Buffer.alloc(0) }], 400, 'file'],
      [[project, { name: 'piece', filename: 'ok.pdf', content: PDF }], 400, 'piece'],
    ];
    for (const [parts, status, field] of cases) {
      const res = await upload('membre', parts);
      expect(res.statusCode, `${field} ${res.body}`).toBe(status);
      expect(Object.keys(res.json().fields)).toEqual([field]);
    }
    const twoFiles = await upload('membre', [project, file, { ...file, filename: 'deux.pdf' }]);
    expect(twoFiles.statusCode).toBe(413);
    const json = await call('membre', 'POST', '/api/projects/documents/', { payload: { project: p1 } });
    expect(json.statusCode).toBe(400);
    expect(json.json().fields).toEqual({
      file: ['Le document doit être envoyé en multipart/form-data (champ file).'],
    });
    expect(await rowCount()).toBe(before.rows);
    expect(storedFiles()).toEqual(before.files);
  });

  it('changes the metadata with PUT/PATCH (never the file)', async () => {
    const url = `/api/projects/documents/${pdfDoc.id}/`;
    const patched = await call('membre', 'PATCH', url, {
      payload: { title: 'Rapport final', document_type: 'evidence', file_size: 1, sha256: 'x' },
    });
    expect(patched.statusCode, patched.body).toBe(200);
    expect(patched.json()).toMatchObject({
      title: 'Rapport final',
      document_type: 'EVIDENCE',
      name: 'rapport-audit.pdf',
      file_size: PDF.length,
      sha256: sha256(PDF),
    });
    const renamed = await call('membre', 'PATCH', url, { payload: { name: '../secret/rapport-v2.pdf' } });
    expect(renamed.json().name).toBe('rapport-v2.pdf');
    const noName = await call('membre', 'PUT', url, { payload: { title: 'x' } });
    expect(noName.statusCode).toBe(400);
    expect(noName.json().fields).toEqual({ name: ['Le nom du document est requis.'] });
    const badType = await call('membre', 'PATCH', url, { payload: { document_type: 'FACTURE' } });
    expect(badType.statusCode).toBe(400);
    const put = await call('analyste', 'PUT', url, { payload: { name: 'rapport.pdf' } });
    expect(put.statusCode).toBe(200);
    expect(put.json()).toMatchObject({ name: 'rapport.pdf', title: '', description: '', document_type: 'OTHER' });
    expect((await call('membre', 'GET', url)).json()).toEqual(put.json());
    expect((await call('membre', 'GET', pdfDoc.file)).rawPayload.equals(PDF)).toBe(true);
  });

  it('lists the documents of readable projects with filters and paging', async () => {
    const all = await call('spectateur', 'GET', `/api/projects/documents/?project=${p1}`);
    expect(all.statusCode).toBe(200);
    const total = all.json().count as number;
    expect(total).toBe(await rowCount());
    const evidence = await call('spectateur', 'GET', '/api/projects/documents/?document_type=evidence');
    expect(evidence.json().results.map((d: { name: string }) => d.name)).toEqual(['Évaluation des risques été.csv']);
    const paged = await call('spectateur', 'GET', '/api/projects/documents/?page_size=2&page=2');
    expect(paged.json()).toMatchObject({ count: total, previous: '/api/projects/documents/?page_size=2&page=1' });
    expect(paged.json().results).toHaveLength(2);
    const bad = await call('spectateur', 'GET', '/api/projects/documents/?document_type=FACTURE&page_size=101');
    expect(bad.statusCode).toBe(400);
    expect(Object.keys(bad.json().fields).sort()).toEqual(['document_type', 'page_size']);
  });

  it('lets a VIEWER read and download but not write (403, audited, nothing stored)', async () => {
    const before = { rows: await rowCount(), files: storedFiles() };
    expect((await call('spectateur', 'GET', `/api/projects/documents/${pdfDoc.id}/`)).statusCode).toBe(200);
    for (const parts of [
      [
        { name: 'project', value: String(p1) },
        { name: 'file', filename: 'a.pdf', content: PDF },
      ],
      // The project named after the file: the bytes are refused once it is known, and removed.
      [
        { name: 'file', filename: 'a.pdf', content: PDF },
        { name: 'project', value: String(p1) },
      ],
    ] as FormPart[][]) {
      const res = await upload('spectateur', parts);
      expect(res.statusCode).toBe(403);
      expect(res.json()).toEqual(FORBIDDEN);
    }
    expect(
      (await call('spectateur', 'PATCH', `/api/projects/documents/${pdfDoc.id}/`, { payload: { title: 'x' } }))
        .statusCode,
    ).toBe(403);
    expect((await call('spectateur', 'DELETE', `/api/projects/documents/${pdfDoc.id}/`)).statusCode).toBe(403);
    const denied = await auditEventsOf(db(), { eventType: 'permission_denied', userId: userIds.get('spectateur')! });
    expect(denied).toHaveLength(4);
    expect(await rowCount()).toBe(before.rows);
    expect(storedFiles()).toEqual(before.files);
  });

  it('hides the documents from a tenant user off the team and from another tenant (404)', async () => {
    const before = storedFiles();
    expect((await call('etranger', 'GET', '/api/projects/documents/')).json()).toEqual({
      count: 0,
      next: null,
      previous: null,
      results: [],
    });
    for (const [username, tenant] of [
      ['etranger', undefined],
      ['admin', 'Banque Horizon'],
      ['manager', 'Banque Horizon'],
    ] as const) {
      for (const url of [`/api/projects/documents/${pdfDoc.id}/`, pdfDoc.file]) {
        const res = await call(username, 'GET', url, { tenant });
        expect(res.statusCode, `${username} ${url}`).toBe(404);
        expect(res.json()).toEqual(NOT_FOUND);
      }
      expect((await call(username, 'DELETE', `/api/projects/documents/${pdfDoc.id}/`, { tenant })).statusCode).toBe(
        404,
      );
      const res = await upload(
        username,
        [
          { name: 'project', value: String(p1) },
          { name: 'file', filename: 'a.pdf', content: PDF },
        ],
        tenant,
      );
      expect(res.statusCode, `${username} upload`).toBe(404);
    }
    // Acme's own callers do not reach the Horizon project either.
    const intoHorizon = await upload(
      'admin',
      [
        { name: 'project', value: String(ph) },
        { name: 'file', filename: 'a.pdf', content: PDF },
      ],
      'Acme Sécurité',
    );
    expect(intoHorizon.statusCode).toBe(404);
    // A tenant viewer is refused before the form is read.
    expect((await upload('lecteur', [{ name: 'project', value: String(ph) }])).statusCode).toBe(403);
    expect(storedFiles()).toEqual(before);
  });

  it('deletes the document and its stored file', async () => {
    const [row] = await db().select().from(projectDocuments).where(eq(projectDocuments.id, pdfDoc.id));
    const file = path.join(documentsDir(), ...row!.storageKey.split('/'));
    expect(existsSync(file)).toBe(true);
    const res = await call('membre', 'DELETE', `/api/projects/documents/${pdfDoc.id}/`);
    expect(res.statusCode).toBe(204);
    expect(existsSync(file)).toBe(false);
    expect(await db().select().from(projectDocuments).where(eq(projectDocuments.id, pdfDoc.id))).toEqual([]);
    expect((await call('membre', 'GET', `/api/projects/documents/${pdfDoc.id}/`)).statusCode).toBe(404);
    expect((await call('membre', 'GET', pdfDoc.file)).statusCode).toBe(404);
    const [activity] = await db()
      .select()
      .from(projectActivity)
      .where(eq(projectActivity.projectId, p1))
      .orderBy(desc(projectActivity.id));
    expect(activity).toMatchObject({ action: 'deleted', summary: 'Document « rapport.pdf » supprimé' });
  });
});
