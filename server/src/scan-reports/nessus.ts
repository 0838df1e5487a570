import type { AssetType, Severity } from '../db/schema.ts';
import { cvssOf, cweIds, findingKey, isIpAddress, paragraphs, plainText, preferredCvss } from './fields.ts';
import { child, children, childText, streamXml, type XmlElement } from './safe-xml.ts';
import { CVE_RE, severityFromName, severityFromScore } from './severity.ts';
import { FORMAT_LABELS, MESSAGES, ReportError, type Finding, type FindingAsset } from './types.ts';

const LABEL = FORMAT_LABELS.nessus;

// Nessus's severity attribute: 0 info, 1 low, 2 medium, 3 high, 4 critical.
const SEVERITIES: Severity[] = ['info', 'low', 'medium', 'high', 'critical'];

// Nessus's « system-type » host property, for the few that are not servers.
const SYSTEM_TYPES: Record<string, AssetType> = {
  firewall: 'network',
  router: 'network',
  switch: 'network',
  'load-balancer': 'network',
  'wireless-access-point': 'network',
  printer: 'iot',
  camera: 'iot',
  embedded: 'iot',
  hypervisor: 'server',
  'general-purpose': 'server',
};

function hostAsset(host: XmlElement): FindingAsset | undefined {
  const props = new Map(
    children(child(host, 'HostProperties'), 'tag').map((t) => [t.attrs.name ?? '', t.text.trim()] as const),
  );
  const prop = (name: string) => props.get(name) || undefined;
  // The target as it was scanned names the asset; Nessus also reports its address and resolved names.
  const name = host.attrs.name?.trim() || prop('host-fqdn') || prop('host-ip');
  if (!name) return undefined;
  const ip = prop('host-ip') ?? (isIpAddress(name) ? name : undefined);
  const hostname = prop('host-fqdn') ?? prop('netbios-name') ?? (isIpAddress(name) ? undefined : name);
  const systemType = prop('system-type')?.toLowerCase();
  return {
    name,
    hostname,
    ip_address: ip,
    operating_system: prop('operating-system') ?? prop('os'),
    asset_type:
      systemType !== undefined && Object.hasOwn(SYSTEM_TYPES, systemType) ? SYSTEM_TYPES[systemType]! : 'server',
  };
}

const NOT_APPLICABLE = /^n\/?a$/i;

function itemFindings(asset: FindingAsset, item: XmlElement): Finding[] {
  const pluginId = item.attrs.pluginID?.trim();
  if (!pluginId) return [];
  const text = (name: string) => childText(item, name) || undefined;
  const rawPort = Number(item.attrs.port);
  const portNumber = Number.isInteger(rawPort) && rawPort >= 0 && rawPort <= 65535 ? rawPort : 0;
  const protocol = item.attrs.protocol?.trim() || 'tcp';
  const serviceName = item.attrs.svc_name?.trim();
  const cvss = preferredCvss([
    cvssOf(text('cvss3_base_score'), text('cvss3_vector'), 3),
    cvssOf(text('cvss4_base_score'), text('cvss4_vector'), 4),
    // Nessus writes v2 vectors as 'CVSS2#AV:N/…'.
    cvssOf(text('cvss_base_score'), text('cvss_vector')?.replace(/^CVSS2#/, ''), 2),
  ]);
  const level = Number(item.attrs.severity);
  const severity =
    (Number.isInteger(level) && level >= 0 && level < SEVERITIES.length ? SEVERITIES[level] : undefined) ??
    severityFromName(text('risk_factor')) ??
    severityFromScore(cvss?.score);
  const output = plainText(text('plugin_output'));
  const solution = plainText(text('solution'));
  const location = `${portNumber}/${protocol}`;
  const base = {
    asset,
    title: text('plugin_name') ?? item.attrs.pluginName?.trim() ?? `Plugin Nessus ${pluginId}`,
    description: paragraphs(
      plainText(text('synopsis')),
      plainText(text('description')),
      output ? `Résultat du plugin :\n${output}` : undefined,
    ),
    severity,
    cvss_score: cvss?.score,
    cvss_vector: cvss?.vector,
    cwe_ids: cweIds([
      ...children(item, 'cwe').map((c) => c.text),
      ...children(item, 'xref')
        .map((x) => x.text.trim())
        .filter((x) => /^CWE:/i.test(x)),
    ]),
    // Port 0 is the host itself.
    port: portNumber > 0 ? portNumber : undefined,
    protocol,
    service: serviceName && serviceName !== 'general' ? serviceName : undefined,
    solution: NOT_APPLICABLE.test(solution) ? '' : solution,
    location,
  };
  const cves = [...new Set(children(item, 'cve').map((c) => c.text.trim()))].filter((id) => CVE_RE.test(id));
  // One finding per named CVE, so each meets its CVE record; the plugin on its port when it names none.
  if (cves.length === 0) return [{ ...base, finding_key: findingKey(`nessus:${pluginId}`, location) }];
  return cves.map((cve) => ({ ...base, finding_key: cve, cve_id: cve }));
}

/** Nessus v2 XML (`.nessus`, `<NessusClientData_v2>`): one asset per ReportHost, one host in memory at a time. */
export async function parseNessus(chunks: AsyncIterable<string>, signal?: AbortSignal): Promise<Finding[]> {
  const findings: Finding[] = [];
  await streamXml(chunks, {
    label: LABEL,
    signal,
    onRoot: (name) => {
      if (name !== 'NessusClientData_v2') {
        throw new ReportError(400, 'report_malformed', MESSAGES.wrongRoot(LABEL, name));
      }
    },
    select: (name, ancestors) => name === 'ReportHost' && ancestors.at(-1) === 'Report',
    onElement: (host) => {
      const asset = hostAsset(host);
      if (!asset) return;
      for (const item of children(host, 'ReportItem')) findings.push(...itemFindings(asset, item));
    },
  });
  return findings;
}
