import { REPORT_FORMAT_LABELS, REPORT_FORMATS, type ReportFormat } from '../../../contract/scan-formats.ts';
import type { AssetType, FindingSeverity } from '../db/schema.ts';

// The formats and their labels are the contract's: the client's format picker shows the same words.
export { REPORT_FORMATS, type ReportFormat };
export const FORMAT_LABELS: Record<ReportFormat, string> = REPORT_FORMAT_LABELS;

/** The host, image or repository a finding was seen on; assets are matched by name within the tenant. */
export interface FindingAsset {
  name: string;
  hostname?: string | undefined;
  ip_address?: string | undefined;
  operating_system?: string | undefined;
  asset_type: AssetType;
}

/** One finding as every parser hands it over, whatever the scanner. */
export interface Finding {
  asset: FindingAsset;
  /** Stable per asset across imports: the CVE id, or the scanner's own key (port:tcp/22, nvt:<oid>, CVE|package). */
  finding_key: string;
  cve_id?: string | undefined;
  title: string;
  description: string;
  severity: FindingSeverity;
  cvss_score?: number | undefined;
  cvss_vector?: string | undefined;
  cwe_ids?: string[] | undefined;
  port?: number | undefined;
  protocol?: string | undefined;
  service?: string | undefined;
  package_name?: string | undefined;
  installed_version?: string | undefined;
  fixed_version?: string | undefined;
  solution: string;
  /** Where in the report it was seen (Trivy target, port): only used to describe merged duplicates. */
  location?: string | undefined;
  /**
   * The VEX analysis state the report gives this finding, raw as CycloneDX spells it (`not_affected`,
   * `false_positive`, `resolved`, `resolved_with_pedigree`, `exploitable`, `in_triage`). Such findings are imported
   * all the same: mapping a state to the finding's lifecycle (a `not_affected` one closed, say) is a later step's.
   */
  vex_state?: string | undefined;
}

export interface ParsedReport {
  format: ReportFormat;
  findings: Finding[];
  /** The stored report's file extension: what its content is (json or xml), `.gz` kept when it came compressed. */
  extension: 'json' | 'xml' | 'json.gz' | 'xml.gz';
}

/** A report refused for what it contains (400) or its size (413); the message is French and safe to show. */
export class ReportError extends Error {
  constructor(
    readonly status: 400 | 413,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export const MESSAGES = {
  dtd: 'Rapport refusé : les DTD et entités XML ne sont pas acceptées.',
  unknownFormat: `Format de rapport non reconnu (formats acceptés : ${REPORT_FORMATS.map((f) => FORMAT_LABELS[f]).join(', ')} ; fichier brut ou compressé en gzip).`,
  empty: 'Le fichier du rapport est vide.',
  tooLarge: (mb: number) => `Rapport trop volumineux (${mb} Mo au maximum).`,
  tooLargeUnzipped: (mb: number) => `Rapport trop volumineux une fois décompressé (${mb} Mo au maximum).`,
  badGzip: 'Rapport compressé illisible : archive gzip invalide ou tronquée.',
  malformedXml: (label: string, detail: string) => `Rapport ${label} invalide : XML mal formé (${detail}).`,
  malformedJson: (label: string) => `Rapport ${label} invalide : JSON mal formé.`,
  wrongRoot: (label: string, found: string) => `Rapport ${label} invalide : élément racine <${found}> inattendu.`,
  notTrivy: 'Rapport Trivy JSON invalide : champs SchemaVersion et Results attendus.',
  notZap: `Rapport ${FORMAT_LABELS.zap} invalide : champs @version et site attendus.`,
  notGrype: `Rapport ${FORMAT_LABELS.grype} invalide : tableau matches attendu.`,
  notCycloneDx: `Rapport ${FORMAT_LABELS.cyclonedx} invalide : champ bomFormat « CycloneDX » attendu.`,
  notSarif: `Rapport ${FORMAT_LABELS.sarif} invalide : champs version « 2.1.0 » et runs attendus.`,
} as const;

export const dtdRefused = () => new ReportError(400, 'report_dtd_refused', MESSAGES.dtd);
export const unknownFormat = () => new ReportError(400, 'report_unknown_format', MESSAGES.unknownFormat);
