/**
 * Who rates a finding (issue 21, docs/severity.md): the scanner, the CVE store (NVD, the CNA, CISA's ADP) or an
 * analyst. An analyst's rating keeps the source's under it (rated_*), so that a re-scan updates what the source says
 * without undoing the analyst, and withdrawing the override brings the source's rating back.
 */
import type { FindingSeverity } from '../../../contract/severity.ts';
import { charCount } from '../../../contract/text.ts';
import type { TenantDb } from '../db/tenant-scope.ts';
import { ApiError, notFound } from '../domain/errors.ts';
import { FindingEventsRepository } from '../repositories/finding-events.ts';
import {
  VulnerabilitiesRepository,
  type VulnerabilityRecord,
  type VulnerabilityRow,
  type VulnerabilityValues,
} from '../repositories/vulnerabilities.ts';
import { MESSAGES, SEVERITY_REASON_MAX } from '../schemas/vulnerabilities.ts';

const repo = new VulnerabilitiesRepository();
const events = new FindingEventsRepository();

type Rated = Pick<VulnerabilityRecord, 'severity' | 'severitySource' | 'ratedSeverity' | 'ratedSource'>;

/**
 * The columns of an analyst's rating over `existing`: the source's rating goes under it the first time (an earlier
 * override keeps the one already there; a hand-made finding has none).
 */
export function analystRating(existing: Rated, severity: FindingSeverity, reason: string | null): VulnerabilityValues {
  const overSource = existing.severitySource !== 'analyst';
  return {
    severity,
    severitySource: 'analyst',
    severityReason: reason,
    ratedSeverity: overSource ? existing.severity : existing.ratedSeverity,
    ratedSource: overSource ? existing.severitySource : existing.ratedSource,
  };
}

/** The history line of a rating change. */
const severityEvent = (id: number, from: FindingSeverity, to: FindingSeverity, userId: number, comment: string) => ({
  vulnerabilityId: id,
  userId,
  kind: 'severity' as const,
  fromValue: from,
  toValue: to,
  comment,
});

export function checkedReason(raw: string | undefined): string {
  const reason = raw?.trim() ?? '';
  if (!reason || charCount(reason) > SEVERITY_REASON_MAX) {
    throw new ApiError(400, 'invalid', MESSAGES.severityReason, { fields: { reason: [MESSAGES.severityReason] } });
  }
  return reason;
}

async function current(tx: TenantDb, id: number): Promise<VulnerabilityRow> {
  const row = await repo.find(tx, id);
  if (!row) throw notFound();
  return row;
}

/** An analyst rates the finding, with a reason; the history says from what to what and why. */
export async function overrideSeverity(
  tx: TenantDb,
  id: number,
  change: { severity: FindingSeverity; reason: string; userId: number },
): Promise<{ row: VulnerabilityRow; from: FindingSeverity }> {
  const existing = await current(tx, id);
  await repo.update(tx, id, analystRating(existing, change.severity, change.reason));
  await events.add(tx, [severityEvent(id, existing.severity, change.severity, change.userId, change.reason)]);
  return { row: await current(tx, id), from: existing.severity };
}

/** The analyst's rating is withdrawn: the source's (as it stands now) is back. */
export async function withdrawSeverity(
  tx: TenantDb,
  id: number,
  userId: number,
): Promise<{ row: VulnerabilityRow; from: FindingSeverity }> {
  const existing = await current(tx, id);
  if (existing.severitySource !== 'analyst' || existing.ratedSeverity === null || existing.ratedSource === null) {
    throw new ApiError(400, 'invalid', MESSAGES.noOverride);
  }
  await repo.update(tx, id, {
    severity: existing.ratedSeverity,
    severitySource: existing.ratedSource,
    severityReason: null,
    ratedSeverity: null,
    ratedSource: null,
  });
  await events.add(tx, [severityEvent(id, existing.severity, existing.ratedSeverity, userId, '')]);
  return { row: await current(tx, id), from: existing.severity };
}
