/**
 * Scanner report formats as the API spells them (the import's `format`, a scan's `report_format` and `scanner`),
 * their French labels and the file extensions the import form offers. The server recognises a format by its
 * content, never by its file name; any report may also come gzip-compressed.
 */
export const REPORT_FORMATS = [
  'trivy',
  'nmap',
  'openvas',
  'zap',
  'nessus',
  'grype',
  'cyclonedx',
  'dependency-check',
  'sarif',
] as const;
export type ReportFormat = (typeof REPORT_FORMATS)[number];

/** A format's full name: error messages (« Rapport Nmap XML invalide »), the import's scan name, the form's picker. */
export const REPORT_FORMAT_LABELS: Record<ReportFormat, string> = {
  trivy: 'Trivy JSON',
  nmap: 'Nmap XML',
  openvas: 'OpenVAS XML',
  zap: 'OWASP ZAP XML/JSON',
  nessus: 'Nessus XML',
  grype: 'Grype JSON',
  cyclonedx: 'CycloneDX JSON',
  'dependency-check': 'OWASP Dependency-Check XML',
  sarif: 'SARIF 2.1.0',
};

/** A scan's scanner: the format its report came in, or 'manual' for a scan recorded by hand. */
export const SCANNERS = [...REPORT_FORMATS, 'manual'] as const;
export type Scanner = (typeof SCANNERS)[number];

export const SCANNER_LABELS: Record<Scanner, string> = {
  trivy: 'Trivy',
  nmap: 'Nmap',
  openvas: 'OpenVAS',
  zap: 'OWASP ZAP',
  nessus: 'Nessus',
  grype: 'Grype',
  cyclonedx: 'CycloneDX',
  'dependency-check': 'Dependency-Check',
  sarif: 'SARIF',
  manual: 'Manuel',
};

/** The file extensions the import form accepts for each format (lower case, with the dot); '.gz' for any. */
export const REPORT_FILE_EXTENSIONS: Record<ReportFormat, readonly string[]> = {
  trivy: ['.json', '.gz'],
  nmap: ['.xml', '.gz'],
  openvas: ['.xml', '.gz'],
  zap: ['.xml', '.json', '.gz'],
  nessus: ['.nessus', '.xml', '.gz'],
  grype: ['.json', '.gz'],
  cyclonedx: ['.json', '.gz'],
  'dependency-check': ['.xml', '.gz'],
  sarif: ['.sarif', '.json', '.gz'],
};
