import { and, count, eq, inArray, sql, type SQL } from 'drizzle-orm';
import { rowsOf, type Db } from '../db/client.ts';
import { cves, cwes, vulnerabilities, type FindingSeverity } from '../db/schema.ts';
import type { TenantDb } from '../db/tenant-scope.ts';
import type { BatchCounts, CveRecord, CweRow, EpssRow, KevEntry } from '../domain/cve-records.ts';
import { DEFAULT_EPSS_THRESHOLD } from '../domain/ssvc.ts';
import { pgArray } from '../db/arrays.ts';

// The CVE store is public reference data: the importers write it with the owner connection, every tenant reads
// it (vigie_app has SELECT). Batches travel as one JSON parameter expanded by json_to_recordset: one round trip
// and one parse per 500 records, whatever the driver, and no 65,535-parameter limit to mind.

/**
 * The search document of a CVE row aliased `a`: id (weight A), title (B), description with the CWE ids and names
 * (C). 'english' for the text because NVD, MITRE and CISA write in English: stemming lets "overflows" find
 * "overflow" and drops stop words. The id goes through 'simple' (no stemming; its tokens are numbers anyway).
 */
function searchVectorOf(a: string): SQL {
  return sql.raw(
    `setweight(to_tsvector('simple', ${a}.cve_id), 'A')` +
      ` || setweight(to_tsvector('english', coalesce(${a}.title, '')), 'B')` +
      ` || setweight(to_tsvector('english', coalesce(${a}.description, '') || ' ' ||` +
      ` array_to_string(${a}.cwe_ids, ' ') || ' ' ||` +
      ` coalesce((select string_agg(w.name, ' ') from cwes w where w.id = any(${a}.cwe_ids)), '')), 'C')`,
  );
}

const BODY_COLUMNS = [
  'title',
  'description',
  'status',
  'published_at',
  'modified_at',
  'cvss3_score',
  'cvss3_vector',
  'cvss3_severity',
  'cvss4_score',
  'cvss4_vector',
  'cvss4_severity',
  'cvss2_score',
  'cvss2_vector',
  'severity',
  'cvss_source',
  'cwe_ids',
  '"references"',
  'source',
] as const;

const RECORD_TYPES =
  'cve_id text, title text, description text, status text, published_at timestamptz, modified_at timestamptz,' +
  ' cvss3_score float8, cvss3_vector text, cvss3_severity text, cvss4_score float8, cvss4_vector text,' +
  ' cvss4_severity text, cvss2_score float8, cvss2_vector text, severity text, cvss_source text, cwe_ids text[],' +
  ' "references" jsonb, source text';

/** Whether record `r` replaces stored row `c`: newer, or the first dated record over a KEV stub. */
function newer(c: string, r: string): SQL {
  return sql.raw(
    `((${c}.modified_at is null and (${r}.modified_at is not null or ${c}.source = 'kev'))` +
      ` or ${r}.modified_at > ${c}.modified_at)`,
  );
}

/** A CVE row's references name a public exploit (NVD tag « Exploit »): SSVC's exploitation reads it. */
const EXPLOIT_REFERENCE = sql.raw(`'[{"tags": ["Exploit"]}]'::jsonb`);

// The findings' side of a change in the store (migration 0029, docs/ssvc.md). A finding copies its CVE's KEV flag
// and reads its EPSS score and exploit references for its SSVC decision: when the store changes them, every
// tenant's findings on those CVEs follow, in the store write's transaction. Platform work on the owner connection
// (no tenant): the join with tenants walks each tenant's (tenant_id, cve_id) index, the ids one array parameter so
// that the planner knows how few they are.

/** Marks every tenant's findings on these CVEs (now in CISA's KEV catalogue) KEV; their decision follows. */
export async function markFindingsExploited(db: Db, cveIds: readonly string[]): Promise<number> {
  if (cveIds.length === 0) return 0;
  const result = await db.execute(sql`
    update vulnerabilities v set kev = true
      from tenants t
     where v.tenant_id = t.id and v.cve_id = any(${pgArray(cveIds)}::text[]) and not v.kev
    returning v.id`);
  return rowsOf<unknown>(result).length;
}

