/** A finding's moves through its lifecycle, each kept in its history (issue 21, domain/finding-lifecycle.ts). */
import type { FindingState } from '../../../contract/finding-states.ts';
import type { TenantDb } from '../db/tenant-scope.ts';
import { planMove, stateForResolved, type MoveRequest } from '../domain/finding-lifecycle.ts';
import { todayUtc } from '../domain/risk-scoring.ts';
import { FindingEventsRepository } from '../repositories/finding-events.ts';
import { VulnerabilitiesRepository, type VulnerabilityRow } from '../repositories/vulnerabilities.ts';

const repo = new VulnerabilitiesRepository();
const events = new FindingEventsRepository();

export interface Moved {
  row: VulnerabilityRow;
  /** The state before; equal to row.state when nothing changed. */
  from: FindingState;
}

/**
 * Moves finding `id` as `request` asks (refusals are French ApiErrors), writing the state columns and one history
 * line in the same transaction; undefined when there is no such finding in the tenant.
 */
export async function moveFinding(
  tx: TenantDb,
  id: number,
  request: Omit<MoveRequest, 'today' | 'to'> & { to: FindingState | ((current: FindingState) => FindingState) },
): Promise<Moved | undefined> {
  const finding = await repo.find(tx, id);
  if (!finding) return undefined;
  const to = typeof request.to === 'function' ? request.to(finding.state) : request.to;
  const columns = planMove(finding, { ...request, to, today: todayUtc() });
  if (!columns) return { row: finding, from: finding.state };
  await repo.update(tx, id, columns);
  await events.add(tx, [
    {
      vulnerabilityId: id,
      userId: request.userId,
      kind: 'state',
      fromValue: finding.state,
      toValue: columns.state,
      comment: request.comment.trim(),
    },
  ]);
  return { row: (await repo.find(tx, id))!, from: finding.state };
}

/** §7 mark_resolved and `is_resolved` in a write: resolving claims the finding fixed, reopening confirms it. */
export function setResolved(tx: TenantDb, id: number, resolved: boolean, userId: number) {
  return moveFinding(tx, id, {
    to: (current) => stateForResolved(current, resolved),
    comment: '',
    userId,
    mayAcceptRisk: false,
  });
}
