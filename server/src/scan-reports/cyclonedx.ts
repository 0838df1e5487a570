import type { AssetType } from '../db/schema.ts';
import {
  cvssOf,
  cweIds,
  findingKey,
  isObject,
  list,
  paragraphs,
  parsePurl,
  preferredCvss,
  purlPackageName,
  str,
  type Json,
} from './fields.ts';
import { CVE_RE, severityFromName, severityFromScore } from './severity.ts';
import { MESSAGES, ReportError, type Finding, type FindingAsset } from './types.ts';

/** A CycloneDX JSON BOM (an SBOM with its vulnerabilities, i.e. VEX): `bomFormat: "CycloneDX"`. */
export function isCycloneDx(doc: unknown): doc is Json {
  return isObject(doc) && doc.bomFormat === 'CycloneDX';
}

// The BOM's subject by its component type.
const COMPONENT_TYPES: Record<string, AssetType> = {
  application: 'application',
  library: 'application',
  framework: 'application',
  file: 'application',
  container: 'container',
  'operating-system': 'server',
  platform: 'server',
  device: 'iot',
  firmware: 'iot',
};

function bomAsset(doc: Json): FindingAsset {
  const metadata = isObject(doc.metadata) ? doc.metadata : {};
  const component = isObject(metadata.component) ? metadata.component : {};
  const type = str(component.type);
  const name = str(component.name);
  const group = str(component.group);
  return {
    name: name ? (group ? `${group}/${name}` : name) : (str(doc.serialNumber) ?? 'SBOM CycloneDX'),
    asset_type: type !== undefined && Object.hasOwn(COMPONENT_TYPES, type) ? COMPONENT_TYPES[type]! : 'application',
  };
}

interface Component {
  name: string | undefined;
  version: string | undefined;
}

/** Every component of the BOM (nested ones too) by its bom-ref. */
function componentsByRef(doc: Json): Map<string, Component> {
  const byRef = new Map<string, Component>();
  const visit = (components: unknown) => {
    for (const c of list(components)) {
      const ref = str(c['bom-ref']);
      const purl = parsePurl(str(c.purl));
      const group = str(c.group);
      const name = purl ? purlPackageName(purl) : group ? `${group}:${str(c.name) ?? ''}` : str(c.name);
      if (ref) byRef.set(ref, { name, version: str(c.version) ?? purl?.version });
      visit(c.components);
    }
  };
  visit(doc.components);
  return byRef;
}

/** What an `affects` ref names: a component of the BOM, else the package URL the ref often is. */
function affected(ref: string, byRef: Map<string, Component>): Component {
  const known = byRef.get(ref);
  if (known) return known;
  const purl = parsePurl(ref);
  return purl ? { name: purlPackageName(purl), version: purl.version } : { name: ref, version: undefined };
}

const METHOD_VERSIONS: Record<string, number> = { CVSSv2: 2, CVSSv3: 3, CVSSv31: 3, CVSSv4: 4 };

function ratings(v: Json) {
  const all = list(v.ratings);
  const cvss = preferredCvss(
    all.map((r) => {
      const method = str(r.method) ?? '';
      return Object.hasOwn(METHOD_VERSIONS, method)
        ? cvssOf(r.score, str(r.vector), METHOD_VERSIONS[method])
        : undefined;
    }),
  );
  // A rating's own severity (the scanner's verdict) before the score's.
  // A rating that says something: « info » and « unknown » do not outrank a score.
  const named = all
    .map((r) => severityFromName(str(r.severity)))
    .find((s) => s !== undefined && s !== 'info' && s !== 'unrated');
  return { cvss, severity: named ?? severityFromScore(cvss?.score) };
}

// Scanners put the fixed versions in a property (Grype: 'grype:fixed_versions').
const FIXED_PROPERTY = /(?:^|:)fixed[_-]?versions?$/i;

/**
 * CycloneDX JSON with vulnerabilities (VEX): one finding per (vulnerability, affected component). A vulnerability
 * the analysis says not_affected, false_positive or resolved is imported all the same, its state in `vex_state`.
 */
export function parseCycloneDx(doc: unknown): Finding[] {
  if (!isCycloneDx(doc)) throw new ReportError(400, 'report_malformed', MESSAGES.notCycloneDx);
  const asset = bomAsset(doc);
  const byRef = componentsByRef(doc);
  const findings: Finding[] = [];
  for (const v of list(doc.vulnerabilities)) {
    const id = str(v.id);
    if (!id) continue;
    const references = list(v.references).map((r) => str(r.id));
    const cve = CVE_RE.test(id) ? id : references.find((r) => r !== undefined && CVE_RE.test(r));
    const { cvss, severity } = ratings(v);
    const analysis = isObject(v.analysis) ? v.analysis : {};
    const fixed = list(v.properties)
      .filter((p) => FIXED_PROPERTY.test(str(p.name) ?? ''))
      .map((p) => str(p.value))
      .find(Boolean);
    const targets = list(v.affects)
      .map((a) => str(a.ref))
      .filter((r): r is string => r !== undefined)
      .map((ref) => affected(ref, byRef));
    for (const target of targets.length > 0 ? targets : [{ name: undefined, version: undefined }]) {
      const pkg = target.name;
      findings.push({
        asset,
        finding_key: findingKey(cve ?? id, pkg),
        cve_id: cve,
        title: `${cve && cve !== id ? `${cve} (${id})` : id}${pkg ? ` — ${pkg}` : ''}`,
        description: paragraphs(str(v.description), str(v.detail), str(analysis.detail)),
        severity,
        cvss_score: cvss?.score,
        cvss_vector: cvss?.vector,
        cwe_ids: cweIds(Array.isArray(v.cwes) ? v.cwes : []),
        package_name: pkg,
        installed_version: target.version,
        fixed_version: fixed,
        solution: str(v.recommendation) ?? (fixed && pkg ? `Mettre à jour ${pkg} vers la version ${fixed}.` : ''),
        vex_state: str(analysis.state),
      });
    }
  }
  return findings;
}
