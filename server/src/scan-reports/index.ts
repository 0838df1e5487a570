import { stat } from 'node:fs/promises';
import { FINDING_SEVERITIES } from '../db/schema.ts';
import { isCycloneDx, parseCycloneDx } from './cyclonedx.ts';
import { parseDependencyCheck } from './dependency-check.ts';
import { isGrypeReport, parseGrype } from './grype.ts';
import { parseNessus } from './nessus.ts';
import { parseNmap } from './nmap.ts';
import { parseOpenvas } from './openvas.ts';
import { assertNoDtd } from './safe-xml.ts';
import { isSarif, parseSarif } from './sarif.ts';
import { isGzipFile, sourceAll, sourceHead, sourceText, type ReportSource } from './source.ts';
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
import { isZapJson, parseZapJson, parseZapXml } from './zap.ts';

export { FORMAT_LABELS, MESSAGES, REPORT_FORMATS, ReportError, type Finding, type ParsedReport, type ReportFormat };

export const MAX_REPORT_MB = 50;
export const MAX_REPORT_BYTES = MAX_REPORT_MB * 1024 * 1024;
export type FormatChoice = 'auto' | ReportFormat;

type Parsed = (doc: unknown) => Finding[];
type Streamed = (chunks: AsyncIterable<string>, signal?: AbortSignal) => Promise<Finding[]>;

/** JSON formats, in the order a JSON document is tried against them; `is` recognises one, `parse` checks and reads. */
const JSON_FORMATS: { format: ReportFormat; is: (doc: unknown) => boolean; parse: Parsed }[] = [
  { format: 'trivy', is: isTrivyReport, parse: parseTrivy },
  { format: 'zap', is: isZapJson, parse: parseZapJson },
  { format: 'grype', is: isGrypeReport, parse: parseGrype },
  { format: 'cyclonedx', is: isCycloneDx, parse: parseCycloneDx },
  { format: 'sarif', is: isSarif, parse: parseSarif },
];

/** XML formats: streamed, one selected element at a time. ZAP writes both XML and JSON. */
const XML_PARSERS: Partial<Record<ReportFormat, Streamed>> = {
  nmap: parseNmap,
  openvas: parseOpenvas,
  zap: parseZapXml,
  nessus: parseNessus,
  'dependency-check': parseDependencyCheck,
};

const XML_ROOTS: Record<string, ReportFormat> = {
  nmaprun: 'nmap',
  report: 'openvas',
  get_reports_response: 'openvas',
  OWASPZAPReport: 'zap',
  NessusClientData_v2: 'nessus',
};

// `<analysis>` is too common a root to say Dependency-Check alone: its namespace must say it too.
const DEPENDENCY_CHECK_NS = /\bxmlns\s*=\s*["'][^"']*(?:dependency-?check)[^"']*["']/i;

/**
 * Guesses the format from the first bytes: JSON (which one is known once parsed) or XML by its root element.
 * A DTD or entity declaration in the XML prolog is refused here already.
 */
export function detectFormat(head: string): ReportFormat | 'json' | undefined {
  const text = head.replace(/^\uFEFF/, '').trimStart();
  if (text.startsWith('{')) return 'json';
  if (!text.startsWith('<')) return undefined;
  const rootAt = text.search(/<[A-Za-z_]/);
  assertNoDtd(rootAt >= 0 ? text.slice(0, rootAt) : text);
  if (rootAt < 0) return undefined;
  const rootTag = /^<([A-Za-z_][\w.:-]*)[^>]*/.exec(text.slice(rootAt));
  const root = rootTag?.[1];
  if (root === 'analysis') return DEPENDENCY_CHECK_NS.test(rootTag![0]) ? 'dependency-check' : undefined;
  // Own keys only: a `<constructor>` root must not find Object's.
  return root !== undefined && Object.hasOwn(XML_ROOTS, root) ? XML_ROOTS[root] : undefined;
}

const SEVERITY_RANK = new Map(FINDING_SEVERITIES.map((s, i) => [s, i]));

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
 * format is checked against the content. A gzip-compressed report (told by its magic bytes) is decompressed as it
 * is read, up to MAX_REPORT_BYTES of content. Refusals are ReportErrors with a French message.
 */
export async function parseReportFile(
  filePath: string,
  format: FormatChoice = 'auto',
  signal?: AbortSignal,
): Promise<ParsedReport> {
  const { size } = await stat(filePath);
  if (size === 0) throw new ReportError(400, 'report_empty', MESSAGES.empty);
  if (size > MAX_REPORT_BYTES) throw new ReportError(413, 'report_too_large', MESSAGES.tooLarge(MAX_REPORT_MB));
  const source: ReportSource = { path: filePath, gzip: await isGzipFile(filePath), limit: MAX_REPORT_BYTES };
  const head = await sourceHead(source);
  if (source.gzip && head.trim() === '') throw new ReportError(400, 'report_empty', MESSAGES.empty);
  const detected = detectFormat(head);
  const kind = format === 'auto' ? detected : format;
  if (kind === undefined) throw unknownFormat();

  const compressed = source.gzip ? '.gz' : '';
  // ZAP writes XML and JSON: its content says which; every other format is one or the other.
  const xmlParser = kind === 'json' || (kind === 'zap' && detected === 'json') ? undefined : XML_PARSERS[kind];
  if (kind !== 'json' && xmlParser) {
    const findings = await xmlParser(sourceText(source), signal);
    return { format: kind, findings: mergeDuplicates(storable(findings)), extension: `xml${compressed}` };
  }

  const text = await sourceAll(source, signal);
  let doc: unknown;
  try {
    doc = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch {
    const label = kind === 'json' ? 'JSON' : FORMAT_LABELS[kind];
    throw new ReportError(400, 'report_malformed', MESSAGES.malformedJson(label));
  }
  if (signal?.aborted) throw signal.reason;
  const parser = kind === 'json' ? JSON_FORMATS.find((f) => f.is(doc)) : JSON_FORMATS.find((f) => f.format === kind);
  if (!parser) throw unknownFormat();
  const findings = parser.parse(doc);
  return { format: parser.format, findings: mergeDuplicates(storable(findings)), extension: `json${compressed}` };
}

export function formatLabel(format: ReportFormat): string {
  return FORMAT_LABELS[format];
}
