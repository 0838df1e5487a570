import path from 'node:path';
import { createInterface } from 'node:readline';
import { Transform, type Readable } from 'node:stream';
import { parse as parseCsv } from 'csv-parse';
import { sql } from 'drizzle-orm';
import { projectPath } from '../config.ts';
import type { Db } from '../db/client.ts';
import { applyEpssRows, applyKevEntries, upsertCveRecords, upsertCwes } from '../repositories/cves.ts';
import { epssDateFromComment, epssRow, cweRow } from './csv-rows.ts';
import { cve5Record } from './cve5.ts';
import { jsonArrayItems } from './json-array.ts';
import { kevEntry } from './kev.ts';
import { nvdRecord } from './nvd.ts';
import { obj, RecordError } from './record.ts';
import { expandSources, openSource, type SourceEntry } from './sources.ts';
import {
  ImportError,
  type BatchCounts,
  type CveRecord,
  type CweRow,
  type EpssRow,
  type FileReport,
  type ImportCounts,
  type ImportOptions,
  type KevEntry,
  type SourceKind,
} from './types.ts';

export { ImportError } from './types.ts';
export { isUrl } from './sources.ts';
export type { ImportCounts, ImportOptions, FileReport, SourceKind } from './types.ts';

const DEFAULT_BATCH = 1000;
const DEFAULT_CONCURRENCY = 3;
const MAX_ERROR_SAMPLES = 20;
const ANALYZE_THRESHOLD = 5000;

/** The repo's shipped data (seed-data/), the default when VIGIE_CVE_SOURCES is not set. */
export const SEED_DATA_DIR = projectPath('seed-data');

