import type { AssetType } from '../db/schema.ts';
import {
  cvssOf,
  findingKey,
  isObject,
  list,
  paragraphs,
  preferredCvss,
  str,
  strings,
  type Cvss,
  type Json,
} from './fields.ts';
import { CVE_RE, severityFromName, severityFromScore } from './severity.ts';
import { MESSAGES, ReportError, type Finding, type FindingAsset } from './types.ts';

/** A Grype JSON report (`grype -o json`): `matches[]` of a vulnerability found in an artifact. */
export function isGrypeReport(doc: unknown): doc is Json {
  if (!isObject(doc) || !Array.isArray(doc.matches)) return false;
  const descriptor = isObject(doc.descriptor) ? doc.descriptor : {};
  return descriptor.name === 'grype' || list(doc.matches).some((m) => isObject(m.vulnerability));
}

const SOURCE_TYPES: Record<string, AssetType> = { image: 'container', directory: 'application', file: 'application' };

function reportAsset(doc: Json): FindingAsset {
  const source = isObject(doc.source) ? doc.source : {};
  const target = isObject(source.target) ? source.target : {};
  const type = str(source.type);
  const distro = isObject(doc.distro) ? doc.distro : {};
  const name =
    str(target.userInput) ?? strings(target.tags)[0] ?? str(source.target) ?? str(target.imageID) ?? 'Artefact Grype';
  return {
    name,
    operating_system: [str(distro.name), str(distro.version)].filter(Boolean).join(' ') || undefined,
    asset_type: type !== undefined && Object.hasOwn(SOURCE_TYPES, type) ? SOURCE_TYPES[type]! : 'other',
  };
}

function cvssList(v: Json): Cvss | undefined {
  return preferredCvss(
    list(v.cvss).map((c) => {
      const metrics = isObject(c.metrics) ? c.metrics : {};
      const version = Number.parseFloat(str(c.version) ?? '');
      return cvssOf(metrics.baseScore, str(c.vector), Number.isFinite(version) ? Math.trunc(version) : undefined);
    }),
  );
}

const percent = (n: number) => `${(n * 100).toLocaleString('fr-FR', { maximumFractionDigits: 2 })} %`;

/** EPSS (probability of exploitation in the next 30 days): no column of its own yet, so said in the description. */
function epssText(v: Json): string | undefined {
  const entry = list(v.epss)[0];
  const score = typeof entry?.epss === 'number' ? entry.epss : undefined;
  if (score === undefined || score < 0 || score > 1) return undefined;
  const pct = typeof entry?.percentile === 'number' ? entry.percentile : undefined;
  const date = str(entry?.date);
  return `EPSS : ${percent(score)}${pct !== undefined ? ` (centile ${percent(pct)})` : ''}${date ? `, au ${date}` : ''}.`;
}

function matchFinding(asset: FindingAsset, match: Json): Finding | undefined {
  const v = isObject(match.vulnerability) ? match.vulnerability : undefined;
  const artifact = isObject(match.artifact) ? match.artifact : {};
  const id = str(v?.id);
  if (!v || !id) return undefined;
  // A GHSA or distribution advisory names its CVE among the related vulnerabilities, with the NVD's data.
  const related = list(match.relatedVulnerabilities);
  const cve = CVE_RE.test(id) ? id : related.map((r) => str(r.id)).find((r) => r !== undefined && CVE_RE.test(r));
  const cvss = cvssList(v) ?? preferredCvss(related.map(cvssList));
  const pkg = str(artifact.name);
  const fix = isObject(v.fix) ? v.fix : {};
  const fixed = strings(fix.versions).join(', ') || undefined;
  const location = list(artifact.locations)
    .map((l) => str(l.path))
    .find(Boolean);
  return {
    asset,
    // One advisory in two packages needs two fixes: the package is part of the key, as for Trivy.
    finding_key: findingKey(cve ?? id, pkg),
    cve_id: cve,
    title: cve && cve !== id ? `${cve} (${id})${pkg ? ` — ${pkg}` : ''}` : `${id}${pkg ? ` — ${pkg}` : ''}`,
    description: paragraphs(
      str(v.description) ?? related.map((r) => str(r.description)).find(Boolean),
      epssText(v) ?? related.map(epssText).find(Boolean),
    ),
    severity: severityFromName(str(v.severity)) ?? severityFromScore(cvss?.score),
    cvss_score: cvss?.score,
    cvss_vector: cvss?.vector,
    package_name: pkg,
    installed_version: str(artifact.version),
    fixed_version: fixed,
    solution: fixed && pkg ? `Mettre à jour ${pkg} vers la version ${fixed}.` : '',
    location,
  };
}

/** Grype JSON: one finding per match, keyed by its CVE (else its advisory) and package. */
export function parseGrype(doc: unknown): Finding[] {
  if (!isGrypeReport(doc)) throw new ReportError(400, 'report_malformed', MESSAGES.notGrype);
  const asset = reportAsset(doc);
  return list(doc.matches)
    .map((m) => matchFinding(asset, m))
    .filter((f): f is Finding => f !== undefined);
}
