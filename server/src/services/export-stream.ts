import { csvLine, type CsvValue } from '../presenters/vulnerability.ts';

export type ExportFormat = 'csv' | 'json';

/** One streamed export: how to read a keyset batch and how to write a row in each format. */
export interface ExportSpec<Row> {
  format: ExportFormat;
  /** The CSV's first line: the columns' French names. */
  csvHeader: readonly CsvValue[];
  batchSize: number;
  /** The batch after `last` (undefined: the first one). */
  batchAfter: (last: Row | undefined) => Promise<Row[]>;
  csvRow: (row: Row) => string;
  jsonRow: (row: Row) => unknown;
}

/** What to do with a row that cannot be written: it is left out (and heard here) rather than cutting the file. */
export type RowFailure = (err: unknown) => void;

/**
 * Every filtered row as CSV (with a BOM, so spreadsheets read the accents as UTF-8) or as one JSON array, read in
 * keyset batches so memory stays flat whatever the size; the next batch is read while this one is sent.
 *
 * The first batch is read before anything is sent: a query that fails there is answered as an error, not as a
 * 200 cut short. Once the file has started, a row that cannot be written is left out (`onRowFailure`).
 */
export async function openExport<Row>(
  spec: ExportSpec<Row>,
  onRowFailure: RowFailure,
): Promise<AsyncGenerator<string>> {
  const first = await spec.batchAfter(undefined);
  return exportChunks(spec, first, onRowFailure);
}

async function* exportChunks<Row>(
  spec: ExportSpec<Row>,
  first: Row[],
  onRowFailure: RowFailure,
): AsyncGenerator<string> {
  const csv = spec.format === 'csv';
  const write = (row: Row): string | undefined => {
    try {
      return csv ? spec.csvRow(row) : JSON.stringify(spec.jsonRow(row));
    } catch (err) {
      onRowFailure(err);
      return undefined;
    }
  };
  yield csv ? `\uFEFF${csvLine(spec.csvHeader)}` : '[';
  const read = (last: Row | undefined) => {
    const pending = spec.batchAfter(last);
    // Awaited below; this only keeps a client that hung up early from leaving an unhandled rejection.
    pending.catch(() => {});
    return pending;
  };
  let next = Promise.resolve(first);
  let written = 0;
  for (;;) {
    const rows = await next;
    if (rows.length === 0) break;
    const more = rows.length === spec.batchSize;
    if (more) next = read(rows.at(-1));
    const lines = rows.map(write).filter((line): line is string => line !== undefined);
    if (lines.length > 0) {
      if (csv) yield lines.join('');
      else yield (written === 0 ? '' : ',') + lines.join(',');
      written += lines.length;
    }
    if (!more) break;
  }
  if (!csv) yield ']';
}
