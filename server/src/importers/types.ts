import type { CveReference, Severity } from '../db/schema.ts';

/** One CVE record body (from NVD or CVE 5), ready for the upsert. Dates are ISO strings (UTC). */
export interface CveRecord {
  cve_id: string;
  title: string;
  description: string;
  status: string | null;
  published_at: string | null;
  modified_at: string | null;
  cvss3_score: number | null;
  cvss3_vector: string | null;
  cvss3_severity: Severity | null;
  cvss4_score: number | null;
  cvss4_vector: string | null;
  cvss4_severity: Severity | null;
  cvss2_score: number | null;
  cvss2_vector: string | null;
  severity: Severity;
  cwe_ids: string[];
  references: CveReference[];
  source: 'nvd' | 'cve5';
}

/** One entry of the CISA KEV catalog. */
export interface KevEntry {
  cve_id: string;
  title: string;
  description: string;
  cwe_ids: string[];
  date_added: string | null;
  due_date: string | null;
  required_action: string | null;
  vendor: string | null;
  product: string | null;
  name: string | null;
  known_ransomware: string | null;
}

export interface EpssRow {
  cve_id: string;
  score: number;
  percentile: number;
  date: string | null;
}

export interface CweRow {
  id: string;
  name: string;
}

/** What a write of one batch changed. */
export interface BatchCounts {
  inserted: number;
  updated: number;
}

export type SourceKind = 'nvd' | 'cve5-jsonl' | 'cve5-json' | 'kev' | 'epss' | 'cwe';

/** Counts of one file or URL. */
export interface FileReport {
  source: string;
  kind: SourceKind;
  processed: number;
  new_cves: number;
  updated_cves: number;
  unchanged: number;
  errors: number;
  /** CWE files: rows read (their counts are not CVE counts). */
  cwes?: number;
  duration_ms: number;
}

/**
 * The outcome of an import. CVE counts are per record read (a KEV entry or EPSS row enriching an existing CVE
 * counts as an update of that CVE): processed = new_cves + updated_cves + unchanged + errors.
 */
export interface ImportCounts {
  processed: number;
  new_cves: number;
  updated_cves: number;
  unchanged: number;
  errors: number;
  /** CWE rows read from CWE files. */
  cwes: number;
  files: FileReport[];
  /** Files of a folder that are no importable kind (licences, READMEs, scanner reports…). */
  skipped: string[];
  /** The first record-level problems (at most 20), each naming its file and record. */
  error_samples: string[];
  duration_ms: number;
}

export interface ImportOptions {
  signal?: AbortSignal | undefined;
  /** Called after each written batch; percent is known when the total size of the sources is. */
  onProgress?: ((p: { processed: number; percent?: number }) => void | Promise<void>) | undefined;
  /** Only these CVE ids (the demo seed); other records are read and skipped without counting. */
  only?: ReadonlySet<string> | undefined;
  /** Records per INSERT statement (default 500). */
  batchSize?: number | undefined;
  /** Statements in flight at once (default 2: PostgreSQL then indexes on two backends while the next is read). */
  concurrency?: number | undefined;
  /** Time limit for fetching one URL, in ms (default 10 minutes). */
  fetchTimeoutMs?: number | undefined;
  /** Called after each KEV batch with the CVEs it newly marked known exploited (notifications). */
  onNewlyExploited?: ((cveIds: string[]) => Promise<unknown>) | undefined;
}

/** A source that cannot be read as announced: names the file and, where known, the line or record. */
export class ImportError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ImportError';
  }
}