/** VIGIE_CVE_SOURCES: comma-separated files, folders or http(s) URLs; default the repo's seed-data folder. */
export function configuredSources(env: NodeJS.ProcessEnv = process.env): string[] {
  const list = (env.VIGIE_CVE_SOURCES ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  return list.length > 0 ? list : [SEED_DATA_DIR];
}

function throwIfAborted(signal: AbortSignal | undefined) {
  if (signal?.aborted) throw signal.reason instanceof Error ? signal.reason : new Error('import annulé');
}

/** What one item of a source becomes; errors are collected per file. */
type Item =
  | { kind: 'record'; value: CveRecord }
  | { kind: 'kev'; value: KevEntry }
  | { kind: 'epss'; value: EpssRow }
  | { kind: 'cwe'; value: CweRow };

interface Located {
  /** Produces the item; a RecordError is a record-level problem (counted), anything else stops the import. */
  build: () => Item;
  /** "ligne 12" or "enregistrement 3 (ligne 40)". */
  where: string;
  /** The id seen before building, for the demo filter (undefined when unknown before parsing). */
  id?: string | undefined;
}

/** Items of a source, lazily built, in file order. */
async function* itemsOf(
  kind: SourceKind,
  input: Readable,
  label: string,
  only: ReadonlySet<string> | undefined,
): AsyncGenerator<Located> {
  const stream = only && kind === 'epss' ? input.pipe(keepLinesOf(only)) : input;
  if (stream !== input) input.on('error', (err) => stream.destroy(err));
  switch (kind) {
    case 'nvd':
      for await (const it of jsonArrayItems(stream, 'vulnerabilities', label)) {
        const id = peekId(obj(obj(it.value)?.cve)?.id);
        yield { id, build: () => ({ kind: 'record', value: nvdRecord(it.value) }), where: whereOf(it) };
      }
      return;
    case 'kev':
      for await (const it of jsonArrayItems(stream, 'vulnerabilities', label)) {
        const id = peekId(obj(it.value)?.cveID);
        yield { id, build: () => ({ kind: 'kev', value: kevEntry(it.value) }), where: whereOf(it) };
      }
      return;
    case 'cve5-json': {
      // One record per file (cvelistV5 layout): small files, read whole.
      const chunks: Buffer[] = [];
      for await (const c of stream) chunks.push(c as Buffer);
      let value: unknown;
      try {
        value = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        throw new ImportError(`${label} : JSON invalide.`);
      }
      yield { build: () => ({ kind: 'record', value: cve5Record(value) }), where: 'enregistrement 1' };
      return;
    }
    case 'cve5-jsonl': {
      const lines = createInterface({ input: stream, crlfDelay: Infinity });
      let n = 0;
      for await (const line of lines) {
        n++;
        if (line.trim() === '') continue;
        const lineNo = n;
        // Cheap id peek so a filtered import (the demo seed) parses only the records it keeps.
        const at = line.indexOf('"cveId"');
        const id = at < 0 ? undefined : peekId(/^"cveId"\s*:\s*"([^"]{1,40})"/.exec(line.slice(at, at + 60))?.[1]);
        yield {
          id,
          where: `ligne ${lineNo}`,
          build: () => {
            let value: unknown;
            try {
              value = JSON.parse(line);
            } catch {
              throw new ImportError(`${label} : ligne ${lineNo} : JSON invalide.`);
            }
            return { kind: 'record', value: cve5Record(value) };
          },
        };
      }
      return;
    }
    case 'epss':
    case 'cwe': {
      let fileDate: string | null = null;
      if (kind === 'epss') {
        // csv-parse drops the '#model_version…' comment: read the score date from it (before piping).
        stream.once('data', (chunk: Buffer) => {
          const first = chunk.toString('utf8', 0, Math.min(chunk.length, 512)).split('\n', 1)[0] ?? '';
          if (first.startsWith('#')) fileDate = epssDateFromComment(first);
        });
      }
      const parser = stream.pipe(
        parseCsv({
          columns: (header: string[]) => header.map((h) => h.trim().toLowerCase()),
          comment: '#',
          comment_no_infix: true,
          relax_column_count: true,
          skip_empty_lines: true,
          bom: true,
          info: true,
        }),
      );
      stream.on('error', (err) => parser.destroy(err));
      try {
        for await (const entry of parser) {
          const { record, info } = entry as { record: Record<string, string>; info: { lines: number } };
          const where = `ligne ${info.lines}`;
          if (kind === 'epss') {
            const date = fileDate;
            yield { build: () => ({ kind: 'epss', value: epssRow(record, date) }), where };
          } else {
            yield { build: () => ({ kind: 'cwe', value: cweRow(record) }), where };
          }
        }
      } catch (err) {
        if (err instanceof ImportError) throw err;
        const line = (err as { lines?: number }).lines;
        throw new ImportError(`${label} : CSV invalide${line ? ` à la ligne ${line}` : ''}.`);
      }
      return;
    }
  }
}

function peekId(v: unknown): string | undefined {
  return typeof v === 'string' ? v.trim().toUpperCase() : undefined;
}

/**
 * For a filtered import of a CSV whose rows are one line each (EPSS): drops the lines of other CVEs before the
 * CSV parser sees them. Comment and header lines pass.
 */
