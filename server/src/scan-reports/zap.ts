import type { FindingSeverity, Severity } from '../db/schema.ts';
import { cweIds, findingKey, isIpAddress, isObject, list, paragraphs, plainText, str, type Json } from './fields.ts';
import { child, children, childText, streamXml, type XmlElement } from './safe-xml.ts';
import { severityFromName } from './severity.ts';
import { FORMAT_LABELS, MESSAGES, ReportError, type Finding, type FindingAsset } from './types.ts';

const LABEL = FORMAT_LABELS.zap;

/** A ZAP site and its alerts, the same whether read from the XML or the JSON report. */
interface ZapSite {
  name: string | undefined;
  host: string | undefined;
  port: string | undefined;
  ssl: string | undefined;
  alerts: ZapAlert[];
}

interface ZapAlert {
  pluginid: string | undefined;
  name: string | undefined;
  riskcode: string | undefined;
  riskdesc: string | undefined;
  confidence: string | undefined;
  desc: string | undefined;
  solution: string | undefined;
  otherinfo: string | undefined;
  reference: string | undefined;
  cweid: string | undefined;
  instances: ZapInstance[];
}

interface ZapInstance {
  uri: string | undefined;
  method: string | undefined;
  param: string | undefined;
  otherinfo: string | undefined;
}

// ZAP's risk codes: 0 informational, 1 low, 2 medium, 3 high (ZAP has no critical).
const RISKS: Severity[] = ['info', 'low', 'medium', 'high'];

function severityOf(alert: ZapAlert): FindingSeverity {
  const code = Number(alert.riskcode);
  if (Number.isInteger(code) && code >= 0 && code < RISKS.length) return RISKS[code]!;
  // 'Low (Medium)': the risk, then the confidence.
  return severityFromName(alert.riskdesc?.split(/\s+/)[0]) ?? 'medium';
}

function siteAsset(site: ZapSite): FindingAsset | undefined {
  const name = site.name ?? site.host;
  if (!name) return undefined;
  const ip = isIpAddress(site.host);
  return {
    name,
    hostname: ip ? undefined : site.host,
    ip_address: ip ? site.host : undefined,
    asset_type: 'application',
  };
}

/**
 * One finding per (alert, URL, parameter): ZAP's plugin id with the place it was seen is the stable key. The
 * evidence, attack and the requests and responses (the « xml plus » report) are not copied: they carry cookies,
 * tokens and form data.
 */
function siteFindings(site: ZapSite): Finding[] {
  const asset = siteAsset(site);
  if (!asset) return [];
  const portNumber = Number(site.port);
  const port = Number.isInteger(portNumber) && portNumber > 0 && portNumber <= 65535 ? portNumber : undefined;
  const service = site.ssl === 'true' ? 'https' : site.ssl === 'false' ? 'http' : undefined;
  const findings: Finding[] = [];
  for (const alert of site.alerts) {
    // Confidence 0 is « false positive », as marked in ZAP.
    if (!alert.pluginid || alert.confidence === '0') continue;
    const title = alert.name ?? `Alerte ZAP ${alert.pluginid}`;
    const description = plainText(alert.desc);
    const solution = plainText(alert.solution);
    const references = plainText(alert.reference);
    const common = {
      asset,
      title,
      severity: severityOf(alert),
      cwe_ids: cweIds([alert.cweid]),
      port,
      protocol: port !== undefined ? 'tcp' : undefined,
      service,
      solution,
    };
    // An alert without instances (older reports) is one finding on the site.
    const instances = alert.instances.length > 0 ? alert.instances : [undefined];
    for (const instance of instances) {
      const uri = instance?.uri ?? site.name;
      const param = instance?.param || undefined;
      const place = uri
        ? `URL : ${uri}${instance?.method ? ` (${instance.method})` : ''}${param ? `, paramètre : ${param}` : ''}`
        : undefined;
      findings.push({
        ...common,
        finding_key: findingKey(`zap:${alert.pluginid}`, uri, param),
        description: paragraphs(
          description,
          place,
          plainText(instance?.otherinfo ?? alert.otherinfo) || undefined,
          references ? `Références :\n${references}` : undefined,
        ),
        location: uri,
      });
    }
  }
  return findings;
}

// --- XML (the traditional report and « xml plus »)

function xmlAlert(item: XmlElement): ZapAlert {
  const text = (name: string) => childText(item, name) || undefined;
  return {
    pluginid: text('pluginid'),
    name: text('name') ?? text('alert'),
    riskcode: text('riskcode'),
    riskdesc: text('riskdesc'),
    confidence: text('confidence'),
    desc: text('desc'),
    solution: text('solution'),
    otherinfo: text('otherinfo'),
    reference: text('reference'),
    cweid: text('cweid'),
    instances: children(child(item, 'instances'), 'instance').map((i) => ({
      uri: childText(i, 'uri') || undefined,
      method: childText(i, 'method') || undefined,
      param: childText(i, 'param') || undefined,
      otherinfo: childText(i, 'otherinfo') || undefined,
    })),
  };
}

/** OWASP ZAP XML report (`<OWASPZAPReport>`, traditional or « xml plus »): one site at a time. */
export async function parseZapXml(chunks: AsyncIterable<string>, signal?: AbortSignal): Promise<Finding[]> {
  const findings: Finding[] = [];
  await streamXml(chunks, {
    label: LABEL,
    signal,
    onRoot: (name) => {
      if (name !== 'OWASPZAPReport') throw new ReportError(400, 'report_malformed', MESSAGES.wrongRoot(LABEL, name));
    },
    select: (name, ancestors) => name === 'site' && ancestors.length === 1,
    onElement: (site) =>
      findings.push(
        ...siteFindings({
          name: site.attrs.name || undefined,
          host: site.attrs.host || undefined,
          port: site.attrs.port,
          ssl: site.attrs.ssl,
          alerts: children(child(site, 'alerts'), 'alertitem').map(xmlAlert),
        }),
      ),
  });
  return findings;
}

// --- JSON (the traditional JSON report)

/** ZAP's traditional JSON report: `{"@version": …, "site": [ … ]}`. */
export function isZapJson(doc: unknown): doc is Json {
  return isObject(doc) && '@version' in doc && (Array.isArray(doc.site) || isObject(doc.site));
}

function jsonAlert(a: Json): ZapAlert {
  return {
    pluginid: str(a.pluginid),
    name: str(a.name) ?? str(a.alert),
    riskcode: str(a.riskcode),
    riskdesc: str(a.riskdesc),
    confidence: str(a.confidence),
    desc: str(a.desc),
    solution: str(a.solution),
    otherinfo: str(a.otherinfo),
    reference: str(a.reference),
    cweid: str(a.cweid),
    instances: list(a.instances).map((i) => ({
      uri: str(i.uri),
      method: str(i.method),
      param: str(i.param),
      otherinfo: str(i.otherinfo),
    })),
  };
}

export function parseZapJson(doc: unknown): Finding[] {
  if (!isZapJson(doc)) throw new ReportError(400, 'report_malformed', MESSAGES.notZap);
  // A report of one site may carry it as an object.
  const sites = Array.isArray(doc.site) ? list(doc.site) : [doc.site as Json];
  return sites.flatMap((site) =>
    siteFindings({
      name: str(site['@name']),
      host: str(site['@host']),
      port: str(site['@port']),
      ssl: str(site['@ssl']),
      alerts: list(site.alerts).map(jsonAlert),
    }),
  );
}
