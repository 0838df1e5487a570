import {
  cvssOf,
  cweIds,
  findingKey,
  paragraphs,
  parsePurl,
  plainText,
  preferredCvss,
  purlPackageName,
  type Cvss,
} from './fields.ts';
import { child, children, childText, descendants, streamXml, type XmlElement } from './safe-xml.ts';
import { CVE_RE, severityFromName, severityFromScore } from './severity.ts';
import { FORMAT_LABELS, MESSAGES, ReportError, type Finding, type FindingAsset } from './types.ts';

const LABEL = FORMAT_LABELS['dependency-check'];

// Dependency-Check spells CVSS metrics out (NETWORK, LOW, NONE, UNCHANGED…); their first letter is the vector's.
const letter = (value: string | undefined) => value?.trim().charAt(0).toUpperCase() || undefined;

function vectorOf(metrics: [string, string | undefined][]): string | undefined {
  const parts = metrics.map(([key, value]) => (letter(value) ? `${key}:${letter(value)}` : undefined));
  return parts.every(Boolean) ? parts.join('/') : undefined;
}

function cvssV3(el: XmlElement | undefined): Cvss | undefined {
  if (!el) return undefined;
  const t = (name: string) => childText(el, name);
  const base = vectorOf([
    ['AV', t('attackVector')],
    ['AC', t('attackComplexity')],
    ['PR', t('privilegesRequired')],
    ['UI', t('userInteraction')],
    ['S', t('scope')],
    ['C', t('confidentialityImpact')],
    ['I', t('integrityImpact')],
    ['A', t('availabilityImpact')],
  ]);
  const version = t('version');
  // Without its version (older reports) the vector stays without the 'CVSS:3.x/' prefix rather than guess one.
  const vector = base && version && /^3\.\d$/.test(version) ? `CVSS:${version}/${base}` : base;
  return cvssOf(t('baseScore'), vector, 3);
}

function cvssV2(vulnerability: XmlElement): Cvss | undefined {
  const el = child(vulnerability, 'cvssV2');
  // Reports before 5.0 put the v2 metrics on the vulnerability itself, prefixed 'cvss'.
  const t = el
    ? (name: string) => childText(el, name)
    : (name: string) => childText(vulnerability, `cvss${name.charAt(0).toUpperCase()}${name.slice(1)}`);
  const vector = vectorOf([
    ['AV', t('accessVector')],
    ['AC', t('accessComplexity')],
    // 'authenticationr' is how Dependency-Check's schema spells it.
    ['Au', t('authenticationr') ?? t('authentication')],
    ['C', t('confidentialImpact')],
    ['I', t('integrityImpact')],
    ['A', t('availabilityImpact')],
  ]);
  return cvssOf(el ? childText(el, 'score') : childText(vulnerability, 'cvssScore'), vector, 2);
}

function cvssV4(el: XmlElement | undefined): Cvss | undefined {
  return el ? cvssOf(childText(el, 'baseScore'), childText(el, 'vectorString'), 4) : undefined;
}

// A description wrapped by the report's indentation reads as one paragraph again; blank lines stay.
const unwrap = (text: string) => text.replace(/([^\n])\n(?=[^\n])/g, '$1 ');

interface Package {
  name: string;
  version: string | undefined;
}

/** The dependency's package: its package URL when identified, else its file name (the last of 'a.ear: b.jar'). */
function packageOf(dependency: XmlElement): Package {
  const purl = descendants(child(dependency, 'identifiers') ?? dependency, 'package')
    .map((p) => parsePurl(childText(p, 'id')))
    .find(Boolean);
  if (purl) return { name: purlPackageName(purl), version: purl.version };
  const fileName = childText(dependency, 'fileName') ?? '';
  const version = children(child(dependency, 'evidenceCollected'), 'evidence')
    .filter((e) => e.attrs.type === 'version' && childText(e, 'name') === 'version')
    .map((e) => childText(e, 'value'))
    .find(Boolean);
  return { name: fileName.split(':').at(-1)!.trim() || fileName, version };
}

function vulnerabilityFinding(asset: FindingAsset, dependency: XmlElement, v: XmlElement): Finding | undefined {
  const name = childText(v, 'name');
  if (!name) return undefined;
  const source = v.attrs.source?.trim();
  // A bare number is an advisory of its source (NPM 1500): the source makes it an id.
  const id = /^\d+$/.test(name) && source ? `${source}-${name}` : name;
  const pkg = packageOf(dependency);
  const cvss = preferredCvss([cvssV3(child(v, 'cvssV3')), cvssV4(child(v, 'cvssV4')), cvssV2(v)]);
  const path = childText(dependency, 'filePath');
  return {
    asset,
    finding_key: findingKey(id, pkg.name),
    cve_id: CVE_RE.test(name) ? name : undefined,
    title: `${id} — ${pkg.name}`,
    description: paragraphs(unwrap(plainText(childText(v, 'description'))), path ? `Fichier : ${path}` : undefined),
    severity: severityFromName(childText(v, 'severity')) ?? severityFromScore(cvss?.score),
    cvss_score: cvss?.score,
    cvss_vector: cvss?.vector,
    cwe_ids: cweIds([childText(v, 'cwe'), ...children(child(v, 'cwes'), 'cwe').map((c) => c.text)]),
    package_name: pkg.name,
    installed_version: pkg.version,
    solution: `Mettre à jour ${pkg.name} vers une version qui corrige ${id}.`,
    location: path,
  };
}

/**
 * OWASP Dependency-Check XML (`<analysis>` in its namespace): one finding per (vulnerability, package) of each
 * dependency, the project named in projectInfo as the asset. Suppressed vulnerabilities (the team's own
 * suppression file said so) are left out.
 */
export async function parseDependencyCheck(chunks: AsyncIterable<string>, signal?: AbortSignal): Promise<Finding[]> {
  // projectInfo comes before the dependencies in Dependency-Check's schema.
  let asset: FindingAsset = { name: 'Projet Dependency-Check', asset_type: 'application' };
  const findings: Finding[] = [];
  await streamXml(chunks, {
    label: LABEL,
    signal,
    onRoot: (name) => {
      if (name !== 'analysis') throw new ReportError(400, 'report_malformed', MESSAGES.wrongRoot(LABEL, name));
    },
    select: (name, ancestors) =>
      (name === 'projectInfo' && ancestors.length === 1) ||
      (name === 'dependency' && ancestors.length === 2 && ancestors[1] === 'dependencies'),
    onElement: (el) => {
      if (el.name === 'projectInfo') {
        const project = childText(el, 'name');
        if (project) asset = { ...asset, name: project };
        return;
      }
      for (const v of children(child(el, 'vulnerabilities'), 'vulnerability')) {
        const finding = vulnerabilityFinding(asset, el, v);
        if (finding) findings.push(finding);
      }
    },
  });
  return findings;
}