/** Writes the SSVC decision of every tenant's open findings on these CVEs where it changed; returns how many. */
export async function refreshFindingDecisions(db: Db, cveIds: readonly string[]): Promise<number> {
  if (cveIds.length === 0) return 0;
  const result = await db.execute(sql`
    update vulnerabilities v set ssvc_decision = d.decision
      from tenants t, finding_ssvc_decisions d
     where d.tenant_id = t.id and d.cve_id = any(${pgArray(cveIds)}::text[]) and not d.is_resolved
       and d.decision <> d.kept and v.id = d.id
    returning v.id`);
  return rowsOf<unknown>(result).length;
}

/**
 * Rates every tenant's findings on these CVEs from the store's new score (docs/severity.md): the store's severity,
 * its scorer, score and vector — over a scanner's rating too, as an import does — and under an analyst's override
 * (rated_*), never over it. An unscored record rates nothing. The vector moves the SSVC decision (its row trigger).
 * Writes only the findings that change; returns how many.
 */
export async function refreshFindingRatings(db: Db, cveIds: readonly string[]): Promise<number> {
  if (cveIds.length === 0) return 0;
  const result = await db.execute(sql`
    with best as (
      select c.cve_id, c.severity, coalesce(c.cvss_source, 'cna') as source,
             coalesce(c.cvss4_score, c.cvss3_score, c.cvss2_score) as score,
             case when c.cvss4_score is not null then c.cvss4_vector
                  when c.cvss3_score is not null then c.cvss3_vector else c.cvss2_vector end as vector
        from cves c
       where c.cve_id = any(${pgArray(cveIds)}::text[]) and c.severity <> 'unrated'
    ), rated as (
      select v.id,
             case when v.rated_source is not null then v.severity else b.severity end as severity,
             case when v.rated_source is not null then 'analyst' else b.source end as severity_source,
             case when v.rated_source is not null then b.severity end as rated_severity,
             case when v.rated_source is not null then b.source end as rated_source,
             b.score, b.vector
        from tenants t
        join vulnerabilities v on v.tenant_id = t.id
        join best b on b.cve_id = v.cve_id
       -- A finding an analyst rated by hand (no source's rating under it) has nothing to follow; one typed in
       -- unrated was rated by nobody, and follows.
       where not (v.severity_source = 'analyst' and v.rated_source is null and v.severity <> 'unrated')
    )
    update vulnerabilities v
       set severity = r.severity, severity_source = r.severity_source, rated_severity = r.rated_severity,
           rated_source = r.rated_source, cvss_score = r.score, cvss_vector = r.vector, updated_at = now()
      from rated r
     where v.id = r.id
       and (v.severity, v.severity_source, v.rated_severity, v.rated_source, v.cvss_score, v.cvss_vector)
           is distinct from (r.severity, r.severity_source, r.rated_severity, r.rated_source, r.score, r.vector)
    returning v.id`);
  return rowsOf<unknown>(result).length;
}

/** One row per key: ON CONFLICT cannot touch the same row twice in one statement. The last one wins. */
function uniqueBy<T>(rows: readonly T[], key: (row: T) => string): T[] {
  const map = new Map<string, T>();
  for (const r of rows) map.set(key(r), r);
  return map.size === rows.length ? [...rows] : [...map.values()];
}

function countReturned(rows: { inserted: boolean }[]): BatchCounts {
  let inserted = 0;
  for (const r of rows) if (r.inserted) inserted++;
  return { inserted, updated: rows.length - inserted };
}

/**
 * Inserts new CVEs and updates those whose stored record is older. A record whose modified date is older than or
 * equal to the stored one changes nothing; a KEV stub (no record body yet) is always replaced. The findings on a
 * written CVE follow its score (refreshFindingRatings), and those on a CVE whose references gained or lost a public
 * exploit get their SSVC decision again.
 */
