import { randomUUID } from 'node:crypto';
import { isSeverity } from '../../../../../../../contract/severity.ts';
import type { TenantDb } from '../../../../../db/tenant-scope.ts';
import { FieldErrors } from '../../../../../domain/errors.ts';
import type { AssetsRepository } from '../../../../../repositories/assets.ts';
import type { VulnerabilitiesRepository, VulnerabilityValues } from '../../../../../repositories/vulnerabilities.ts';
import { CVE_RE } from '../../../../../scan-reports/severity.ts';
import { Type, type Static } from '../../../../../schemas/common.ts';
import { OrNull as orNull } from '../../../../../schemas/common.ts';
import { invalid, LIMITS, linkBody, MESSAGES, nullableText, nullableInt, text } from '../loader.ts';

/** The findings API's own messages (POST /api/vulnerabilities/vulnerabilities/). */
export const FINDING_MESSAGES = {
  titleRequired: 'Le titre est requis (ou un identifiant CVE connu).',
  titleTooLong: `Le titre ne doit pas dépasser ${LIMITS.findingTitle} caractères.`,
  cvss: 'Le score CVSS doit être compris entre 0 et 10.',
  port: 'Le port doit être un entier entre 0 et 65535.',
  duplicate: 'Cette vulnérabilité est déjà enregistrée pour cet actif (même CVE).',
} as const;

/** Link an existing finding (`vulnerability_id`), or create one from these fields and link it. */
export const FindingLinkBody = linkBody('vulnerability_id', {
  title: text(LIMITS.text),
  cve_id: nullableText(LIMITS.word),
  asset_id: nullableInt(),
  severity: text(LIMITS.word, MESSAGES.severity),
  cvss_score: Type.Optional(orNull<number>('number')),
  description: text(LIMITS.longText),
  solution: text(LIMITS.longText),
  port: nullableInt(),
  protocol: nullableText(LIMITS.protocol),
  service: nullableText(LIMITS.service),
});
type FindingLinkBody = Static<typeof FindingLinkBody>;

type FindingInput = VulnerabilityValues & { cveId?: string | null };

/** As POST /api/vulnerabilities/vulnerabilities/ checks a new finding (CVE facts are merged afterwards). */
function validateFinding(body: FindingLinkBody): FindingInput {
  const errors = new FieldErrors();
  const out: FindingInput = {};
  if (body.title !== undefined) {
    const title = body.title.trim();
    if (title.length > LIMITS.findingTitle) errors.add('title', FINDING_MESSAGES.titleTooLong);
    else if (title !== '') out.title = title;
  }
  if (body.cve_id !== undefined) {
    const cve = body.cve_id?.trim().toUpperCase() ?? '';
    if (cve === '') out.cveId = null;
    else if (!CVE_RE.test(cve)) errors.add('cve_id', MESSAGES.cveInvalid);
    else out.cveId = cve;
  }
  if (body.asset_id !== undefined) {
    if (body.asset_id !== null && body.asset_id < 1) errors.add('asset_id', MESSAGES.assetUnknown);
    else out.assetId = body.asset_id;
  }
  if (body.severity !== undefined) {
    const s = body.severity.trim().toLowerCase();
    if (isSeverity(s)) out.severity = s;
    else errors.add('severity', MESSAGES.severity);
  }
  if (body.cvss_score !== undefined) {
    if (body.cvss_score !== null && (body.cvss_score < 0 || body.cvss_score > 10)) {
      errors.add('cvss_score', FINDING_MESSAGES.cvss);
    } else out.cvssScore = body.cvss_score;
  }
  if (body.port !== undefined) {
    if (body.port !== null && (body.port < 0 || body.port > 65535)) errors.add('port', FINDING_MESSAGES.port);
    else out.port = body.port;
  }
  if (body.description !== undefined) out.description = body.description;
  if (body.solution !== undefined) out.solution = body.solution;
  if (body.protocol !== undefined) out.protocol = body.protocol?.trim() || null;
  if (body.service !== undefined) out.service = body.service?.trim() || null;
  errors.throwIfAny();
  return out;
}

/**
 * A new finding as POST /api/vulnerabilities/vulnerabilities/ makes it: the CVE store's facts fill what the body
 * leaves out (severity, score, vector, KEV, CWE, title, description), the asset must be the tenant's, and the
 * finding key is the CVE (else a manual key).
 */
export async function newFinding(
  tx: TenantDb,
  body: FindingLinkBody,
  repos: { assets: AssetsRepository; findings: VulnerabilitiesRepository },
) {
  const input = validateFinding(body);
  const values: VulnerabilityValues = { ...input };
  if (input.assetId !== undefined && input.assetId !== null) {
    if (!(await repos.assets.names(tx, [input.assetId])).has(input.assetId)) {
      throw invalid('asset_id', MESSAGES.assetUnknown);
    }
  }
  const facts = input.cveId ? await repos.findings.cveFacts(tx, input.cveId) : undefined;
  if (facts) {
    values.severity ??= facts.severity;
    if (input.cvssScore === undefined) {
      values.cvssScore = facts.cvssScore;
      values.cvssVector = facts.cvssVector;
    }
    values.kev = facts.kev;
    values.cweIds = facts.cweIds;
    values.title ??= facts.title || facts.cveId;
    if (body.description === undefined) values.description = facts.description;
  }
  if (!values.title) throw invalid('title', FINDING_MESSAGES.titleRequired);
  return { ...values, title: values.title, findingKey: input.cveId ?? `manual:${randomUUID()}` };
}
