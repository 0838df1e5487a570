import { FINDING_SEVERITIES, SEVERITIES } from '../../../contract/severity.ts';
import { charCount, clipText } from '../../../contract/text.ts';
import { Choice, Nullable, Type, type Static } from '../schemas/common.ts';
import type { CveHitRow, CveRow } from '../repositories/cves.ts';
import type { CweRow } from '../domain/cve-records.ts';
import { explainVector, severityFromScore } from '../lib/cvss.ts';

const HIT_DESCRIPTION_MAX = 300;
const DateTime = Type.String({ format: 'date-time' });

/** One search result (CveHit). */
export const CveHitSchema = Type.Object(
  {
    cve_id: Type.String(),
    title: Type.String(),
    description: Type.String({ description: `Tronquée à ${HIT_DESCRIPTION_MAX} caractères` }),
    severity: Choice(FINDING_SEVERITIES),
    cvss_score: Nullable(Type.Number()),
    published_at: Nullable(DateTime),
    kev: Type.Boolean(),
    epss_score: Nullable(Type.Number()),
    rank: Type.Number(),
  },
  { title: 'CveHit' },
);
export type CveHit = Static<typeof CveHitSchema>;

const CvssBlockSchema = Type.Object({
  score: Type.Number(),
  vector: Type.String(),
  severity: Type.String(),
  metrics: Type.Array(
    Type.Object({ key: Type.String(), name: Type.String(), value: Type.String(), value_label: Type.String() }),
  ),
});

/** The CVE detail (Cve), with its CWE names and the current tenant's count of open findings on it. */
export const CveSchema = Type.Object(
  {
    cve_id: Type.String(),
    title: Type.String(),
    description: Type.String(),
    status: Nullable(Type.String()),
    published_at: Nullable(DateTime),
    modified_at: Nullable(DateTime),
    /** The best score's severity; 'unrated' (« Non évaluée ») when no CVSS at all. */
    severity: Choice(FINDING_SEVERITIES),
    /** Who scored it: NVD itself, the CNA, or CISA's ADP (Vulnrichment); null when unscored or not known. */
    cvss_source: Nullable(Choice(['nvd', 'cna', 'adp'] as const)),
    cvss_v31: Nullable(CvssBlockSchema),
    cvss_v4: Nullable(CvssBlockSchema),
    cvss_v2: Nullable(Type.Object({ score: Type.Number(), vector: Type.String(), severity: Choice(SEVERITIES) })),
    cwes: Type.Array(Type.Object({ id: Type.String(), name: Nullable(Type.String()) })),
    references: Type.Array(
      Type.Object({ url: Type.String(), source: Nullable(Type.String()), tags: Type.Array(Type.String()) }),
    ),
    kev: Nullable(
      Type.Object({
        date_added: Nullable(Type.String()),
        due_date: Nullable(Type.String()),
        required_action: Nullable(Type.String()),
        vendor: Nullable(Type.String()),
        product: Nullable(Type.String()),
        name: Nullable(Type.String()),
        known_ransomware: Nullable(Type.String()),
      }),
    ),
    epss: Nullable(
      Type.Object({ score: Type.Number(), percentile: Nullable(Type.Number()), date: Nullable(Type.String()) }),
    ),
    affected_assets: Type.Integer({ description: 'Vulnérabilités ouvertes de l’organisation sur cette CVE' }),
  },
  { title: 'Cve' },
);
export type CveDetail = Static<typeof CveSchema>;

function shorten(text: string, max: number): string {
  return charCount(text) <= max ? text : `${clipText(text, max - 1)}…`;
}

/** One search result (CveHit): exactly these fields leave the server. */
export function presentCveHit(hit: CveHitRow): CveHit {
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
export function presentCve(row: CveRow, cwes: readonly CweRow[], affectedAssets: number): CveDetail {
  const names = new Map(cwes.map((c) => [c.id, c.name]));
  return {
    cve_id: row.cveId,
    title: row.title,
    description: row.description,
    status: row.status,
    published_at: row.publishedAt?.toISOString() ?? null,
    modified_at: row.modifiedAt?.toISOString() ?? null,
    severity: row.severity,
    cvss_source: row.cvssSource,
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