export async function upsertCveRecords(db: Db, records: readonly CveRecord[]): Promise<BatchCounts> {
  if (records.length === 0) return { inserted: 0, updated: 0 };
  // Within a batch keep the newest version of each id.
  const byId = new Map<string, CveRecord>();
  for (const r of records) {
    const prev = byId.get(r.cve_id);
    if (!prev || (r.modified_at ?? '') > (prev.modified_at ?? '')) byId.set(r.cve_id, r);
  }
  const columns = BODY_COLUMNS.join(', ');
  return db.transaction(async (tx) => {
    // Every part of one statement sees the table as it was before it: `before` is the stored exploit flag.
    const result = await tx.execute(sql`
      with before as (
        select c.cve_id, c."references" @> ${EXPLOIT_REFERENCE} as exploit from cves c
         where c.cve_id = any(${pgArray([...byId.keys()])}::text[])
      ), written as (
      insert into cves (cve_id, ${sql.raw(columns)}, search_vector, updated_at)
      select r.cve_id, ${sql.raw(BODY_COLUMNS.map((c) => `r.${c}`).join(', '))}, ${searchVectorOf('r')}, now()
      from json_to_recordset(${JSON.stringify([...byId.values()])}::json) as r(${sql.raw(RECORD_TYPES)})
      -- Skip unchanged records before their search document is computed (a re-import then costs little).
      where not exists (select 1 from cves c where c.cve_id = r.cve_id and not coalesce(${newer('c', 'r')}, false))
      on conflict (cve_id) do update set
        ${sql.raw(BODY_COLUMNS.map((c) => `${c} = excluded.${c}`).join(', '))},
        search_vector = excluded.search_vector, updated_at = now()
      where ${newer('cves', 'excluded')}
      returning cves.cve_id, (xmax = 0) as inserted, cves."references" @> ${EXPLOIT_REFERENCE} as exploit)
      select w.cve_id, w.inserted, (w.exploit is distinct from coalesce(b.exploit, false)) as moved
        from written w left join before b on b.cve_id = w.cve_id`);
    const rows = rowsOf<{ cve_id: string; inserted: boolean; moved: boolean }>(result);
    await refreshFindingRatings(
      tx,
      rows.map((r) => r.cve_id),
    );
    await refreshFindingDecisions(
      tx,
      rows.filter((r) => r.moved).map((r) => r.cve_id),
    );
    return countReturned(rows);
  });
}

/**
 * Marks CVEs as known exploited (CISA KEV). An entry whose CVE has no record yet creates a stub (source 'kev',
 * title and description from the catalog) that the NVD or CVE 5 record replaces later. Unchanged entries write
 * nothing, so a re-import counts no update. `newlyExploited` names the CVEs that were not marked before.
 */
export async function applyKevEntries(
  db: Db,
  entries: readonly KevEntry[],
): Promise<BatchCounts & { newlyExploited: string[] }> {
  if (entries.length === 0) return { inserted: 0, updated: 0, newlyExploited: [] };
  const kevColumns = [
    'kev_date_added',
    'kev_due_date',
    'kev_required_action',
    'kev_vendor',
    'kev_product',
    'kev_name',
    'kev_known_ransomware',
  ];
  // Every part of one statement sees the table as it was before the statement: "before" is what was already marked.
  const ids = JSON.stringify(entries.map((e) => e.cve_id));
  return db.transaction(async (tx) => {
    const result = await tx.execute(sql`
    with before as (
      select c.cve_id from cves c where c.kev and c.cve_id in (select json_array_elements_text(${ids}::json))
    ), written as (
    insert into cves (cve_id, title, description, cwe_ids, source, kev, ${sql.raw(kevColumns.join(', '))},
      search_vector, updated_at)
    select r.cve_id, r.title, r.description, r.cwe_ids, 'kev', true, r.date_added, r.due_date, r.required_action,
      r.vendor, r.product, r.name, r.known_ransomware, ${searchVectorOf('r')}, now()
    from json_to_recordset(${JSON.stringify(uniqueBy(entries, (e) => e.cve_id))}::json) as r(cve_id text,
      title text, description text, cwe_ids text[], date_added date, due_date date, required_action text,
      vendor text, product text, name text, known_ransomware text)
    where not exists (select 1 from cves c where c.cve_id = r.cve_id and c.kev
      and (${sql.raw(kevColumns.map((c) => `c.${c}`).join(', '))}) is not distinct from
        (r.date_added, r.due_date, r.required_action, r.vendor, r.product, r.name, r.known_ransomware))
    on conflict (cve_id) do update set kev = true,
      ${sql.raw(kevColumns.map((c) => `${c} = excluded.${c}`).join(', '))}, updated_at = now()
    where not cves.kev
      or (${sql.raw(kevColumns.map((c) => `cves.${c}`).join(', '))})
        is distinct from (${sql.raw(kevColumns.map((c) => `excluded.${c}`).join(', '))})
    returning cves.cve_id, (xmax = 0) as inserted)
    select w.cve_id, w.inserted, (b.cve_id is null) as newly from written w left join before b on b.cve_id = w.cve_id`);
    const rows = rowsOf<{ cve_id: string; inserted: boolean; newly: boolean }>(result);
    // Every entry, not only the changed ones: a finding written before its CVE was marked catches up.
    await markFindingsExploited(
      tx,
      entries.map((e) => e.cve_id),
    );
    return { ...countReturned(rows), newlyExploited: rows.filter((r) => r.newly).map((r) => r.cve_id) };
  });
}

