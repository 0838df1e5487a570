import { createReadStream } from 'node:fs';
import { open, readFile, stat } from 'node:fs/promises';
import { SEVERITIES } from '../db/schema.ts';
import { parseNmap } from './nmap.ts';
import { parseOpenvas } from './openvas.ts';
import { assertNoDtd } from './safe-xml.ts';
import { isTrivyReport, parseTrivy } from './trivy.ts';
import {
  FORMAT_LABELS,
  MESSAGES,
  REPORT_FORMATS,
  ReportError,
  unknownFormat,
  type Finding,
  type ParsedReport,
  type ReportFormat,
} from './types.ts';

export { FORMAT_LABELS, MESSAGES, REPORT_FORMATS, ReportError, type Finding, type ParsedReport, type ReportFormat };

export const MAX_REPORT_MB = 50;
export const MAX_REPORT_BYTES = MAX_REPORT_MB * 1024 * 1024;
export type FormatChoice = 'auto' | ReportFormat;

export const REPORT_EXTENSIONS: Record<ReportFormat, string> = { trivy: 'json', nmap: 'xml', openvas: 'xml' };

const XML_ROOTS: Record<string, ReportFormat> = { nmaprun: 'nmap', report: 'openvas', get_reports_response: 'openvas' };

/**
 * Guesses the format from the first bytes: JSON (Trivy, confirmed once parsed) or XML by its root element.
 * A DTD or entity declaration in the XML prolog is refused here already.
 */
export function detectFormat(head: string): ReportFormat | 'json' | undefined {
  const text = head.replace(/^\uFEFF/, '').trimStart();
  if (text.startsWith('{')) return 'json';
  if (!text.startsWith('<')) return undefined;
  const rootAt = text.search(/<[A-Za-z_]/);
  assertNoDtd(rootAt >= 0 ? text.slice(0, rootAt) : text);
  const root = rootAt >= 0 ? /^<([A-Za-z_][\w.:-]*)/.exec(text.slice(rootAt))?.[1] : undefined;
  // Own keys only: a `<constructor>` root must not find Object's.
  return root !== undefined && Object.hasOwn(XML_ROOTS, root) ? XML_ROOTS[root] : undefined;
}

async function readHead(filePath: string, bytes = 64 * 1024): Promise<string> {
  const handle = await open(filePath, 'r');
  try {
    const buffer = Buffer.alloc(bytes);
    const { bytesRead } = await handle.read(buffer, 0, bytes, 0);
    return buffer.subarray(0, bytesRead).toString('utf8');
  } finally {
    await handle.close();
  }
}

async function* textChunks(filePath: string): AsyncGenerator<string> {
  let first = true;
  for await (const chunk of createReadStream(filePath, { encoding: 'utf8', highWaterMark: 256 * 1024 })) {
    yield first ? (chunk as string).replace(/^\uFEFF/, '') : (chunk as string);
    first = false;
  }
}

const SEVERITY_RANK = new Map(SEVERITIES.map((s, i) => [s, i]));

// eslint-disable-next-line no-control-regex -- the NUL character is what is removed
const NUL = /\u0000/g;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** Text PostgreSQL can store: a report's NUL characters dropped, its broken surrogates replaced by U+FFFD. */
function storable<T>(value: T): T {
  if (typeof value === 'string') return value.replace(NUL, '').replace(LONE_SURROGATE, '\uFFFD') as T;
  if (Array.isArray(value)) return value.map(storable) as T;
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, storable(v)])) as T;
  }
  return value;
}

/**
 * One finding per (asset, key): a report may list the same CVE on two ports or in two lock files. The most severe
 * copy is kept and the other places are named in its description.
 */
export function mergeDuplicates(findings: Finding[]): Finding[] {
  const byKey = new Map<string, { finding: Finding; others: Set<string> }>();
  for (const f of findings) {
    const key = `${f.asset.name}\u0000${f.finding_key}`;
    const seen = byKey.get(key);
    if (!seen) {
      byKey.set(key, { finding: f, others: new Set() });
      continue;
    }
    if (SEVERITY_RANK.get(f.severity)! < SEVERITY_RANK.get(seen.finding.severity)!) {
      if (seen.finding.location) seen.others.add(seen.finding.location);
      seen.finding = f;
    } else if (f.location) {
      seen.others.add(f.location);
    }
  }
  return [...byKey.values()].map(({ finding, others }) => {
    others.delete(finding.location ?? '');
    if (others.size === 0) return finding;
    const also = `Également détecté : ${[...others].join(', ')}.`;
    return { ...finding, description: finding.description ? `${finding.description}\n\n${also}` : also };
  });
}

/**
 * Parses a stored report into normalised findings. `format` 'auto' detects it from the content; an explicit
 * format is checked against the content. Refusals are ReportErrors with a French message.
 */
export async function parseReportFile(
  filePath: string,
  format: FormatChoice = 'auto',
  signal?: AbortSignal,
): Promise<ParsedReport> {
  const { size } = await stat(filePath);
  if (size === 0) throw new ReportError(400, 'report_empty', MESSAGES.empty);
  if (size > MAX_REPORT_BYTES) throw new ReportError(413, 'report_too_large', MESSAGES.tooLarge(MAX_REPORT_MB));
  const detected = detectFormat(await readHead(filePath));
  const kind = format === 'auto' ? detected : format;
  if (kind === undefined) throw unknownFormat();

  let findings: Finding[];
  if (kind === 'json' || kind === 'trivy') {
    let doc: unknown;
    try {
      doc = JSON.parse((await readFile(filePath, 'utf8')).replace(/^\uFEFF/, ''));
    } catch {
      throw new ReportError(400, 'report_malformed', MESSAGES.malformedJson(kind === 'json' ? 'JSON' : 'Trivy JSON'));
    }
    if (signal?.aborted) throw signal.reason;
    if (kind === 'json' && !isTrivyReport(doc)) throw unknownFormat();
    findings = parseTrivy(doc);
    return { format: 'trivy', findings: mergeDuplicates(storable(findings)) };
  }
  findings =
    kind === 'nmap' ? await parseNmap(textChunks(filePath), signal) : await parseOpenvas(textChunks(filePath), signal);
  return { format: kind, findings: mergeDuplicates(storable(findings)) };
}

export function formatLabel(format: ReportFormat): string {
  return FORMAT_LABELS[format];
}
