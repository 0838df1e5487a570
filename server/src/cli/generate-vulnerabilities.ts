/**
 * Large-data generator for load tests:
 *   node --import tsx server/src/cli/generate-vulnerabilities.ts --count 1000000 --tenant acme-securite.fr --assets 2000
 * Inserts findings into one tenant with INSERT … SELECT generate_series in batches (the counters' triggers run once
 * per batch), spread over severities (10 % critical, 25 % high, 35 % medium, 20 % low, 10 % info), the last year,
 * the assets (a third of them exposed to the Internet), and the CVE store's real ids when it holds any. Runs on the
 * owner connection: platform tooling.
 */
import { randomBytes } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { eq, or, sql } from 'drizzle-orm';
import { rowsOf, type Db } from '../db/client.ts';
import { tenants } from '../db/schema.ts';
import { isUuid } from '../lib/uuid.ts';

export interface GenerateOptions {
  /** Tenant id (uuid) or domain. */
  tenant: string;
  count: number;
  /** Assets to spread the findings over; created as gen-asset-NNNNN when missing. */
  assets?: number;
  batchSize?: number;
  log?: (line: string) => void;
}

export interface GenerateResult {
  tenantId: string;
  inserted: number;
  assets: number;
  cvePool: number;
  ms: number;
}

const COMPONENTS = [
  'openssl',
  'apache',
  'nginx',
  'openssh',
  'log4j',
  'spring',
  'tomcat',
  'kernel',
  'glibc',
  'curl',
  'postgresql',
  'windows',
];

export async function resolveTenant(db: Db, tenant: string): Promise<string> {
  const [row] = await db
    .select({ id: tenants.id })
    .from(tenants)
    .where(isUuid(tenant) ? or(eq(tenants.id, tenant), eq(tenants.domain, tenant)) : eq(tenants.domain, tenant))
    .limit(1);
  if (!row) throw new Error(`unknown tenant: ${tenant}`);
  return row.id;
}

