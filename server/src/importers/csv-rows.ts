import { calendarDate, cveId, num, RecordError } from './record.ts';
import type { CweRow, EpssRow } from './types.ts';

/** FIRST's first line: '#model_version:v2023.03.01,score_date:2023-11-02T00:00:00+0000'. */
export function epssDateFromComment(line: string): string | null {
  const m = /score_date:(\d{4}-\d{2}-\d{2})/.exec(line);
  return m?.[1] ?? null;
}

/** One EPSS row: cve, epss, percentile (and date when the file has that column). */
export function epssRow(row: Record<string, string>, fileDate: string | null): EpssRow {
  const score = num(row.epss);
  const percentile = num(row.percentile);
  const id = cveId(row.cve);
  if (score === undefined || score < 0 || score > 1) throw new RecordError(`score EPSS invalide pour ${id}`);
  if (percentile === undefined || percentile < 0 || percentile > 1) {
    throw new RecordError(`percentile EPSS invalide pour ${id}`);
  }
  return { cve_id: id, score, percentile, date: row.date ? calendarDate(row.date, 'date') : fileDate };
}

/** One CWE row: 'cwe_id,name' (CWE-79) or MITRE's export 'CWE-ID,Name,…' (79). */
export function cweRow(row: Record<string, string>): CweRow {
  const rawId = (row.cwe_id ?? row['cwe-id'] ?? '').trim();
  const m = /^(?:CWE-)?(\d+)$/i.exec(rawId);
  const name = (row.name ?? '').trim();
  if (!m || !name) throw new RecordError(`ligne CWE invalide (${rawId.slice(0, 20)})`);
  return { id: `CWE-${m[1]}`, name: name.slice(0, 500) };
}
