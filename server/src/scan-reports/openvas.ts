import { child, children, childText, streamXml, type XmlElement } from './safe-xml.ts';
import { CVE_RE, parseScore, severityFromName, severityFromScore } from './severity.ts';
import { FORMAT_LABELS, MESSAGES, ReportError, type Finding } from './types.ts';

const LABEL = FORMAT_LABELS.openvas;
const ROOTS = new Set(['report', 'get_reports_response']);

/** NVT tags are 'key=value|key=value' with multi-line values. */
function parseTags(raw: string | undefined): Map<string, string> {
  const tags = new Map<string, string>();
  for (const part of (raw ?? '').split('|')) {
    const eq = part.indexOf('=');
    if (eq > 0) tags.set(part.slice(0, eq).trim(), part.slice(eq + 1).trim());
  }
  return tags;
}

const clean = (text: string | undefined) => (text ?? '').replace(/[ \t]*\n[ \t]*/g, '\n').trim();

function resultCves(nvt: XmlElement | undefined): string[] {
  const fromRefs = children(child(nvt, 'refs'), 'ref')
    .filter((r) => r.attrs.type?.toLowerCase() === 'cve')
    .map((r) => (r.attrs.id ?? '').trim());
  // Older GMP versions list them as text: <cve>CVE-…, CVE-…</cve> or NOCVE.
  const fromText = (childText(nvt, 'cve') ?? '').split(/[\s,]+/);
  return [...new Set([...fromRefs, ...fromText].filter((id) => CVE_RE.test(id)))];
}

function resultFindings(result: XmlElement): Finding[] {
  const hostEl = child(result, 'host');
  const ip = hostEl?.text.trim() || undefined;
  const hostname = childText(hostEl, 'hostname') || undefined;
  const name = hostname ?? ip;
  const nvt = child(result, 'nvt');
  const oid = nvt?.attrs.oid;
  if (!name || !oid) return [];

  const score = parseScore(childText(result, 'severity')) ?? parseScore(childText(nvt, 'cvss_base'));
  const rawSeverity = Number(childText(result, 'severity'));
  // Negative severities mark false positives and errors.
  if (Number.isFinite(rawSeverity) && rawSeverity < 0) return [];
  const threat = severityFromName(childText(result, 'threat'));
  const severity = threat === 'info' ? 'info' : severityFromScore(score);

  const tags = parseTags(childText(nvt, 'tags'));
  const vector =
    tags.get('cvss_base_vector') ||
    children(child(nvt, 'severities'), 'severity')
      .map((s) => childText(s, 'value'))
      .find(Boolean) ||
    undefined;
  const portText = childText(result, 'port') ?? '';
  const portMatch = /^(\d+)\/(\w+)$/.exec(portText);
  const protocolMatch = /\/(\w+)$/.exec(portText);
  const title = childText(nvt, 'name') || childText(result, 'name') || `NVT ${oid}`;
  const description = [clean(tags.get('summary')), clean(tags.get('insight')), clean(childText(result, 'description'))]
    .filter(Boolean)
    .join('\n\n');
  const solution = clean(childText(nvt, 'solution') || tags.get('solution'));
  const base = {
    asset: { name, hostname, ip_address: ip, asset_type: 'server' as const },
    title,
    description,
    severity,
    cvss_score: score,
    cvss_vector: vector,
    port: portMatch ? Number(portMatch[1]) : undefined,
    protocol: protocolMatch?.[1],
    solution,
    location: portText || undefined,
  };
  const cves = resultCves(nvt);
  // One finding per named CVE, so each meets its CVE record; the NVT itself when it names none.
  if (cves.length === 0) return [{ ...base, finding_key: `nvt:${oid}` }];
  return cves.map((cve) => ({ ...base, finding_key: cve, cve_id: cve }));
}

/** OpenVAS / Greenbone XML report: the results of <results>, whatever the wrapping (<report><report>…). */
export async function parseOpenvas(chunks: AsyncIterable<string | Buffer>, signal?: AbortSignal): Promise<Finding[]> {
  const findings: Finding[] = [];
  await streamXml(chunks, {
    label: LABEL,
    signal,
    onRoot: (name) => {
      if (!ROOTS.has(name)) throw new ReportError(400, 'report_malformed', MESSAGES.wrongRoot(LABEL, name));
    },
    select: (name, ancestors) => name === 'result' && ancestors.at(-1) === 'results',
    onElement: (result) => findings.push(...resultFindings(result)),
  });
  return findings;
}
