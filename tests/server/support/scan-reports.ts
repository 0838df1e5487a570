import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, expect } from 'vitest';
import {
  parseReportFile,
  ReportError,
  type Finding,
  type FormatChoice,
} from '../../../server/src/scan-reports/index.ts';

// What the report parser suites share: the shipped samples, scratch report files, and a refusal read back.

const SCANS = path.resolve(import.meta.dirname, '../../../seed-data/scans');

/** A shipped sample of seed-data/scans. */
export const scanFile = (rel: string) => path.join(SCANS, rel);

/** Writes scratch reports in a folder of the suite's own (removed after it); `ext` when a call names none. */
export function scratchReports(prefix: string, ext: string): (content: string | Buffer, fileExt?: string) => string {
  const work = mkdtempSync(path.join(tmpdir(), prefix));
  afterAll(() => rmSync(work, { recursive: true, force: true }));
  let n = 0;
  return (content, fileExt = ext) => {
    const p = path.join(work, `r${n++}.${fileExt}`);
    writeFileSync(p, content);
    return p;
  };
}

export const byKey = (findings: Finding[], key: string) => findings.find((f) => f.finding_key === key);

/** The ReportError parsing `p` ends with (the test fails when it parses). */
export async function refusal(p: string, format: FormatChoice = 'auto'): Promise<ReportError> {
  const err: unknown = await parseReportFile(p, format).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ReportError);
  return err as ReportError;
}