/**
 * Sets EPSS scores on known CVEs (a score for an unknown CVE is ignored); returns how many rows changed. The findings
 * on a CVE whose score crossed an EPSS threshold in use (a tenant's, or the default) get their SSVC decision again.
 */
export async function applyEpssRows(db: Db, rows: readonly EpssRow[]): Promise<number> {
  if (rows.length === 0) return 0;
  return db.transaction(async (tx) => {
    const result = await tx.execute(sql`
      with r as (
        select * from json_to_recordset(${JSON.stringify(uniqueBy(rows, (r) => r.cve_id))}::json)
          as r(cve_id text, score float8, percentile float8, date date)
      ), before as (
        select c.cve_id, c.epss_score from cves c join r on r.cve_id = c.cve_id
      ), changed as (
        update cves set epss_score = r.score, epss_percentile = r.percentile, epss_date = r.date, updated_at = now()
        from r
        where cves.cve_id = r.cve_id
          and (cves.epss_score, cves.epss_percentile, cves.epss_date) is distinct from (r.score, r.percentile, r.date)
        returning cves.cve_id, cves.epss_score
      ), thresholds as (
        select distinct s.epss_threshold as t from triage_settings s union select ${DEFAULT_EPSS_THRESHOLD}::float8
      )
      select ch.cve_id, exists (
          select 1 from thresholds th
           where coalesce(b.epss_score >= th.t, false) <> coalesce(ch.epss_score >= th.t, false)
        ) as crossed
        from changed ch join before b on b.cve_id = ch.cve_id`);
    const changed = rowsOf<{ cve_id: string; crossed: boolean }>(result);
    await refreshFindingDecisions(
      tx,
      changed.filter((r) => r.crossed).map((r) => r.cve_id),
    );
    return changed.length;
  });
}

export async function upsertCwes(db: Db, rows: readonly CweRow[]): Promise<BatchCounts> {
  if (rows.length === 0) return { inserted: 0, updated: 0 };
  const result = await db.execute(sql`
    insert into cwes (id, name)
    select r.id, r.name from json_to_recordset(${JSON.stringify(uniqueBy(rows, (r) => r.id))}::json)
      as r(id text, name text)
    on conflict (id) do update set name = excluded.name where cwes.name is distinct from excluded.name
    returning (xmax = 0) as inserted`);
  return countReturned(rowsOf<{ inserted: boolean }>(result));
}

/** CVEs published since `since`, for the weekly re-indexing. */
export async function countPublishedSince(db: Db, since: Date): Promise<number> {
  const [row] = await db
    .select({ n: count() })
    .from(cves)
    .where(sql`${cves.publishedAt} >= ${since.toISOString()}`);
  return row?.n ?? 0;
}

/**
 * Recomputes the search document of the next `limit` CVEs published since `since` with an id after `afterId`
 * (keyset paging, so each batch is one short statement). Returns the last id done, or null when finished.
 */
export async function reindexBatch(
  db: Db,
  opts: { since: Date; afterId: string; limit: number },
): Promise<{ lastId: string | null; done: number }> {
  const result = await db.execute(sql`
    with batch as (
      select cve_id from cves
      where published_at >= ${opts.since.toISOString()} and cve_id > ${opts.afterId}
      order by cve_id limit ${opts.limit}
    )
    update cves c set search_vector = ${searchVectorOf('c')}
    from batch where c.cve_id = batch.cve_id
    returning c.cve_id`);
  const ids = rowsOf<{ cve_id: string }>(result).map((r) => r.cve_id);
  if (ids.length === 0) return { lastId: null, done: 0 };
  return { lastId: ids.reduce((a, b) => (b > a ? b : a)), done: ids.length };
}