function keepLinesOf(only: ReadonlySet<string>): Transform {
  let rest = '';
  let lineNo = 0;
  const keep = (line: string) => {
    lineNo++;
    if (lineNo <= 2 || line.startsWith('#')) return true;
    const first = line.slice(0, line.indexOf(',')).replace(/"/g, '').trim().toUpperCase();
    return only.has(first);
  };
  return new Transform({
    transform(chunk: Buffer, _enc, done) {
      const lines = (rest + chunk.toString('utf8')).split('\n');
      rest = lines.pop() ?? '';
      const kept = lines.filter(keep);
      done(null, kept.length ? `${kept.join('\n')}\n` : '');
    },
    flush(done) {
      done(null, rest && keep(rest) ? rest : '');
    },
  });
}

function whereOf(it: { index: number; line: number }): string {
  return `enregistrement ${it.index} (ligne ${it.line})`;
}

/**
 * Writes batches while the next ones are being read: up to `concurrency` statements in flight, so parsing (this
 * process) and indexing (the database, one backend per pooled connection) overlap. Each batch is sorted by key,
 * so two batches touching the same rows lock them in the same order and cannot deadlock. On a single connection
 * (PGlite, a transaction) the statements simply queue.
 */
class BatchWriter<T> {
  private batch: T[] = [];
  private inFlight: Promise<void>[] = [];

  constructor(
    private readonly size: number,
    private readonly concurrency: number,
    private readonly key: (row: T) => string,
    private readonly write: (rows: T[]) => Promise<void>,
  ) {}

  async push(row: T): Promise<boolean> {
    this.batch.push(row);
    if (this.batch.length < this.size) return false;
    await this.flush();
    return true;
  }

  async flush(): Promise<void> {
    while (this.inFlight.length >= this.concurrency) await this.inFlight.shift();
    const rows = this.batch;
    this.batch = [];
    if (rows.length === 0) return;
    rows.sort((a, b) => (this.key(a) < this.key(b) ? -1 : this.key(a) > this.key(b) ? 1 : 0));
    const pending = this.write(rows);
    // Marked handled now; the error still surfaces when it is awaited.
    pending.catch(() => {});
    this.inFlight.push(pending);
  }

  async finish(): Promise<void> {
    await this.flush();
    while (this.inFlight.length > 0) await this.inFlight.shift();
  }

  /** Waits for the statements in flight, ignoring their outcome (before giving up on an error). */
  async settle(): Promise<void> {
    await Promise.allSettled(this.inFlight);
    this.inFlight = [];
  }
}

function emptyReport(source: string, kind: SourceKind): FileReport {
  return { source, kind, processed: 0, new_cves: 0, updated_cves: 0, unchanged: 0, errors: 0, duration_ms: 0 };
}

/** The counts of an import before anything is read. */
function emptyCounts(skipped: string[]): ImportCounts {
  return {
    processed: 0,
    new_cves: 0,
    updated_cves: 0,
    unchanged: 0,
    errors: 0,
    cwes: 0,
    files: [],
    skipped,
    error_samples: [],
    duration_ms: 0,
  };
}

/**
 * Imports CVE data from files, folders (each file's kind detected from its content) and http(s) URLs: NVD API 2.0
 * JSON (feeds and API pages, .json or .json.gz), CVE JSON 5 (JSON lines or CVE-*.json files), the CISA KEV JSON,
 * EPSS CSV and CWE CSV. Streams every source (memory bounded by one batch) and upserts 500 records per statement.
 * Idempotent: re-importing the same data changes nothing. Rows written before an error stay valid.
 */
export async function importSources(
  db: Db,
  sources: readonly string[],
  opts: ImportOptions = {},
): Promise<ImportCounts> {
  const started = performance.now();
  const { entries, skipped } = await expandSources(sources);
  const totals = emptyCounts(skipped.map((s) => path.relative(process.cwd(), s) || s));
  const totalBytes = entries.every((e) => e.size !== undefined)
    ? entries.reduce((sum, e) => sum + (e.size ?? 0), 0)
    : undefined;
  let bytesBefore = 0;
  for (const entry of entries) {
    throwIfAborted(opts.signal);
    const report = await importEntry(db, entry, opts, totals, (bytesNow) => {
      if (!totalBytes) return undefined;
      return Math.min(100, Math.round(((bytesBefore + bytesNow) / totalBytes) * 1000) / 10);
    });
    bytesBefore += entry.size ?? 0;
    totals.files.push(report);
  }
  // After a large load the planner needs fresh statistics (autovacuum would get there, later).
  if (totals.new_cves + totals.updated_cves >= ANALYZE_THRESHOLD) await db.execute(sql`analyze cves`);
  totals.duration_ms = Math.round(performance.now() - started);
  await opts.onProgress?.({ processed: totals.processed, percent: 100 });
  return totals;
}

/** Imports one already-opened stream of a known kind (the bench feeds generated data through this). */
export async function importStream(
  db: Db,
  kind: SourceKind,
  stream: Readable,
  label: string,
  opts: ImportOptions = {},
): Promise<ImportCounts> {
  const started = performance.now();
  const totals = emptyCounts([]);
  totals.files.push(await consume(db, kind, stream, label, opts, totals, () => undefined));
  totals.duration_ms = Math.round(performance.now() - started);
  return totals;
}

async function importEntry(
  db: Db,
  entry: SourceEntry,
  opts: ImportOptions,
  totals: ImportCounts,
  percentOf: (bytes: number) => number | undefined,
): Promise<FileReport> {
  const label = entry.isUrl ? entry.location : path.relative(process.cwd(), entry.location) || entry.location;
  const opened = await openSource(entry, opts);
  try {
    return await consume(db, opened.kind, opened.stream, label, opts, totals, () => percentOf(opened.bytesRead()));
  } finally {
    opened.stream.destroy();
  }
}

async function consume(
  db: Db,
  kind: SourceKind,
  stream: Readable,
  label: string,
  opts: ImportOptions,
  totals: ImportCounts,
  percent: () => number | undefined,
): Promise<FileReport> {
  const started = performance.now();
  const report = emptyReport(label, kind);
  const size = opts.batchSize ?? DEFAULT_BATCH;
  const only = opts.only;

  const account = (processed: number, counts: BatchCounts) => {
    const unchanged = processed - counts.inserted - counts.updated;
    report.new_cves += counts.inserted;
    report.updated_cves += counts.updated;
    report.unchanged += unchanged;
    totals.new_cves += counts.inserted;
    totals.updated_cves += counts.updated;
    totals.unchanged += unchanged;
  };
  const progress = async () => {
    const p = percent();
    await opts.onProgress?.({ processed: totals.processed, ...(p !== undefined ? { percent: p } : {}) });
  };

  const n = opts.concurrency ?? DEFAULT_CONCURRENCY;
  const byCve = (r: { cve_id: string }) => r.cve_id;
  const records = new BatchWriter<CveRecord>(size, n, byCve, async (rows) =>
    account(rows.length, await upsertCveRecords(db, rows)),
  );
  const kevs = new BatchWriter<KevEntry>(size, n, byCve, async (rows) => {
    const counts = await applyKevEntries(db, rows);
    account(rows.length, counts);
    if (counts.newlyExploited.length > 0) await opts.onNewlyExploited?.(counts.newlyExploited);
  });
  const epss = new BatchWriter<EpssRow>(size, n, byCve, async (rows) => {
    const updated = await applyEpssRows(db, rows);
    account(rows.length, { inserted: 0, updated });
  });
  const cweWriter = new BatchWriter<CweRow>(
    size,
    n,
    (r) => r.id,
    async (rows) => {
      await upsertCwes(db, rows);
    },
  );
  const writers = [records, kevs, epss, cweWriter];
  try {
    await readItems();
  } catch (err) {
    for (const w of writers) await w.settle();
    throw err;
  }
  for (const w of writers) await w.finish();
  report.duration_ms = Math.round(performance.now() - started);
  await progress();
  return report;

  async function readItems() {
    for await (const located of itemsOf(kind, stream, label, only)) {
      if (only && located.id !== undefined && !only.has(located.id)) continue;
      let item: Item;
      try {
        item = located.build();
      } catch (err) {
        if (!(err instanceof RecordError)) throw err;
        report.processed++;
        report.errors++;
        totals.processed++;
        totals.errors++;
        if (totals.error_samples.length < MAX_ERROR_SAMPLES) {
          totals.error_samples.push(`${label} : ${located.where} : ${err.message}`);
        }
        continue;
      }
      if (item.kind === 'cwe') {
        report.cwes = (report.cwes ?? 0) + 1;
        totals.cwes++;
        await cweWriter.push(item.value);
        continue;
      }
      if (only && !only.has(item.value.cve_id)) continue;
      report.processed++;
      totals.processed++;
      const flushed =
        item.kind === 'record'
          ? await records.push(item.value)
          : item.kind === 'kev'
            ? await kevs.push(item.value)
            : await epss.push(item.value);
      if (flushed) {
        throwIfAborted(opts.signal);
        await progress();
      }
    }
  }
}
