import type { CveHitRow, CveRow } from '../repositories/cves.ts';
import type { CweRow } from '../importers/types.ts';
import { explainVector, severityFromScore } from '../lib/cvss.ts';

const HIT_DESCRIPTION_MAX = 300;

function shorten(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/** One search result (CveHit): exactly these fields leave the server. */
export function presentCveHit(hit: CveHitRow) {
  return {
    cve_id: hit.cveId,
    title: hit.title,
    description: shorten(hit.description, HIT_DESCRIPTION_MAX),
    severity: hit.severity,
    cvss_score: hit.cvssScore,
    published_at: hit.publishedAt?.toISOString() ?? null,
    kev: hit.kev,
    epss_score: hit.epssScore,
    rank: Math.round(hit.rank * 10_000) / 10_000,
  };
}

function cvssBlock(score: number | null, vector: string | null, severity: string | null) {
  if (score === null || vector === null) return null;
  return { score, vector, severity: severity ?? 'info', metrics: explainVector(vector) };
}

/** The CVE detail (Cve), with its CWE names and the current tenant's count of open findings on it. */
export function presentCve(row: CveRow, cwes: readonly CweRow[], affectedAssets: number) {
  const names = new Map(cwes.map((c) => [c.id, c.name]));
  return {
    cve_id: row.cveId,
    title: row.title,
    description: row.description,
    status: row.status,
    published_at: row.publishedAt?.toISOString() ?? null,
    modified_at: row.modifiedAt?.toISOString() ?? null,
    severity: row.severity,
    // The v3 block carries a v3.0 vector when NVD or the CNA only scored 3.0 (its prefix says so).
    cvss_v31: cvssBlock(row.cvss3Score, row.cvss3Vector, row.cvss3Severity),
    cvss_v4: cvssBlock(row.cvss4Score, row.cvss4Vector, row.cvss4Severity),
    cvss_v2:
      row.cvss2Score !== null && row.cvss2Vector !== null
        ? { score: row.cvss2Score, vector: row.cvss2Vector, severity: severityFromScore(row.cvss2Score, '2.0') }
        : null,
    cwes: row.cweIds.map((id) => ({ id, name: names.get(id) ?? null })),
    references: row.references.map((r) => ({ url: r.url, source: r.source ?? null, tags: r.tags ?? [] })),
    kev: row.kev
      ? {
          date_added: row.kevDateAdded,
          due_date: row.kevDueDate,
          required_action: row.kevRequiredAction,
          vendor: row.kevVendor,
          product: row.kevProduct,
          name: row.kevName,
          known_ransomware: row.kevKnownRansomware,
        }
      : null,
    epss: row.epssScore !== null ? { score: row.epssScore, percentile: row.epssPercentile, date: row.epssDate } : null,
    affected_assets: affectedAssets,
  };
}

export type CveDetail = ReturnType<typeof presentCve>;
export type CveHit = ReturnType<typeof presentCveHit>;
