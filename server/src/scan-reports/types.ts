import type { AssetType, Severity } from '../db/schema.ts';

export const REPORT_FORMATS = ['trivy', 'nmap', 'openvas'] as const;
export type ReportFormat = (typeof REPORT_FORMATS)[number];

export const FORMAT_LABELS: Record<ReportFormat, string> = {
  trivy: 'Trivy JSON',
  nmap: 'Nmap XML',
  openvas: 'OpenVAS XML',
};

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
  severity: Severity;
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
}

export interface ParsedReport {
  format: ReportFormat;
  findings: Finding[];
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
  unknownFormat: 'Format de rapport non reconnu (formats acceptés : Trivy JSON, Nmap XML, OpenVAS XML).',
  empty: 'Le fichier du rapport est vide.',
  tooLarge: (mb: number) => `Rapport trop volumineux (${mb} Mo au maximum).`,
  malformedXml: (label: string, detail: string) => `Rapport ${label} invalide : XML mal formé (${detail}).`,
  malformedJson: (label: string) => `Rapport ${label} invalide : JSON mal formé.`,
  wrongRoot: (label: string, found: string) => `Rapport ${label} invalide : élément racine <${found}> inattendu.`,
  notTrivy: 'Rapport Trivy JSON invalide : champs SchemaVersion et Results attendus.',
} as const;

export const dtdRefused = () => new ReportError(400, 'report_dtd_refused', MESSAGES.dtd);
export const unknownFormat = () => new ReportError(400, 'report_unknown_format', MESSAGES.unknownFormat);
