import type { AssetType } from '../db/schema.ts';
import { CVE_RE, parseScore, severityFromName, severityFromScore } from './severity.ts';
import { MESSAGES, ReportError, type Finding, type FindingAsset } from './types.ts';

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined);
const list = (v: unknown): Json[] => (Array.isArray(v) ? v.filter(isObject) : []);

/** A Trivy JSON report (schema v2): an object with SchemaVersion and Results. */
export function isTrivyReport(doc: unknown): doc is Json {
  return isObject(doc) && 'SchemaVersion' in doc && ('Results' in doc || 'ArtifactName' in doc);
}

const ASSET_TYPES: Record<string, AssetType> = {
  container_image: 'container',
  filesystem: 'application',
  repository: 'application',
  vm: 'server',
  aws_account: 'cloud',
};

// Own keys only: a report's `constructor` must not find Object's.
const assetTypeOf = (type: string | undefined): AssetType =>
  type !== undefined && Object.hasOwn(ASSET_TYPES, type) ? ASSET_TYPES[type]! : 'other';

function reportAsset(doc: Json): FindingAsset {
  const metadata = isObject(doc.Metadata) ? doc.Metadata : {};
  const os = isObject(metadata.OS) ? metadata.OS : {};
  const repoTag = Array.isArray(metadata.RepoTags) ? metadata.RepoTags.map(str).find(Boolean) : undefined;
  // An image scanned by id has an empty ArtifactName; its OS target reads 'image:tag (debian 10.13)'.
  const osTarget = list(doc.Results)
    .filter((r) => r.Class === 'os-pkgs')
    .map((r) => str(r.Target)?.replace(/\s+\([^)]*\)$/, ''))
    .find(Boolean);
  const name = str(doc.ArtifactName) ?? repoTag ?? osTarget ?? str(metadata.ImageID) ?? 'Artefact Trivy';
  const osName = [str(os.Family), str(os.Name)].filter(Boolean).join(' ');
  return {
    name,
    operating_system: osName || undefined,
    asset_type: assetTypeOf(str(doc.ArtifactType)),
  };
}

/** The CVSS entry of the severity's source, else NVD's, else the first; v4 before v3 before v2. */
function pickCvss(v: Json, severitySource: string | undefined): { score?: number; vector?: string } {
  const cvss = isObject(v.CVSS) ? v.CVSS : {};
  const entries = Object.entries(cvss).filter((e): e is [string, Json] => isObject(e[1]));
  const entry =
    entries.find(([k]) => k === severitySource)?.[1] ?? entries.find(([k]) => k === 'nvd')?.[1] ?? entries[0]?.[1];
  if (!entry) return {};
  for (const [scoreKey, vectorKey] of [
    ['V40Score', 'V40Vector'],
    ['V3Score', 'V3Vector'],
    ['V2Score', 'V2Vector'],
  ] as const) {
    const score = parseScore(entry[scoreKey]);
    if (score !== undefined) return { score, vector: str(entry[vectorKey]) };
  }
  return {};
}

function vulnerabilityFinding(asset: FindingAsset, target: string | undefined, v: Json): Finding | undefined {
  const id = str(v.VulnerabilityID);
  const pkg = str(v.PkgName);
  if (!id) return undefined;
  // Trivy states the package is not affected (VEX or vendor data): nothing to fix.
  if (v.Status === 'not_affected') return undefined;
  const { score, vector } = pickCvss(v, str(v.SeveritySource));
  const fixed = str(v.FixedVersion);
  return {
    asset,
    // One CVE in two packages needs two fixes, so the package is part of the key.
    finding_key: pkg ? `${id}|${pkg}` : id,
    cve_id: CVE_RE.test(id) ? id : undefined,
    title: str(v.Title) ?? id,
    description: str(v.Description) ?? '',
    severity: severityFromName(str(v.Severity)) ?? severityFromScore(score),
    cvss_score: score,
    cvss_vector: vector,
    cwe_ids: Array.isArray(v.CweIDs) ? v.CweIDs.map(str).filter((c): c is string => !!c) : undefined,
    package_name: pkg,
    installed_version: str(v.InstalledVersion),
    fixed_version: fixed,
    solution: fixed && pkg ? `Mettre à jour ${pkg} vers la version ${fixed}.` : '',
    location: target,
  };
}

/** Trivy JSON schema v2: vulnerabilities, failed misconfigurations and secrets (never the secret itself). */
export function parseTrivy(doc: unknown): Finding[] {
  if (!isTrivyReport(doc) || (doc.Results !== undefined && doc.Results !== null && !Array.isArray(doc.Results))) {
    throw new ReportError(400, 'report_malformed', MESSAGES.notTrivy);
  }
  const asset = reportAsset(doc);
  const findings: Finding[] = [];
  for (const result of list(doc.Results)) {
    const target = str(result.Target);
    for (const v of list(result.Vulnerabilities)) {
      const finding = vulnerabilityFinding(asset, target, v);
      if (finding) findings.push(finding);
    }
    for (const m of list(result.Misconfigurations)) {
      const id = str(m.ID) ?? str(m.AVDID);
      if (!id || (m.Status !== undefined && m.Status !== 'FAIL')) continue;
      findings.push({
        asset,
        finding_key: `misconfig:${id}|${target ?? ''}`,
        title: str(m.Title) ?? id,
        description: [str(m.Description), str(m.Message), target ? `Fichier : ${target}` : undefined]
          .filter(Boolean)
          .join('\n\n'),
        severity: severityFromName(str(m.Severity)) ?? 'medium',
        solution: str(m.Resolution) ?? '',
        location: target,
      });
    }
    for (const s of list(result.Secrets)) {
      const rule = str(s.RuleID);
      if (!rule) continue;
      const line = typeof s.StartLine === 'number' ? s.StartLine : undefined;
      findings.push({
        asset,
        finding_key: `secret:${rule}|${target ?? ''}:${line ?? ''}`,
        title: `Secret exposé : ${str(s.Title) ?? rule}`,
        // The match itself is never copied: it would store the secret.
        description: `${str(s.Category) ?? 'Secret'} détecté dans ${target ?? 'un fichier'}${line ? `, ligne ${line}` : ''}.`,
        severity: severityFromName(str(s.Severity)) ?? 'high',
        solution: 'Révoquer ce secret, le remplacer et le retirer du code et de son historique.',
        location: target,
      });
    }
  }
  return findings;
}