// --- Reading ---------------------------------------------------------------------------------------------------

export type CveRow = typeof cves.$inferSelect;

export interface CveHitRow {
  cveId: string;
  title: string;
  description: string;
  severity: FindingSeverity;
  cvssScore: number | null;
  publishedAt: Date | null;
  kev: boolean;
  epssScore: number | null;
  rank: number;
}

/** Ids share many trigrams ('cve', '-20'…): only a close id (one or two digits off) counts as a typo. */
const ID_SIMILARITY = 0.6;

/** LIKE pattern matching `text` anywhere, with the user's own % _ and \ taken literally. */
function containsPattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/**
 * Ranked search: the exact id first; then full-text rank (websearch syntax, 'english') blended with trigram
 * similarity on the id (typos, "2021-4422") and word similarity on the title ("log4j" finds "Log4j2"). Each
 * condition is served by an index: GIN on search_vector, trigram GIN on cve_id and title.
 */
export async function searchCves(
  db: Db,
  q: string,
  page: { limit: number; offset: number },
): Promise<{ count: number; rows: CveHitRow[] }> {
  const upper = q.toUpperCase();
  const lower = q.toLowerCase();
  const tsquery = sql`websearch_to_tsquery('english', ${q})`;
  const pattern = containsPattern(lower);
  // lower(cve_id) is what the trigram index covers (migration 0007).
  const id = sql`lower(${cves.cveId})`;
  const matches = sql`(${cves.searchVector} @@ ${tsquery} or ${id} like ${pattern}
    or (${id} % ${lower} and similarity(${id}, ${lower}) >= ${ID_SIMILARITY}) or ${q} <% ${cves.title})`;
  const rank = sql<number>`(case when ${cves.cveId} = ${upper} then 100 else 0 end
    + ts_rank(coalesce(${cves.searchVector}, ''::tsvector), ${tsquery})
    + 0.5 * greatest(similarity(${id}, ${lower}), word_similarity(${q}, ${cves.title}))
    + case when ${id} like ${pattern} then 0.3 else 0 end)::float8`;
  const rows = await db
    .select({
      cveId: cves.cveId,
      title: cves.title,
      description: sql<string>`left(${cves.description}, 301)`,
      severity: cves.severity,
      cvssScore: sql<number | null>`coalesce(${cves.cvss4Score}, ${cves.cvss3Score}, ${cves.cvss2Score})`,
      publishedAt: cves.publishedAt,
      kev: cves.kev,
      epssScore: cves.epssScore,
      rank,
      total: sql<number>`(count(*) over ())::int`,
    })
    .from(cves)
    .where(matches)
    .orderBy(sql`${rank} desc`, sql`${cves.publishedAt} desc nulls last`, sql`${cves.cveId} desc`)
    .limit(page.limit)
    .offset(page.offset);
  let total = rows[0]?.total ?? 0;
  if (rows.length === 0 && page.offset > 0) {
    const [row] = await db.select({ n: count() }).from(cves).where(matches);
    total = row?.n ?? 0;
  }
  return { count: total, rows: rows.map(({ total: _total, ...hit }) => hit) };
}

export async function findCve(db: Db, id: string): Promise<CveRow | undefined> {
  const [row] = await db.select().from(cves).where(eq(cves.cveId, id));
  return row;
}

export async function cweNames(db: Db, ids: readonly string[]): Promise<CweRow[]> {
  if (ids.length === 0) return [];
  return db
    .select({ id: cwes.id, name: cwes.name })
    .from(cwes)
    .where(inArray(cwes.id, [...ids]));
}

/** The current tenant's open findings on this CVE (row-level security confines the count to the tenant). */
export async function openFindingsOn(tx: TenantDb, id: string): Promise<number> {
  const [row] = await tx
    .select({ n: count() })
    .from(vulnerabilities)
    .where(and(eq(vulnerabilities.cveId, id), eq(vulnerabilities.isResolved, false)));
  return row?.n ?? 0;
}
