import type { TenantDb } from '../db/tenant-scope.ts';
import { ThreatsRepository } from '../repositories/threats.ts';

const repo = new ThreatsRepository();

/** The threats' counts by severity and by status, and the `recent` latest ones (spec §3 threat summary). */
export async function threatSummary(tx: TenantDb, recent: number) {
  return {
    bySeverity: await repo.countsBy(tx, 'severity'),
    byStatus: await repo.countsBy(tx, 'status'),
    recent: await repo.recent(tx, recent),
  };
}
