import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { drizzle } from 'drizzle-orm/pglite';
import { migrate } from 'drizzle-orm/pglite/migrator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const MIGRATIONS = path.resolve('server/migrations');
const TAG = '0030_severity_source';

/**
 * Migration 0030 on a database that holds findings and CVE records from before it (docs/severity.md): what it can
 * tell, it tells; the rest keeps the scanner as source.
 */
describe('migration 0030 on existing findings (PGlite)', () => {
  const client = new PGlite({ extensions: { pg_trgm } });
  const db = drizzle({ client });
  const before = mkdtempSync(path.join(tmpdir(), 'vigie-migrations-'));
  const query = async <T>(text: string) => (await client.query<T>(text)).rows;

  beforeAll(async () => {
    // The migrations up to 0029 alone.
    cpSync(MIGRATIONS, before, { recursive: true, filter: (p) => !path.basename(p).startsWith('0030_') });
    const journalPath = path.join(before, 'meta', '_journal.json');
    const journal = JSON.parse(readFileSync(journalPath, 'utf8')) as { entries: { tag: string }[] };
    const at = journal.entries.findIndex((e) => e.tag === TAG);
    expect(at).toBeGreaterThan(0);
    writeFileSync(journalPath, JSON.stringify({ ...journal, entries: journal.entries.slice(0, at) }));
    await migrate(db, { migrationsFolder: before });

    await client.exec(`
      insert into tenants (id, name, domain) values ('00000000-0000-4000-8000-000000000030', 'Avant', 'avant.test');
      insert into cves (cve_id, title, source, kev) values ('CVE-2021-44228', 'Log4Shell', 'kev', true);
      insert into cves (cve_id, title, source, cvss3_score, cvss3_vector, cvss3_severity, severity)
        values ('CVE-2099-3001', 'NVD', 'nvd', 9.8, 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H', 'critical', 'critical'),
               ('CVE-2099-3002', 'CVE 5', 'cve5', 5.4, 'CVSS:3.1/AV:N/AC:L/PR:L/UI:N/S:U/C:L/I:L/A:N', 'medium', 'medium');
      insert into vulnerabilities (tenant_id, cve_id, finding_key, title, severity, cvss_score, source) values
        ('00000000-0000-4000-8000-000000000030', 'CVE-2021-44228', 'a', 'Log4Shell sans score', 'info', null, 'trivy'),
        ('00000000-0000-4000-8000-000000000030', 'CVE-2099-3001', 'b', 'Noté par NVD', 'critical', 9.8, 'trivy'),
        ('00000000-0000-4000-8000-000000000030', 'CVE-2099-3002', 'c', 'Noté par le CNA', 'medium', 5.4, 'grype'),
        ('00000000-0000-4000-8000-000000000030', 'CVE-2099-3001', 'd', 'Noté autrement', 'high', 7.5, 'nessus'),
        ('00000000-0000-4000-8000-000000000030', null, 'manual:1', 'Saisie', 'low', 3.1, 'manual'),
        ('00000000-0000-4000-8000-000000000030', null, 'port:22', 'Port ouvert', 'info', null, 'nmap');
    `);
    await migrate(db, { migrationsFolder: MIGRATIONS });
  }, 120_000);

  afterAll(async () => {
    await client.close();
    rmSync(before, { recursive: true, force: true });
  });

  it('makes an unscored CVE record « Non évaluée » and names who scored the others', async () => {
    expect(await query(`select cve_id, severity, cvss_source from cves order by cve_id`)).toEqual([
      { cve_id: 'CVE-2021-44228', severity: 'unrated', cvss_source: null },
      { cve_id: 'CVE-2099-3001', severity: 'critical', cvss_source: 'nvd' },
      { cve_id: 'CVE-2099-3002', severity: 'medium', cvss_source: 'cna' },
    ]);
  });

  it('turns the old Info stand-in of an unscored CVE into « Non évaluée », and gives each finding its source', async () => {
    expect(
      await query(`select finding_key, severity, severity_source from vulnerabilities order by finding_key`),
    ).toEqual([
      { finding_key: 'a', severity: 'unrated', severity_source: 'scanner' },
      { finding_key: 'b', severity: 'critical', severity_source: 'nvd' },
      { finding_key: 'c', severity: 'medium', severity_source: 'cna' },
      { finding_key: 'd', severity: 'high', severity_source: 'scanner' },
      { finding_key: 'manual:1', severity: 'low', severity_source: 'analyst' },
      // A scanner's Info without a CVE is a rating (an open port): it stays Info.
      { finding_key: 'port:22', severity: 'info', severity_source: 'scanner' },
    ]);
    // The counters follow: the tenant's totals count the unrated finding apart.
    expect(
      await query(`select severity, sum(n)::int as n from vulnerability_totals group by severity order by severity`),
    ).toEqual(
      expect.arrayContaining([
        { severity: 'unrated', n: 1 },
        { severity: 'info', n: 1 },
      ]),
    );
  });
});
