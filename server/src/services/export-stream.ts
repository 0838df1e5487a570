import { csvLine, type CsvValue } from '../presenters/vulnerability.ts';

export type ExportFormat = 'csv' | 'json';

/** One streamed export: how to read a keyset batch and how to write a row in each format. */
export interface ExportSpec<Row> {
  format: ExportFormat;
  csvColumns: readonly CsvValue[];
  batchSize: number;
  /** The batch after `last` (undefined: the first one). */
  batchAfter: (last: Row | undefined) => Promise<Row[]>;
  csvRow: (row: Row) => string;
  jsonRow: (row: Row) => unknown;
}

/**
 * Every filtered row as CSV (with a BOM, so spreadsheets read the accents as UTF-8) or as one JSON array, read in
 * keyset batches so memory stays flat whatever the size; the next batch is read while this one is sent.
 */
export async function* exportChunks<Row>(spec: ExportSpec<Row>): AsyncGenerator<string> {
  const csv = spec.format === 'csv';
  yield csv ? `\uFEFF${csvLine(spec.csvColumns)}` : '[';
  const read = (last: Row | undefined) => {
    const pending = spec.batchAfter(last);
    // Awaited below; this only keeps a client that hung up early from leaving an unhandled rejection.
    pending.catch(() => {});
    return pending;
  };
  let next = read(undefined);
  let first = true;
  for (;;) {
    const rows = await next;
    if (rows.length === 0) break;
    const more = rows.length === spec.batchSize;
    if (more) next = read(rows.at(-1));
    if (csv) yield rows.map(spec.csvRow).join('');
    else yield (first ? '' : ',') + rows.map((r) => JSON.stringify(spec.jsonRow(r))).join(',');
    first = false;
    if (!more) break;
  }
  if (!csv) yield ']';
}
