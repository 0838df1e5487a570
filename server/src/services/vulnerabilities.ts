/** Findings' writes and reads that take several steps: CVE facts, finding keys, resolution. */
import { randomUUID } from 'node:crypto';
import type { TenantDb } from '../db/tenant-scope.ts';
import { notFound } from '../domain/errors.ts';
import { AssetsRepository } from '../repositories/assets.ts';
import { FindingEventsRepository, type FindingEventInput } from '../repositories/finding-events.ts';
import { TenantUsersRepository } from '../repositories/tenant-users.ts';
import { TriageSettingsRepository } from '../repositories/triage-settings.ts';
import {
  VulnerabilitiesRepository,
  type CveFacts,
  type VulnerabilityRow,
  type VulnerabilityValues,
} from '../repositories/vulnerabilities.ts';
import { ASSET_UNKNOWN, invalid } from '../schemas/fields.ts';
import { MESSAGES, type FindingWrite } from '../schemas/vulnerabilities.ts';
import { setResolved } from './finding-lifecycle.ts';
import { analystRating } from './finding-severity.ts';
import { severityFromScore } from '../scan-reports/severity.ts';

const repo = new VulnerabilitiesRepository();
const assets = new AssetsRepository();
const members = new TenantUsersRepository();
const events = new FindingEventsRepository();
const triage = new TriageSettingsRepository();

/** The finding just written, read back. */
async function reread(tx: TenantDb, id: number): Promise<VulnerabilityRow> {
  const row = await repo.find(tx, id);
  if (!row) throw notFound();
  return row;
}

/**
 * Writes one finding (a new one when `existing` is undefined): CVE facts fill what the body leaves out (severity,
 * score, vector, KEV, CWE, title), the asset must be one of the tenant's (the foreign key alone would accept
 * another tenant's id), and the finding key follows the CVE. A second finding of the same asset and CVE hits the
 * unique index (services/unique-writes.ts).
 */
export async function saveFinding(
  tx: TenantDb,
  input: FindingWrite,
  existing: VulnerabilityRow | undefined,
  options: { requireTitle: boolean; userId: number },
): Promise<VulnerabilityRow> {
  const values: VulnerabilityValues = { ...input.values };
  if (values.assetId !== undefined && values.assetId !== null) {
    if (!(await assets.names(tx, [values.assetId])).has(values.assetId)) throw invalid('asset_id', ASSET_UNKNOWN);
  }
  if (typeof values.assigneeId === 'number' && !(await members.isAssignable(tx, values.assigneeId))) {
    throw invalid('assignee_id', MESSAGES.assignee);
  }
  const cveId = input.values.cveId;
  const cveChanged = cveId !== undefined && cveId !== (existing?.cveId ?? null);
  const facts = cveId ? await repo.cveFacts(tx, cveId) : undefined;
  Object.assign(values, ratingOf(input, existing, cveChanged ? facts : undefined));
  if (cveChanged && facts) {
    if (input.values.cvssScore === undefined) {
      values.cvssScore = facts.cvssScore;
      values.cvssVector = facts.cvssVector;
    }
    values.kev = facts.kev;
    values.cweIds = facts.cweIds;
    // A finding's own title and description stay when it is re-linked to another CVE.
    if (!existing) {
      values.title ??= facts.title || facts.cveId;
      if (input.values.description === undefined) values.description = facts.description;
    }
  } else if (cveChanged && existing) {
    // Re-linked to an unknown CVE, or unlinked.
    values.kev = false;
    values.cweIds = [];
  }
  // A known CVE stands in for a missing title.
  if (facts && options.requireTitle && !existing) values.title ??= facts.title || facts.cveId;
  if (options.requireTitle && !values.title && !(facts && existing)) throw invalid('title', MESSAGES.titleRequired);
  if (!existing) {
    // A new finding starts « nouvelle » (the create bodies have no is_resolved).
    const id = await repo.create(tx, {
      ...values,
      title: values.title!,
      findingKey: cveId ?? `manual:${randomUUID()}`,
    });
    return reread(tx, id);
  }
  // A manual or CVE-keyed finding follows its CVE; a scanner's own key (an OID, a port) stays.
  if (cveChanged && (existing.findingKey === existing.cveId || existing.findingKey.startsWith('manual:'))) {
    values.findingKey = cveId ?? `manual:${randomUUID()}`;
  }
  if (!(await repo.update(tx, existing.id, values))) throw notFound();
  await events.add(tx, followedChanges(existing, values, options.userId));
  if (input.resolved !== undefined) await setResolved(tx, existing.id, input.resolved, options.userId);
  return reread(tx, existing.id);
}

/**
 * Who rates the finding after this write: a person who sets a severity (an analyst's rating, over the source's on an
 * existing finding when it changes it); else a newly linked, scored CVE (its score, and who scored it); else, for a
 * new finding, the score typed in, and without one « Non évaluée », neither Info nor a made-up Medium.
 */
function ratingOf(
  input: FindingWrite,
  existing: VulnerabilityRow | undefined,
  linked: CveFacts | undefined,
): VulnerabilityValues {
  const rating = input.values.severity;
  if (rating !== undefined) {
    if (!existing) return { severitySource: 'analyst', severityReason: input.severityReason ?? null };
    if (rating === existing.severity && !input.severityReason) return {};
    return analystRating(existing, rating, input.severityReason ?? existing.severityReason);
  }
  if (linked && linked.severity !== 'unrated') {
    return {
      severity: linked.severity,
      // A CVE 5 record imported before migration 0030 names no scorer: the CNA's container is read first.
      severitySource: linked.cvssSource ?? 'cna',
      severityReason: null,
      ratedSeverity: null,
      ratedSource: null,
    };
  }
  if (existing) return {};
  // A score typed in rates it (CVSS's qualitative scale); without one nobody did.
  const score = input.values.cvssScore;
  return { severity: typeof score === 'number' ? severityFromScore(score) : 'unrated', severitySource: 'analyst' };
}

/** The history lines of a write's severity, assignment and due date changes. */
function followedChanges(existing: VulnerabilityRow, values: VulnerabilityValues, userId: number): FindingEventInput[] {
  const changes: FindingEventInput[] = [];
  const text = (v: number | string | null | undefined) => (v === null || v === undefined ? null : String(v));
  if (values.assigneeId !== undefined && values.assigneeId !== existing.assigneeId) {
    changes.push({
      vulnerabilityId: existing.id,
      userId,
      kind: 'assignee',
      fromValue: text(existing.assigneeId),
      toValue: text(values.assigneeId),
    });
  }
  if (values.severity !== undefined && values.severity !== existing.severity) {
    changes.push({
      vulnerabilityId: existing.id,
      userId,
      kind: 'severity',
      fromValue: existing.severity,
      toValue: values.severity,
      comment: values.severitySource === 'analyst' ? (values.severityReason ?? '') : '',
    });
  }
  if (values.dueDate !== undefined && values.dueDate !== existing.dueDate) {
    changes.push({
      vulnerabilityId: existing.id,
      userId,
      kind: 'due_date',
      fromValue: existing.dueDate,
      toValue: values.dueDate,
    });
  }
  return changes;
}

/**
 * A finding, what the CVE store knows of its CVE and its tenant's EPSS threshold (its SSVC decision reads them);
 * undefined when there is no such finding.
 */
export async function findingWithCve(tx: TenantDb, id: number) {
  const row = await repo.find(tx, id);
  if (!row) return undefined;
  const cve = row.cveId ? await repo.cveDetail(tx, row.cveId) : undefined;
  return { row, cve, epssThreshold: await triage.epssThreshold(tx) };
}
