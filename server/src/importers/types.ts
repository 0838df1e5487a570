// The record shapes live in domain/ (the CVE repository writes them); re-exported for the importers' imports.
export type { BatchCounts, CveRecord, CweRow, EpssRow, KevEntry } from '../domain/cve-records.ts';

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