export async function generateVulnerabilities(db: Db, opts: GenerateOptions): Promise<GenerateResult> {
  const t0 = performance.now();
  const log = opts.log ?? (() => {});
  const tenantId = await resolveTenant(db, opts.tenant);
  const assetCount = Math.max(1, opts.assets ?? 2000);
  const batch = Math.max(1000, opts.batchSize ?? 50_000);
  // Keys of this run cannot collide with an earlier run's.
  const run = randomBytes(4).toString('hex');
  const components = sql.raw(`array[${COMPONENTS.map((c) => `'${c}'`).join(',')}]`);

  const result = await db.transaction(async (tx) => {
    await tx.execute(sql`
      insert into assets (tenant_id, name, asset_type, hostname, ip_address, operating_system, criticality,
                          internet_exposed, description, tags)
      select ${tenantId}::uuid, 'gen-asset-' || lpad(g::text, 5, '0'),
             (array['server','workstation','network','application','database','cloud','container'])[1 + g % 7],
             'gen-' || g || '.interne', '10.' || (g / 65536) % 256 || '.' || (g / 256) % 256 || '.' || g % 256,
             (array['Debian 12','Windows 11','Ubuntu 22.04','RHEL 9','FortiOS 7.2'])[1 + g % 5],
             (array['low','medium','high','critical'])[1 + (g * 7) % 4], g % 3 = 0,
             'Actif généré pour les tests de charge.', array['généré']
      from generate_series(1, ${assetCount}) g
      on conflict (tenant_id, name) do nothing`);
    await tx.execute(sql`
      create temp table gen_assets on commit drop as
      select id, (row_number() over (order by id) - 1)::int as rn from assets
      where tenant_id = ${tenantId}::uuid and name like 'gen-asset-%' order by id limit ${assetCount}`);
    // At most 2,000 real CVEs per severity, numbered 0… within their severity.
    await tx.execute(sql`
      create temp table gen_pool on commit drop as
      select * from (
        select cve_id, coalesce(nullif(title, ''), cve_id) as title, left(description, 200) as description, severity,
               coalesce(cvss4_score, cvss3_score, cvss2_score) as score,
               coalesce(cvss4_vector, cvss3_vector, cvss2_vector) as vector, kev, cwe_ids,
               (row_number() over (partition by severity order by cve_id desc) - 1)::int as rn
        from cves) p
      where rn < 2000`);
    await tx.execute(sql`
      create temp table gen_pool_n on commit drop as
      select severity, count(*)::int as n from gen_pool group by severity`);
    const [pool] = rowsOf<{ n: number }>(await tx.execute(sql`select count(*)::int as n from gen_pool`));
    const [assetsRow] = rowsOf<{ n: number }>(await tx.execute(sql`select count(*)::int as n from gen_assets`));
    const nAssets = assetsRow?.n ?? 0;
    log(`tenant ${tenantId}: ${nAssets} assets, ${pool?.n ?? 0} CVEs in the pool`);

    for (let from = 1; from <= opts.count; from += batch) {
      const to = Math.min(opts.count, from + batch - 1);
      // Multiplicative hashes of g pick each attribute independently and deterministically.
      await tx.execute(sql`
        insert into vulnerabilities (tenant_id, asset_id, cve_id, finding_key, title, description, severity, cvss_score,
          cvss_vector, kev, cwe_ids, port, protocol, service, solution, source, is_resolved, state, resolved_at, first_seen,
          last_seen, created_at, updated_at)
        select ${tenantId}::uuid, a.id,
               coalesce(p.cve_id, 'CVE-' || (2015 + s.cpick % 10) || '-' || (10000 + s.cpick % 40000)),
               'gen:' || ${run} || ':' || s.g,
               coalesce(p.title, 'Vulnérabilité ' || s.comp || ' n° ' || s.g),
               'Composant ' || s.comp || ' : ' || coalesce(p.description, 'vulnérabilité générée pour les tests de charge.'),
               s.sev,
               coalesce(p.score, case s.sev when 'critical' then 9.8 when 'high' then 7.5 when 'medium' then 5.3
                                            when 'low' then 3.1 end),
               p.vector, coalesce(p.kev, s.cpick % 50 = 0), coalesce(p.cwe_ids, array['CWE-' || (20 + s.cpick % 60)]),
               (array[22, 80, 443, 445, 3389, 8080])[1 + s.g % 6], 'tcp',
               (array['ssh','http','https','microsoft-ds','ms-wbt-server','http-alt'])[1 + s.g % 6],
               'Mettre à jour le composant ' || s.comp || '.', (array['openvas','trivy','nmap'])[1 + s.g % 3],
               s.resolved, case when s.resolved then 'verified' else 'new' end,
               case when s.resolved then s.created + interval '3 days' end,
               s.created, s.created + interval '1 day', s.created, s.created
        from (
          select g,
                 case when h % 100 < 10 then 'critical' when h % 100 < 35 then 'high' when h % 100 < 70 then 'medium'
                      when h % 100 < 90 then 'low' else 'info' end as sev,
                 ((g * 2246822519) % 4294967296 % ${Math.max(1, nAssets)})::int as apick,
                 ((g * 3266489917) % 4294967296)::int8 as cpick,
                 (${components})[1 + (g * 40503) % ${COMPONENTS.length}] as comp,
                 (g * 374761393) % 100 < 30 as resolved,
                 now() - ((g * 668265263) % 4294967296 % 525600) * interval '1 minute' as created
          from (select g, (g * 2654435761) % 4294967296 as h from generate_series(${from}::int8, ${to}::int8) g) x
        ) s
        join gen_assets a on a.rn = s.apick
        left join gen_pool_n pn on pn.severity = s.sev
        left join gen_pool p on p.severity = s.sev and p.rn = s.cpick % pn.n`);
      log(`  ${to.toLocaleString('en')} / ${opts.count.toLocaleString('en')}`);
    }
    return {
      tenantId,
      inserted: opts.count,
      assets: nAssets,
      cvePool: pool?.n ?? 0,
      ms: performance.now() - t0,
    };
  });
  // A bulk load leaves the visibility map unset: vacuum so index-only scans (counts) skip the heap at once, as
  // autovacuum would do later, and analyze for the planner. Outside the transaction (VACUUM cannot run in one).
  await db.execute(sql`vacuum (analyze) vulnerabilities`);
  await db.execute(sql`vacuum (analyze) vulnerability_texts`);
  return { ...result, ms: performance.now() - t0 };
}

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { withDatabase } = await import('./with-database.ts');
  const count = Number(arg('count') ?? 100_000);
  const tenant = arg('tenant') ?? 'acme-securite.fr';
  const assetCount = Number(arg('assets') ?? 2000);
  if (!Number.isInteger(count) || count < 1 || !Number.isInteger(assetCount) || assetCount < 1) {
    console.error('usage: generate-vulnerabilities --count N --tenant <domain or id> [--assets N] [--batch N]');
    process.exit(2);
  }
  await withDatabase(async (database) => {
    const result = await generateVulnerabilities(database.db, {
      tenant,
      count,
      assets: assetCount,
      batchSize: Number(arg('batch') ?? 50_000),
      log: (line) => console.log(line),
    });
    console.log(
      `vigie: ${result.inserted.toLocaleString('en')} findings generated in ${(result.ms / 1000).toFixed(1)} s ` +
        `(${result.assets} assets, ${result.cvePool} real CVEs)`,
    );
  });
}
