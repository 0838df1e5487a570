import { child, children, descendants, streamXml, type XmlElement } from './safe-xml.ts';
import { severityFromScore, parseScore, CVE_RE } from './severity.ts';
import { FORMAT_LABELS, MESSAGES, ReportError, type Finding, type FindingAsset } from './types.ts';

const LABEL = FORMAT_LABELS.nmap;

function hostAsset(host: XmlElement): FindingAsset | undefined {
  const addresses = children(host, 'address');
  const ip = (addresses.find((a) => a.attrs.addrtype === 'ipv4') ?? addresses.find((a) => a.attrs.addrtype === 'ipv6'))
    ?.attrs.addr;
  const names = children(child(host, 'hostnames'), 'hostname');
  // The name the operator typed wins over reverse DNS.
  const hostname = (names.find((h) => h.attrs.type === 'user') ?? names[0])?.attrs.name;
  const name = hostname || ip;
  if (!name) return undefined;
  const os = child(child(host, 'os'), 'osmatch')?.attrs.name;
  return {
    name,
    hostname: hostname || undefined,
    ip_address: ip,
    operating_system: os || undefined,
    asset_type: 'server',
  };
}

function serviceLabel(service: XmlElement | undefined): string {
  if (!service) return '';
  const { product, version, extrainfo } = service.attrs;
  return [product, version, extrainfo ? `(${extrainfo})` : undefined].filter(Boolean).join(' ');
}

/** CVE entries of the vulners NSE script: its structured tables, else the text output of older versions. */
function vulnersCves(script: XmlElement): { id: string; cvss: number | undefined }[] {
  const out: { id: string; cvss: number | undefined }[] = [];
  for (const table of descendants(script, 'table')) {
    const elems = new Map(children(table, 'elem').map((e) => [e.attrs.key, e.text.trim()]));
    const id = elems.get('id');
    if (id && CVE_RE.test(id) && (elems.get('type') ?? 'cve') === 'cve') {
      out.push({ id, cvss: parseScore(elems.get('cvss')) });
    }
  }
  if (out.length === 0) {
    for (const m of (script.attrs.output ?? '').matchAll(/\b(CVE-\d{4}-\d{4,})\s+(\d+(?:\.\d+)?)/g)) {
      out.push({ id: m[1]!, cvss: parseScore(m[2]) });
    }
  }
  return out;
}

function hostFindings(host: XmlElement): Finding[] {
  if (child(host, 'status')?.attrs.state === 'down') return [];
  const asset = hostAsset(host);
  if (!asset) return [];
  const findings: Finding[] = [];
  for (const port of children(child(host, 'ports'), 'port')) {
    if (child(port, 'state')?.attrs.state !== 'open') continue;
    const protocol = port.attrs.protocol ?? 'tcp';
    const portNumber = Number(port.attrs.portid);
    if (!Number.isInteger(portNumber) || portNumber < 0 || portNumber > 65535) continue;
    const service = child(port, 'service');
    const serviceName = service?.attrs.name || undefined;
    const product = serviceLabel(service);
    const location = `${portNumber}/${protocol}`;
    findings.push({
      asset,
      finding_key: `port:${protocol}/${portNumber}`,
      title: `Port ${location} ouvert${serviceName ? ` (${serviceName})` : ''}`,
      description: product ? `Service détecté : ${product}.` : 'Port ouvert détecté par Nmap.',
      severity: 'info',
      port: portNumber,
      protocol,
      service: serviceName,
      solution: 'Vérifier que ce service doit être exposé ; sinon, le fermer ou le filtrer.',
      location,
    });
    for (const script of children(port, 'script')) {
      if (script.attrs.id !== 'vulners') continue;
      for (const cve of vulnersCves(script)) {
        findings.push({
          asset,
          finding_key: cve.id,
          cve_id: cve.id,
          title: `${cve.id}${product || serviceName ? ` — ${product || serviceName}` : ''}`,
          description: `Vulnérabilité signalée par le script vulners de Nmap sur le port ${location}.`,
          severity: severityFromScore(cve.cvss),
          cvss_score: cve.cvss,
          port: portNumber,
          protocol,
          service: serviceName,
          solution: product ? `Mettre à jour ${product} vers une version corrigée.` : '',
          location,
        });
      }
    }
  }
  return findings;
}

/** Nmap XML (-oX): one asset per host that is up; open ports as 'info' findings, vulners CVEs with their CVSS. */
export async function parseNmap(chunks: AsyncIterable<string | Buffer>, signal?: AbortSignal): Promise<Finding[]> {
  const findings: Finding[] = [];
  await streamXml(chunks, {
    label: LABEL,
    signal,
    onRoot: (name) => {
      if (name !== 'nmaprun') throw new ReportError(400, 'report_malformed', MESSAGES.wrongRoot(LABEL, name));
    },
    select: (name, ancestors) => name === 'host' && ancestors.length === 1,
    onElement: (host) => findings.push(...hostFindings(host)),
  });
  return findings;
}
