import { isSeverity, type Severity } from '../../../../../../../contract/severity.ts';
import { THREAT_STATUSES, type ThreatStatus } from '../../../../../../../contract/threats.ts';
import type { ThreatValues } from '../../../../../repositories/threats.ts';
import { CVE_RE } from '../../../../../scan-reports/severity.ts';
import { Type, type Static } from '../../../../../schemas/common.ts';
import { invalid, LIMITS, linkBody, MESSAGES, nullableText, nullableInt, text } from '../loader.ts';

/** The threats API's own messages (POST /api/threats/). */
const THREAT_MESSAGES = {
  titleRequired: 'Le titre est requis.',
  titleTooLong: `Le titre ne doit pas dépasser ${LIMITS.threatTitle} caractères.`,
  descriptionTooLong: `La description ne doit pas dépasser ${LIMITS.threatDescription} caractères.`,
  tooLong: (field: string) => `Le champ ${field} ne doit pas dépasser ${LIMITS.threatShort} caractères.`,
  status: `Statut invalide. Valeurs possibles : ${THREAT_STATUSES.join(', ')}.`,
  contradiction: 'is_mitigated et status se contredisent : une menace atténuée a le statut MITIGATED ou CLOSED.',
} as const;

/** Link an existing threat (`threat_id`), or create one from these fields and link it. */
export const ThreatLinkBody = linkBody('threat_id', {
  title: text(LIMITS.text),
  description: text(LIMITS.longText),
  threat_type: text(LIMITS.text),
  severity: text(LIMITS.word, MESSAGES.severity),
  status: text(LIMITS.word, THREAT_MESSAGES.status),
  is_mitigated: Type.Optional(Type.Boolean()),
  source: text(LIMITS.text),
  cve_id: nullableText(LIMITS.word),
  asset_id: nullableInt(),
});
type ThreatLinkBody = Static<typeof ThreatLinkBody>;

const isStatus = (v: string): v is ThreatStatus => (THREAT_STATUSES as readonly string[]).includes(v);

/** A trimmed text of at most the threats API's short limit. */
function short(body: ThreatLinkBody, field: 'threat_type' | 'source', fallback: string): string {
  const value = (body[field] ?? '').trim() || fallback;
  if (value.length > LIMITS.threatShort) throw invalid(field, THREAT_MESSAGES.tooLong(field));
  return value;
}

/**
 * As POST /api/threats/ checks a new threat (first error only), with its status and mitigation kept consistent;
 * the asset is checked by the caller.
 */
export function validateThreat(body: ThreatLinkBody, userId: number): ThreatValues & { title: string } {
  const title = (body.title ?? '').trim();
  if (title === '') throw invalid('title', THREAT_MESSAGES.titleRequired);
  if (title.length > LIMITS.threatTitle) throw invalid('title', THREAT_MESSAGES.titleTooLong);
  const description = (body.description ?? '').trim();
  if (description.length > LIMITS.threatDescription) throw invalid('description', THREAT_MESSAGES.descriptionTooLong);
  const threatType = short(body, 'threat_type', 'other');
  const source = short(body, 'source', '');
  let severity: Severity = 'medium';
  if (body.severity !== undefined) {
    if (!isSeverity(body.severity)) throw invalid('severity', MESSAGES.severity);
    severity = body.severity;
  }
  const cve = (body.cve_id ?? '').trim().toUpperCase();
  if (cve !== '' && !CVE_RE.test(cve)) throw invalid('cve_id', MESSAGES.cveInvalid);
  let status: ThreatStatus | undefined;
  if (body.status !== undefined) {
    if (!isStatus(body.status)) throw invalid('status', THREAT_MESSAGES.status);
    status = body.status;
  }
  const mitigatedState = status === 'MITIGATED' || status === 'CLOSED' || status === undefined;
  if ((status === 'MITIGATED' && body.is_mitigated === false) || (body.is_mitigated === true && !mitigatedState)) {
    throw invalid('is_mitigated', THREAT_MESSAGES.contradiction);
  }
  const mitigated = status === 'MITIGATED' || body.is_mitigated === true;
  if (body.is_mitigated === true && status === undefined) status = 'MITIGATED';
  return {
    title,
    description,
    threatType,
    source,
    severity,
    cveId: cve || null,
    assetId: body.asset_id ?? null,
    status: status ?? 'ACTIVE',
    isMitigated: mitigated,
    mitigatedAt: mitigated ? new Date() : null,
    mitigatedBy: mitigated ? userId : null,
  };
}
